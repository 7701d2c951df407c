package hubtest

import (
	"sync"
	"time"
)

// FakeClock is a clock tests move forward by hand: the wall clock plus
// what Advance added. The zero value is ready.
type FakeClock struct {
	mu  sync.Mutex
	off time.Duration
}

// Now is the clock's time; it fits every Now option.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

// Advance moves the clock forward by d.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}
