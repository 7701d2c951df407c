package localapi

// The stdio shim: what `capabilities mcp` runs for a client.
//
// The shim connects to the home's hub (starting one when none runs),
// upgrades the connection to MCP and copies newline-delimited JSON-RPC in
// both directions, one line per message. It reads each message's id and
// method, and nothing more, to do four things a plain pipe cannot:
//
//   - remember the client's initialize request, its
//     notifications/initialized and any server/discover, so that a new hub
//     connection can be brought to the same state without the client
//     noticing (2026-07-28 clients carry their state in each request's
//     _meta, so for them the replay is only the discover probe);
//   - know which client requests still wait for an answer, so that when the
//     hub goes away each of them gets a JSON-RPC error instead of silence;
//   - give requests from the hub (elicitation, sampling, roots) ids of its
//     own, so that a client's late answer to a request of a previous hub
//     connection is dropped rather than delivered to the next hub;
//   - drop a client's notifications/cancelled for a request that was already
//     answered by the shim.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
)

// ShimOptions configure [RunShim].
type ShimOptions struct {
	Paths config.Paths
	// Stdin and Stdout are the client's side. Stdout carries protocol only.
	Stdin  io.Reader
	Stdout io.Writer
	// Logger receives the shim's logs (the app points it at stderr); nil
	// discards them.
	Logger *slog.Logger
	// StartHub starts a hub in the background when none runs. The app passes
	// a func that execs `capabilities hub` detached. Nil: don't start one.
	StartHub func() error
	// StartStopped, when set, reports whether the hub StartHub started
	// last has stopped: that ends the wait early.
	StartStopped func() bool
	// StartOutput, when set, returns what that hub has said about itself
	// so far (its error when it stopped at once: a broken config.json,
	// say), for the error of a hub that never answered.
	StartOutput func() string
	// Profile is the profile the client selected ("" for the whole hub).
	// A profile the hub does not have ends the shim with an error that
	// names those it has, at start and on a reconnect alike.
	Profile string
	// WaitStart is how long to wait for a started hub to answer; 10s when
	// zero. Past it the shim gives up with an error that says so.
	WaitStart time.Duration
}

// shimStoppedCode and shimStoppedMessage are the JSON-RPC error the shim
// answers a client's request with when the hub goes away before answering.
const (
	shimStoppedCode    = -32000
	shimStoppedMessage = "capabilities hub stopped: reconnecting; retry the request"
)

// Reconnect back-off bounds.
const (
	shimBackoffMin = 25 * time.Millisecond
	shimBackoffMax = 2 * time.Second
)

// RunShim serves one MCP client on opts.Stdin and opts.Stdout through the
// hub of opts.Paths until Stdin ends (it then returns nil once every request
// forwarded to the hub has its answer, or the hub goes away) or ctx is done
// (it returns ctx.Err()).
//
// When the hub connection drops, every request of the client that has no
// answer yet is answered with a JSON-RPC error (code -32000, "capabilities
// hub stopped: reconnecting; retry the request"), one line is logged, and
// the shim reconnects with back-off, starting a hub again when StartHub is
// set. Requests the client sends while the shim reconnects get the same
// error at once. After reconnecting, the shim replays the client's
// initialize (its answer is swallowed) and notifications/initialized, or
// for a 2026-07-28 client its server/discover, so the client carries on
// without initializing again.
//
// Goroutines: RunShim reads Stdin on a goroutine of its own and the hub on
// another; both end before RunShim returns, except that a Stdin.Read that
// is blocked when ctx is done keeps its goroutine until it returns (Stdin
// belongs to the caller, who can close it).
func RunShim(ctx context.Context, opts ShimOptions) error {
	if opts.Stdin == nil || opts.Stdout == nil {
		return errors.New("shim: Stdin and Stdout are required")
	}
	if opts.WaitStart <= 0 {
		opts.WaitStart = 10 * time.Second
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	sh := &shim{
		opts:     opts,
		log:      logger,
		client:   newClient(opts.Paths),
		pending:  make(map[string]struct{}),
		hubCalls: make(map[string]hubCall),
		drained:  make(chan struct{}, 1),
		outErr:   make(chan error, 1),
	}
	defer sh.client.Close()

	conn, err := sh.connectFirst(ctx)
	if err != nil {
		return err
	}
	l := sh.startLink(conn)
	sh.publish(l)
	defer func() {
		sh.mu.Lock()
		cur := sh.link
		sh.link = nil
		sh.mu.Unlock()
		if cur != nil {
			cur.conn.Close()
			<-cur.done
		}
	}()

	stdinDone := make(chan error, 1)
	go func() { stdinDone <- sh.readClient() }()

	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-sh.outErr:
			return err
		case err := <-stdinDone:
			if err != nil {
				return fmt.Errorf("shim: reading the client: %w", err)
			}
			return sh.drain(ctx, l)
		case <-l.done:
			sh.dropLink(l, true)
			l, err = sh.reconnect(ctx, stdinDone)
			if err != nil {
				if errors.Is(err, errClientGone) {
					return nil
				}
				return err
			}
		}
	}
}

// errClientGone ends a reconnect because Stdin ended meanwhile.
var errClientGone = errors.New("client closed stdin")

// shim is the state of one RunShim. mu guards the fields below it; writes
// to the client are serialised by outMu.
type shim struct {
	opts   ShimOptions
	log    *slog.Logger
	client *Client

	outMu  sync.Mutex
	outBuf []byte
	outErr chan error // the first failed write to the client

	drained chan struct{} // poked when pending becomes empty

	mu          sync.Mutex
	link        *hubLink            // nil while (re)connecting
	gen         int                 // generation of the newest link
	seq         int                 // counter for ids the shim makes up
	pending     map[string]struct{} // client request ids (raw JSON) sent on link
	hubCalls    map[string]hubCall  // shim id of a hub request -> its origin
	initialize  []byte              // the client's initialize request
	initialized []byte              // the client's notifications/initialized
	discover    []byte              // the client's last server/discover
}

// hubCall is a request the hub sent to the client.
type hubCall struct {
	gen int
	id  json.RawMessage // the hub's own id
}

// hubLink is one upgraded connection to the hub. Its reader goroutine
// closes done when the connection ends.
type hubLink struct {
	conn net.Conn
	gen  int
	wmu  sync.Mutex
	done chan struct{}

	// replayID and replayed catch the answer to a replayed request; set
	// before the link is published, read by its reader goroutine.
	replayMu sync.Mutex
	replayID string
	replayed chan []byte
}

func (l *hubLink) write(line []byte) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_, err := l.conn.Write(line)
	return err
}

// connectFirst connects at start: when no hub runs it starts one (if it
// may) and waits up to WaitStart for it to answer.
func (sh *shim) connectFirst(ctx context.Context) (net.Conn, error) {
	conn, err := sh.client.UpgradeMCPProfile(ctx, sh.opts.Profile)
	if err == nil || !errors.Is(err, ErrNoHub) {
		return conn, err
	}
	if sh.opts.StartHub == nil {
		return nil, fmt.Errorf("shim: %w; start it with `capabilities hub`", err)
	}
	sh.log.Info("starting the capabilities hub", "home", sh.opts.Paths.Home)
	if err := sh.opts.StartHub(); err != nil {
		return nil, fmt.Errorf("shim: starting the hub: %w", err)
	}
	return sh.waitForHub(ctx)
}

// shimStoppedGrace is how long the shim still looks for a hub after the
// one it started stopped: two clients that start hubs at once leave one
// hub, the other stops once it finds the first listening, and a loaded
// machine may take a moment more before that one answers.
const shimStoppedGrace = 3 * time.Second

// waitForHub polls for a just-started hub for up to WaitStart, or until
// shortly after the hub it started stopped.
func (sh *shim) waitForHub(ctx context.Context) (net.Conn, error) {
	deadline := time.Now().Add(sh.opts.WaitStart)
	backoff := shimBackoffMin
	stopped := false
	for {
		conn, err := sh.client.UpgradeMCPProfile(ctx, sh.opts.Profile)
		if err == nil {
			return conn, nil
		}
		if !errors.Is(err, ErrNoHub) {
			return nil, fmt.Errorf("shim: %w", err)
		}
		if !stopped && sh.opts.StartStopped != nil {
			if stopped = sh.opts.StartStopped(); stopped {
				if grace := time.Now().Add(shimStoppedGrace); grace.Before(deadline) {
					deadline = grace
				}
			}
		}
		wait := min(backoff, time.Until(deadline))
		if wait <= 0 {
			var said string
			if sh.opts.StartOutput != nil {
				said = sh.opts.StartOutput()
			}
			switch {
			case stopped && said != "":
				return nil, fmt.Errorf("shim: the hub it started stopped: %s", said)
			case stopped:
				return nil, fmt.Errorf("shim: the hub it started stopped without a word (hint: run `capabilities hub --headless` to see why)")
			case said != "":
				return nil, fmt.Errorf("shim: started a hub, but none answered on %s within %s; it said: %s",
					sh.opts.Paths.Socket(), sh.opts.WaitStart, said)
			}
			return nil, fmt.Errorf("shim: started a hub, but none answered on %s within %s (hint: run `capabilities hub --headless` to see why it does not start)",
				sh.opts.Paths.Socket(), sh.opts.WaitStart)
		}
		if err := sleepCtx(ctx, wait); err != nil {
			return nil, err
		}
		backoff = min(backoff*2, 250*time.Millisecond)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// startLink starts the reader goroutine of a new connection. The link is
// not yet published: client messages do not reach it until publish.
func (sh *shim) startLink(conn net.Conn) *hubLink {
	sh.mu.Lock()
	sh.gen++
	l := &hubLink{conn: conn, gen: sh.gen, done: make(chan struct{})}
	sh.mu.Unlock()
	go func() {
		defer close(l.done)
		err := sh.readHub(l)
		sh.log.Debug("hub connection ended", "error", err)
	}()
	return l
}

func (sh *shim) publish(l *hubLink) {
	sh.mu.Lock()
	sh.link = l
	sh.mu.Unlock()
}

// dropLink handles the end of the published link l (its reader has
// returned): every request still waiting is answered with the
// reconnecting error, and the hub's requests to the client are forgotten.
// It logs one line, saying whether the shim reconnects.
func (sh *shim) dropLink(l *hubLink, reconnecting bool) {
	sh.mu.Lock()
	if sh.link == l {
		sh.link = nil
	}
	ids := make([]string, 0, len(sh.pending))
	for id := range sh.pending {
		ids = append(ids, id)
	}
	clear(sh.pending)
	clear(sh.hubCalls)
	sh.mu.Unlock()
	l.conn.Close()

	msg := "capabilities hub connection lost: reconnecting"
	if !reconnecting {
		msg = "capabilities hub connection lost"
	}
	sh.log.Warn(msg, "socket", sh.opts.Paths.Socket(), "unanswered", len(ids))
	for _, id := range ids {
		sh.writeClient(stoppedError(json.RawMessage(id)))
	}
	sh.poke()
}

// reconnect connects again with back-off, starting a hub when none runs
// and StartHub is set (at most once per WaitStart), replays the client's
// handshake and publishes the new link. It gives up only when ctx is done
// or the client closes Stdin.
func (sh *shim) reconnect(ctx context.Context, stdinDone <-chan error) (*hubLink, error) {
	backoff := shimBackoffMin
	var started time.Time
	for attempt := 1; ; attempt++ {
		conn, err := sh.client.UpgradeMCPProfile(ctx, sh.opts.Profile)
		if err == nil {
			l := sh.startLink(conn)
			if err = sh.replay(ctx, l); err == nil {
				sh.publish(l)
				sh.log.Info("capabilities hub reconnected", "attempts", attempt)
				return l, nil
			}
			conn.Close()
			<-l.done
			sh.log.Debug("replaying the handshake", "error", err)
		} else if unknownProfile(err) {
			// The profile was removed: the client is not served as
			// anything else.
			return nil, fmt.Errorf("shim: %w", err)
		} else if errors.Is(err, ErrNoHub) && sh.opts.StartHub != nil &&
			(started.IsZero() || time.Since(started) > sh.opts.WaitStart) {
			started = time.Now()
			sh.log.Info("starting the capabilities hub", "home", sh.opts.Paths.Home)
			if serr := sh.opts.StartHub(); serr != nil {
				sh.log.Warn("starting the capabilities hub", "error", serr)
			}
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case err := <-stdinDone:
			t.Stop()
			if err != nil {
				return nil, fmt.Errorf("shim: reading the client: %w", err)
			}
			return nil, errClientGone
		case <-t.C:
		}
		backoff = min(backoff*2, shimBackoffMax)
	}
}

// replay brings a new hub session to the client's state: the remembered
// initialize (answer swallowed) and notifications/initialized, or for a
// client that only discovered, the discover probe.
func (sh *shim) replay(ctx context.Context, l *hubLink) error {
	sh.mu.Lock()
	init, inited, disc := sh.initialize, sh.initialized, sh.discover
	sh.seq++
	seq := sh.seq
	sh.mu.Unlock()

	req, what := init, "initialize"
	if req == nil {
		req, what = disc, "server/discover"
	}
	if req != nil {
		id := "shim-init-" + strconv.Itoa(seq)
		if init == nil {
			id = "shim-discover-" + strconv.Itoa(seq)
		}
		line, err := withID(req, json.RawMessage(strconv.Quote(id)))
		if err != nil {
			return err
		}
		got := make(chan []byte, 1)
		l.replayMu.Lock()
		l.replayID, l.replayed = strconv.Quote(id), got
		l.replayMu.Unlock()
		if err := l.write(line); err != nil {
			return err
		}
		t := time.NewTimer(sh.opts.WaitStart)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.done:
			return errors.New("hub closed the connection during the replay")
		case <-t.C:
			return fmt.Errorf("hub did not answer the replayed %s within %s", what, sh.opts.WaitStart)
		case resp := <-got:
			var r struct {
				Error *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(resp, &r) == nil && r.Error != nil {
				// The hub refuses the client's handshake; the client will see
				// the hub's errors on its next requests.
				sh.log.Warn("hub refused the replayed handshake", "error", r.Error.Message)
			}
		}
	}
	if init != nil && inited != nil {
		if err := l.write(inited); err != nil {
			return err
		}
	}
	return nil
}

// drain waits, after Stdin ended, until every request forwarded to the hub
// has its answer, or the hub goes away (the requests left are then answered
// with the reconnecting error), or ctx is done.
func (sh *shim) drain(ctx context.Context, l *hubLink) error {
	for {
		sh.mu.Lock()
		n := len(sh.pending)
		sh.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.done:
			sh.dropLink(l, false)
			return nil
		case err := <-sh.outErr:
			return err
		case <-sh.drained:
		}
	}
}

func (sh *shim) poke() {
	select {
	case sh.drained <- struct{}{}:
	default:
	}
}

// rpcHead is the part of a JSON-RPC message the shim reads.
type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// cancelledID returns the requestId of a notifications/cancelled.
func (h *rpcHead) cancelledID() string {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	json.Unmarshal(h.Params, &p)
	return string(p.RequestID)
}

// parseHead reads the head of a message line; ok is false for a batch or a
// line that is not a JSON object.
func parseHead(line []byte) (h rpcHead, ok bool) {
	if b := bytes.TrimLeft(line, " \t\r"); len(b) == 0 || b[0] != '{' {
		return h, false
	}
	return h, json.Unmarshal(line, &h) == nil
}

func (h *rpcHead) hasID() bool { return len(h.ID) > 0 && string(h.ID) != "null" }

// readClient copies the client's messages to the hub until Stdin ends; it
// returns nil at EOF.
func (sh *shim) readClient() error {
	r := newLineReader(sh.opts.Stdin)
	for {
		line, err := r.next()
		if len(line) > 0 {
			sh.fromClient(line)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// fromClient handles one message of the client. line ends in '\n' and is
// owned by the caller until fromClient returns.
func (sh *shim) fromClient(line []byte) {
	h, ok := parseHead(line)
	if !ok {
		// A batch or something unparsable: the hub answers it as it sees fit.
		sh.forward(line)
		return
	}
	switch {
	case h.Method != "" && h.hasID(): // a request
		sh.mu.Lock()
		switch h.Method {
		case "initialize":
			sh.initialize = bytes.Clone(line)
		case "server/discover":
			sh.discover = bytes.Clone(line)
		}
		l := sh.link
		if l != nil {
			sh.pending[string(h.ID)] = struct{}{}
		}
		sh.mu.Unlock()
		if l == nil {
			sh.writeClient(stoppedError(h.ID))
			return
		}
		// A failed write means the link is going away; its reader ends and
		// dropLink answers this request with the others.
		l.write(line)

	case h.Method != "": // a notification
		sh.mu.Lock()
		switch h.Method {
		case "notifications/initialized":
			sh.initialized = bytes.Clone(line)
		case "notifications/cancelled":
			key := h.cancelledID()
			if _, ok := sh.pending[key]; !ok {
				sh.mu.Unlock()
				return // already answered, by the hub or by the shim
			}
			delete(sh.pending, key)
			defer sh.poke()
		}
		l := sh.link
		sh.mu.Unlock()
		if l != nil {
			l.write(line)
		}

	case h.hasID(): // an answer to a request of the hub
		sh.mu.Lock()
		call, ok := sh.hubCalls[string(h.ID)]
		delete(sh.hubCalls, string(h.ID))
		l := sh.link
		sh.mu.Unlock()
		if !ok || l == nil || call.gen != l.gen {
			sh.log.Debug("dropping an answer to a request of a previous hub connection", "id", string(h.ID))
			return
		}
		out, err := withID(line, call.id)
		if err != nil {
			return
		}
		l.write(out)

	default:
		sh.forward(line)
	}
}

func (sh *shim) forward(line []byte) {
	sh.mu.Lock()
	l := sh.link
	sh.mu.Unlock()
	if l != nil {
		l.write(line)
	}
}

// readHub copies the hub's messages on l to the client until the
// connection ends.
func (sh *shim) readHub(l *hubLink) error {
	r := newLineReader(l.conn)
	for {
		line, err := r.next()
		if len(line) > 0 {
			sh.fromHub(l, line)
		}
		if err != nil {
			return err
		}
	}
}

// fromHub handles one message of the hub on l.
func (sh *shim) fromHub(l *hubLink, line []byte) {
	h, ok := parseHead(line)
	if !ok {
		sh.writeClient(line)
		return
	}
	switch {
	case h.Method == "" && h.hasID(): // an answer to the client, or to a replay
		l.replayMu.Lock()
		replay := l.replayed
		isReplay := replay != nil && string(h.ID) == l.replayID
		if isReplay {
			l.replayed = nil
		}
		l.replayMu.Unlock()
		if isReplay {
			replay <- bytes.Clone(line)
			return
		}
		sh.mu.Lock()
		delete(sh.pending, string(h.ID))
		empty := len(sh.pending) == 0
		sh.mu.Unlock()
		sh.writeClient(line)
		if empty {
			sh.poke()
		}

	case h.Method != "" && h.hasID(): // a request of the hub to the client
		sh.mu.Lock()
		sh.seq++
		id := json.RawMessage(strconv.Quote("hub-" + strconv.Itoa(l.gen) + "-" + strconv.Itoa(sh.seq)))
		sh.hubCalls[string(id)] = hubCall{gen: l.gen, id: bytes.Clone(h.ID)}
		sh.mu.Unlock()
		out, err := withID(line, id)
		if err != nil {
			return
		}
		sh.writeClient(out)

	default:
		sh.writeClient(line)
	}
}

// writeClient writes one message line to Stdout. The first failure is
// reported on outErr and ends RunShim.
func (sh *shim) writeClient(line []byte) {
	sh.outMu.Lock()
	defer sh.outMu.Unlock()
	buf := append(sh.outBuf[:0], line...)
	if buf[len(buf)-1] != '\n' {
		buf = append(buf, '\n')
	}
	sh.outBuf = buf
	if _, err := sh.opts.Stdout.Write(buf); err != nil {
		select {
		case sh.outErr <- fmt.Errorf("shim: writing to the client: %w", err):
		default:
		}
	}
}

// stoppedError is the answer to a request the hub left unanswered.
func stoppedError(id json.RawMessage) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{
		JSONRPC: "2.0",
		ID:      id,
		Error: struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}{shimStoppedCode, shimStoppedMessage},
	})
	return append(b, '\n')
}

// withID returns the message line with its id replaced.
func withID(line []byte, id json.RawMessage) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, err
	}
	m["id"] = id
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// lineReader reads newline-terminated messages of at most
// mcp.DefaultMaxLineLength bytes.
type lineReader struct {
	r *bufio.Reader
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next non-blank line, with its '\n' (the last line of the
// stream may lack it), in a buffer of its own. At the end of the stream it
// returns io.EOF, with the final unterminated line if there was one.
func (lr *lineReader) next() ([]byte, error) {
	for {
		var line []byte
		for {
			frag, err := lr.r.ReadSlice('\n')
			if len(line)+len(frag) > mcp.DefaultMaxLineLength {
				return nil, fmt.Errorf("message longer than %d bytes", mcp.DefaultMaxLineLength)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				line = append(line, frag...)
				continue
			}
			if line == nil {
				line = bytes.Clone(frag)
			} else {
				line = append(line, frag...)
			}
			if err != nil {
				if len(bytes.TrimSpace(line)) == 0 {
					line = nil
				}
				return line, err
			}
			break
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

// unknownProfile reports whether err is the hub's refusal of the profile
// the shim asked for.
func unknownProfile(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}
