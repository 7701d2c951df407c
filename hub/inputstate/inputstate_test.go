package inputstate

import (
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/internal/hubtest"
)

func TestSignVerify(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	now := time.UnixMilli(1_000_000)
	st := State{RunID: "run1", Calls: []Call{{PendingID: "p1", Seq: 3, ArgsHash: "h"}}, Expires: now.Add(time.Minute).UnixMilli(), Nonce: "n", Whole: true}
	s := Sign(key, st)

	got, err := Verify(key, s, now)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != "run1" || len(got.Calls) != 1 || got.Calls[0] != st.Calls[0] || got.Nonce != "n" || !got.Whole {
		t.Fatalf("Verify = %+v, want %+v", got, st)
	}

	body, sig, _ := strings.Cut(s, ".")
	for name, bad := range map[string]struct {
		key   []byte
		state string
		now   time.Time
		want  string
	}{
		"expired":     {key, s, now.Add(2 * time.Minute), "expired"},
		"other key":   {[]byte(strings.Repeat("x", 32)), s, now, "signature does not match"},
		"altered":     {key, body + "A." + sig, now, "malformed"},
		"no dot":      {key, body, now, "malformed"},
		"bad base64":  {key, "!!." + sig, now, "malformed"},
		"swapped sig": {key, body + "." + base64.RawURLEncoding.EncodeToString([]byte("x")), now, "signature does not match"},
	} {
		_, err := Verify(bad.key, bad.state, bad.now)
		if !errors.Is(err, ErrBadState) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: Verify err = %v, want ErrBadState saying %q", name, err, bad.want)
		}
	}
}

func TestLoadKey(t *testing.T) {
	kc := &hubtest.MemKeychain{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	k1 := LoadKey(kc, log)
	if len(k1) != 32 {
		t.Fatalf("key has %d bytes, want 32", len(k1))
	}
	if _, ok := kc.M[KeyName]; !ok {
		t.Fatalf("the key was not stored under %s", KeyName)
	}
	if k2 := LoadKey(kc, log); string(k2) != string(k1) {
		t.Fatal("a second load made a new key instead of reading the stored one")
	}
}
