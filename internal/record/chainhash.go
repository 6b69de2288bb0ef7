package record

import (
	"io"

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

// batch is up to chainBatch steps; when the signed bytes are hashed as a
// stream, signed holds their part of them (each step's canonical bytes,
// with the comma before it) and the jobs' steps point into it.
type batch struct {
	jobs   []chainJob
	signed []byte
}

// chainHasher checks the chain on a second goroutine, in step order,
// while the reader goes on parsing: hashing is a fifth of verifying a
// long record. It keeps the first failure, as the sequential walk would.
// With a sink, it also writes each batch's signed bytes there once the
// batch is checked, and hands the batch's memory back for the next one:
// then a few batches are all the steps in memory at once.
type chainHasher struct {
	jobs   chan batch
	free   chan batch // batches done with, to be filled again
	cur    batch
	sink   io.Writer // set before the first batch is sent; nil: none
	done   chan struct{}
	result Result
	walk   chain.Walker // the links, as every reader of a chain checks them
	last   string       // the last step's stated hash
}

const chainBatch = 256

func newChainHasher() *chainHasher {
	c := &chainHasher{jobs: make(chan batch, 4), free: make(chan batch, 6), done: make(chan struct{})}
	go c.run()
	return c
}

func (c *chainHasher) add(j chainJob) {
	c.cur.jobs = append(c.cur.jobs, j)
}

// full reports whether the current batch should be sent.
func (c *chainHasher) full() bool { return len(c.cur.jobs) >= chainBatch }

// send hands the current batch, whose signed bytes are signed (nil
// without a sink), to the hasher and returns memory for the next one:
// a batch done with, or none yet.
func (c *chainHasher) send(signed []byte) []byte {
	c.cur.signed = signed
	c.jobs <- c.cur
	select {
	case b := <-c.free:
		c.cur = batch{jobs: b.jobs[:0]}
		return b.signed[:0]
	default:
		c.cur = batch{jobs: make([]chainJob, 0, chainBatch)}
		return nil
	}
}

// wait flushes, waits for the hasher, and returns the first chain failure
// (a zero Result when none) and the last step's stated hash.
func (c *chainHasher) wait(signed []byte) (Result, string) {
	if len(c.cur.jobs) > 0 || len(signed) > 0 {
		c.cur.signed = signed
		c.jobs <- c.cur
	}
	close(c.jobs)
	<-c.done
	return c.result, c.last
}

func (c *chainHasher) run() {
	defer close(c.done)
	for b := range c.jobs {
		for _, j := range b.jobs {
			c.check(j)
		}
		if c.sink == nil {
			continue
		}
		c.sink.Write(b.signed)
		clear(b.jobs) // the strings point into the record: let them go
		select {
		case c.free <- b:
		default:
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
		c.result.Refuse(format.AsRefusal(err, format.ChainBroken))
	}
}
