package pubsub

import (
	"strings"
	"sync"
	"testing"
)

// TestDelivery checks that every subscriber gets each message in order,
// and that after cancel returns its function is not called again.
func TestDelivery(t *testing.T) {
	var b Bus[int]
	var mu sync.Mutex
	got := map[string][]int{}
	recv := func(name string) func(int) {
		return func(m int) {
			mu.Lock()
			got[name] = append(got[name], m)
			mu.Unlock()
		}
	}
	cancelA := b.Subscribe(recv("a"))
	cancelB := b.Subscribe(recv("b"))
	for i := range 10 {
		b.Publish(i)
	}
	cancelA() // waits for a's queue to drain
	cancelA() // a second cancel is harmless
	b.Publish(10)
	cancelB()
	b.Publish(11)
	mu.Lock()
	defer mu.Unlock()
	if len(got["a"]) != 10 {
		t.Fatalf("a got %v, want 0..9", got["a"])
	}
	if len(got["b"]) != 11 {
		t.Fatalf("b got %v, want 0..10", got["b"])
	}
	for name, ms := range got {
		for i, m := range ms {
			if m != i {
				t.Fatalf("%s got %v, out of order", name, ms)
			}
		}
	}
}

// TestSlowSubscriber checks that a subscriber that does not keep up loses
// messages beyond its queue rather than blocking Publish.
func TestSlowSubscriber(t *testing.T) {
	var b Bus[int]
	release := make(chan struct{})
	started := make(chan struct{})
	var once sync.Once
	var n int
	cancel := b.Subscribe(func(int) {
		once.Do(func() { close(started) })
		<-release
		n++
	})
	b.Publish(0)
	<-started // the first message is taken off the queue and held
	const sent = 3 * queueLen
	for i := range sent {
		b.Publish(i + 1)
	}
	close(release)
	cancel()
	if n != queueLen+1 {
		t.Fatalf("the subscriber got %d messages, want the held one and a full queue (%d)", n, queueLen+1)
	}
}

// TestHandlers checks that a message is made only when there is a
// handler, offered to every handler in the order they were added, and
// taken when one of them takes it; a removed handler is not offered it.
func TestHandlers(t *testing.T) {
	var hs Handlers[string]
	made := 0
	msg := func() string { made++; return "approval" }
	if hs.Offer(msg) || made != 0 {
		t.Fatalf("with no handler: taken, or the message made %d times", made)
	}
	var order []string
	handler := func(name string, take bool) func(string) bool {
		return func(m string) bool {
			order = append(order, name+":"+m)
			return take
		}
	}
	removeA := hs.Add(handler("a", false))
	hs.Add(handler("b", true))
	hs.Add(handler("c", false))
	if !hs.Offer(msg) {
		t.Fatal("b took the message, yet Offer says nobody did")
	}
	if want := "a:approval b:approval c:approval"; strings.Join(order, " ") != want || made != 1 {
		t.Fatalf("offered %q with the message made %d times, want %q once", order, made, want)
	}
	removeA()
	order = nil
	hs.Offer(msg)
	if want := "b:approval c:approval"; strings.Join(order, " ") != want {
		t.Fatalf("after removing a: offered %q, want %q", order, want)
	}
}
