package record

import (
	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/format"
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
	jobs   chan []chainJob
	batch  []chainJob
	done   chan struct{}
	result Result
	walk   chain.Walker // the links, as every reader of a chain checks them
	last   string       // the last step's stated hash
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
	for batch := range c.jobs {
		for _, j := range batch {
			c.check(j)
		}
	}
}

// check links one more step; after the first failure, which is the one
// reported, the rest are not hashed.
func (c *chainHasher) check(j chainJob) {
	c.last = j.hash
	if c.result.Code != "" {
		return
	}
	if err := c.walk.Link(j.step, j.from, j.to, j.prevNull, j.prev, j.hash); err != nil {
		r := err.(*format.RefusalError)
		c.result = refuse(r.Code, r.Detail)
	}
}
