package record

import (
	"crypto/sha256"
	"fmt"
	"github.com/logbook-project/logbook/internal/format"
	"hash"

	"github.com/logbook-project/logbook/internal/chain"
)

// chainJob is one step's part of the chain check (spec §7 step 4).
type chainJob struct {
	step     []byte // the step's canonical bytes, "hash" member included
	from, to int    // where the "hash" member is in step
	prevNull bool   // step.prev is null
	prev     string // step.prev otherwise
	hash     string // step.hash as stated
}

// chainHasher checks the chain on a second goroutine, in step order,
// while the reader goes on parsing: hashing is a fifth of verifying a
// long record. It keeps the first failure, as the sequential walk would.
type chainHasher struct {
	jobs    chan []chainJob
	batch   []chainJob
	done    chan struct{}
	result  Result
	n       int
	prevSum [64]byte // hex of the recomputed hash of the previous step
	last    string   // the last step's stated hash
}

const chainBatch = 256

func newChainHasher() *chainHasher {
	c := &chainHasher{jobs: make(chan []chainJob, 4), done: make(chan struct{})}
	go c.run()
	return c
}

func (c *chainHasher) add(j chainJob) {
	c.batch = append(c.batch, j)
	if len(c.batch) == chainBatch {
		c.jobs <- c.batch
		c.batch = make([]chainJob, 0, chainBatch)
	}
}

// wait flushes, waits for the hasher, and returns the first chain failure
// (a zero Result when none) and the last step's stated hash.
func (c *chainHasher) wait() (Result, string) {
	if len(c.batch) > 0 {
		c.jobs <- c.batch
	}
	close(c.jobs)
	<-c.done
	return c.result, c.last
}

func (c *chainHasher) run() {
	defer close(c.done)
	h := sha256.New()
	for batch := range c.jobs {
		for _, j := range batch {
			c.check(h, j)
		}
	}
}

func (c *chainHasher) check(h hash.Hash, j chainJob) {
	i := c.n
	c.n++
	var sum [64]byte
	chain.HashCut(h, j.step, j.from, j.to, &sum)
	if c.result.Code == "" {
		switch {
		case i == 0 && !j.prevNull:
			c.result = refuse(format.ChainBroken, "steps[0].prev is not null")
		case i > 0 && (j.prevNull || j.prev != string(c.prevSum[:])):
			c.result = refuse(format.ChainBroken, fmt.Sprintf("steps[%d].prev is not the hash of steps[%d]", i, i-1))
		case j.hash != string(sum[:]):
			c.result = refuse(format.ChainBroken, fmt.Sprintf("steps[%d].hash does not recompute", i))
		}
	}
	c.prevSum, c.last = sum, j.hash
}
