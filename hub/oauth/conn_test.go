package oauth

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/internal/hubtest"
)

// A refresh that fails because the authorization server is unreachable,
// hangs past the token timeout or fails on its side keeps the sign-in
// (a laptop that wakes up offline must not lose it), and the next refresh
// works; one the server refuses (invalid_grant) means signing in again.
func TestRefreshFailures(t *testing.T) {
	kc := hubtest.OAuthKeychain(t)
	defer func(d time.Duration) { tokenTimeout = d }(tokenTimeout)
	tokenTimeout = 300 * time.Millisecond // the limit this test needs

	mode := make(chan string, 1)
	release := make(chan struct{})
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		m := "unasked"
		select {
		case m = <-mode:
		default: // a request the test did not expect is answered, not held
		}
		switch m {
		case "unasked":
			w.WriteHeader(http.StatusTeapot)
			fmt.Fprint(w, `{"error":"unexpected_request"}`)
		case "hang":
			<-release
		case "5xx":
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, `{"error":"temporarily_unavailable"}`)
		case "refuse":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_grant","error_description":"revoked"}`)
		default:
			fmt.Fprintf(w, `{"access_token":"at-%s","refresh_token":"rt-2","token_type":"Bearer","expires_in":3600}`, m)
		}
	}))
	defer as.Close()
	defer close(release) // before Close, which waits for the handler that hangs
	expired := func() {
		t.Helper()
		if err := SaveRecord(kc, "api", "default", &Record{AccessToken: "at-1", RefreshToken: "rt-1", TokenType: "Bearer",
			Expiry: time.Now().Add(-time.Minute), ClientID: "c", AuthStyle: 1, TokenURL: as.URL + "/token", AuthURL: as.URL + "/authorize"}); err != nil {
			t.Fatal(err)
		}
	}
	token := func() (string, error) {
		c, err := NewConn("api", "default", kc, &http.Client{}, func([]string) {})
		if err != nil {
			return "", err
		}
		tok, err := c.Token()
		if err != nil {
			return "", err
		}
		return tok.AccessToken, nil
	}
	kept := func(what string) {
		t.Helper()
		rec, err := LoadRecord(kc, "api", "default")
		if err != nil || rec == nil || rec.NeedsSignIn || rec.RefreshToken != "rt-1" {
			t.Errorf("after %s the sign-in is %+v (%v), want it kept with its refresh token", what, rec, err)
		}
	}

	expired()
	for _, m := range []string{"hang", "5xx"} {
		mode <- m
		if _, err := token(); err == nil || errors.Is(err, ErrNeedsSignIn) || !strings.Contains(err.Error(), "the sign-in is kept") {
			t.Errorf("a refresh the server %s: %v, want a failure that keeps the sign-in", map[string]string{"hang": "did not answer in time", "5xx": "failed on its side"}[m], err)
		}
		kept(m)
	}
	as.CloseClientConnections()
	mode <- "2"
	if tok, err := token(); err != nil || tok != "at-2" {
		t.Fatalf("the refresh after the server came back: %q, %v", tok, err)
	}

	expired()
	mode <- "refuse"
	if _, err := token(); !errors.Is(err, ErrNeedsSignIn) || !strings.Contains(err.Error(), "invalid_grant (revoked)") {
		t.Errorf("a refused refresh: %v, want a sign-in needed", err)
	}
	if rec, _ := LoadRecord(kc, "api", "default"); rec == nil || !rec.NeedsSignIn {
		t.Errorf("after a refused refresh the sign-in is %+v, want it to need a sign-in", rec)
	}
}
