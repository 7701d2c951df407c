package testwait

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 3 {
			n.Add(1)
		}
	}()
	if !Until(0, func() bool { return n.Load() == 3 }) {
		t.Fatal("Until gave up on a condition that holds")
	}
	if Until(20*time.Millisecond, func() bool { return false }) {
		t.Fatal("Until reported a condition that never holds")
	}
}
