package oauth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// loopback is a sign-in's redirect listener (RFC 8252): 127.0.0.1, on
// the configured port or any free one. It serves two pages, each once: the
// start page the browser is given, which redirects to the authorization
// URL, so that URL (its state and PKCE challenge) never appears on a
// command line another local user can read; and the redirect back, which
// takes only the exact state of this sign-in.
type loopback struct {
	srv       *http.Server
	port      int
	redirect  string // the redirect URI the authorization server is given
	startPath string
	results   chan loopbackResult

	mu             sync.Mutex
	authURL, state string
	started, done  bool
}

type loopbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// listenLoopback starts the listener on port (0: any free one).
func listenLoopback(port int) (*loopback, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listening for the sign-in's redirect on 127.0.0.1:%d: %w", port, err)
	}
	lb := &loopback{port: ln.Addr().(*net.TCPAddr).Port, startPath: "/start/" + rand.Text(), results: make(chan loopbackResult, 1)}
	lb.redirect = fmt.Sprintf("http://127.0.0.1:%d/callback", lb.port)
	lb.srv = &http.Server{Handler: http.HandlerFunc(lb.serve), ReadHeaderTimeout: 10 * time.Second}
	go lb.srv.Serve(ln)
	return lb, nil
}

func (lb *loopback) deliver(r loopbackResult) {
	select {
	case lb.results <- r:
	default:
	}
}

func loopbackPage(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(code)
	fmt.Fprintf(w, "<!doctype html><title>capabilities</title><p>%s</p>", html.EscapeString(msg))
}

func (lb *loopback) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case lb.startPath:
		lb.mu.Lock()
		target, again := lb.authURL, lb.started
		lb.started = true
		lb.mu.Unlock()
		if target == "" {
			http.NotFound(w, r)
			return
		}
		if again {
			// Someone else has the start page too: whoever opened it
			// first may be signing in with their own account.
			loopbackPage(w, http.StatusGone, "This sign-in page was already opened once, so the sign-in was stopped. Start it again from capabilities.")
			lb.deliver(loopbackResult{err: errors.New("the sign-in page was opened more than once (another program may have read its address); the sign-in was stopped, start it again")})
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		http.Redirect(w, r, target, http.StatusFound)
	case "/callback":
		q := r.URL.Query()
		lb.mu.Lock()
		ok := lb.state != "" && !lb.done && subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(lb.state)) == 1
		if ok {
			lb.done = true
		}
		lb.mu.Unlock()
		if !ok {
			loopbackPage(w, http.StatusBadRequest, "This is not the sign-in capabilities is waiting for, or it was already answered. You can close this tab.")
			return
		}
		res := loopbackResult{res: &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}}
		if e := q.Get("error"); e != "" {
			res.err = fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
			loopbackPage(w, http.StatusOK, "Sign-in failed: "+e+". You can close this tab.")
		} else {
			loopbackPage(w, http.StatusOK, "Signed in. You can close this tab and go back.")
		}
		lb.deliver(res)
	default:
		http.NotFound(w, r)
	}
}

// await shows the person the start page (open), which sends them to
// authURL, and waits for the redirect back with state, or for ctx.
func (lb *loopback) await(ctx context.Context, authURL, state string, open func(context.Context, string) error) (*auth.AuthorizationResult, error) {
	if state == "" {
		return nil, errors.New("the authorization URL carries no state")
	}
	lb.mu.Lock()
	lb.authURL, lb.state = authURL, state
	lb.mu.Unlock()
	if err := open(ctx, fmt.Sprintf("http://127.0.0.1:%d%s", lb.port, lb.startPath)); err != nil {
		return nil, fmt.Errorf("opening the sign-in page: %w", err)
	}
	select {
	case r := <-lb.results:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the sign-in in the browser: %w", ctx.Err())
	}
}

// close shuts the listener down, not closed: the page whose request ended
// the sign-in (the redirect back, or a second opening of the start page)
// is answered in full before the listener goes.
func (lb *loopback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if lb.srv.Shutdown(ctx) != nil {
		lb.srv.Close()
	}
}
