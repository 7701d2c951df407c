package localapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestInflightWaitsForRequests: wait refuses new requests at once and
// returns only after the last request in progress left, so the store is not
// closed under a request that outlived the server's shutdown grace.
func TestInflightWaitsForRequests(t *testing.T) {
	var f inflight
	inside := make(chan struct{})
	release := make(chan struct{})
	h := f.handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/slow" {
			close(inside)
			<-release
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	served := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/slow", nil))
		served <- rec.Code
	}()
	<-inside
	waited := make(chan struct{})
	go func() { f.wait(); close(waited) }()
	// Once closing, a new request is refused; the one inside still runs.
	for {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/status", nil))
		if rec.Code == http.StatusServiceUnavailable {
			break
		}
		if rec.Code != 0 && rec.Code != http.StatusNoContent {
			t.Fatalf("status %d", rec.Code)
		}
	}
	select {
	case <-waited:
		t.Fatal("wait returned while a request was in progress")
	default:
	}
	close(release)
	if code := <-served; code != http.StatusNoContent {
		t.Errorf("the request in progress got %d", code)
	}
	<-waited
}
