// Package keylock locks by key: one mutex per key, alive only while
// someone holds or waits for it, so the set of locks does not grow with
// every key ever locked. The hub serializes the attempts of each run with
// it.
package keylock

import "sync"

// Locks holds a lock per key. The zero value is ready; safe for concurrent
// use.
type Locks struct {
	mu    sync.Mutex
	locks map[string]*lock
}

type lock struct {
	sync.Mutex
	users int // holding or waiting; guarded by Locks.mu
}

// Lock locks key and returns its unlock.
func (l *Locks) Lock(key string) func() {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*lock{}
	}
	rl := l.locks[key]
	if rl == nil {
		rl = &lock{}
		l.locks[key] = rl
	}
	rl.users++
	l.mu.Unlock()
	rl.Lock()
	return func() {
		rl.Unlock()
		l.mu.Lock()
		if rl.users--; rl.users == 0 {
			delete(l.locks, key)
		}
		l.mu.Unlock()
	}
}

// Held is how many keys have their lock held or awaited.
func (l *Locks) Held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.locks)
}
