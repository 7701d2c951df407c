package sandbox

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
)

// The worker protocol: newline-delimited JSON messages over the worker's
// stdin (parent to worker) and stdout (worker to parent).
//
//	parent -> worker  {"t":"prepare","namespaces":[...],"collect":true}
//	                                                     before each run: the namespaces it will likely have,
//	                                                     and whether to collect garbage first
//	worker -> parent  {"t":"ready"}                      once a runtime for them is prepared
//	parent -> worker  {"t":"run","run":{...}}            a Request without its Host
//	worker -> parent  {"t":"call","id":1,"call":{...}}   Host.Call
//	worker -> parent  {"t":"search","id":2,"text":"q"}   Host.Search
//	worker -> parent  {"t":"describe","id":3,"text":"x"} Host.Describe
//	worker -> parent  {"t":"read","id":4,"read":{...}}   Host.Read
//	parent -> worker  {"t":"answer","id":1,"result":...} or "text", or "err"
//	                                                     ("err":{"planned":true} for a Planned)
//	parent -> worker  {"t":"cancel"}                     the caller cancelled the run
//	worker -> parent  {"t":"outcome","outcome":{...}}    the run is over
//
// A worker serves runs one after another until its stdin closes; the
// parent sends a run only to a worker that said it is ready, and asks a
// worker to prepare only when it means to give it another run.
const (
	msgPrepare  = "prepare"
	msgReady    = "ready"
	msgRun      = "run"
	msgCall     = "call"
	msgSearch   = "search"
	msgDescribe = "describe"
	msgRead     = "read"
	msgAnswer   = "answer"
	msgCancel   = "cancel"
	msgOutcome  = "outcome"
)

type message struct {
	T       string          `json:"t"`
	ID      int             `json:"id,omitempty"`
	Run     *Request        `json:"run,omitempty"`
	Call    *Call           `json:"call,omitempty"`
	Read    *Read           `json:"read,omitempty"`
	Text    string          `json:"text,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Err     *wireError      `json:"err,omitempty"`
	Outcome *Outcome        `json:"outcome,omitempty"`

	Namespaces []Namespace `json:"namespaces,omitempty"`
	Collect    bool        `json:"collect,omitempty"`
}

// wireError carries a host error across the process boundary: a ToolError,
// a Suspend without its Detail, a Planned, or the text of any other error.
type wireError struct {
	Tool    *ToolError `json:"tool,omitempty"`
	Suspend *Suspend   `json:"suspend,omitempty"`
	Planned bool       `json:"planned,omitempty"`
	Message string     `json:"message,omitempty"`
}

func toWire(err error) *wireError {
	switch e := err.(type) {
	case *ToolError:
		return &wireError{Tool: e}
	case *Suspend:
		return &wireError{Suspend: &Suspend{Seq: e.Seq, Address: e.Address, Kind: e.Kind}}
	case *Planned:
		return &wireError{Planned: true}
	}
	return &wireError{Message: err.Error()}
}

func (w *wireError) err() error {
	switch {
	case w.Tool != nil:
		return w.Tool
	case w.Suspend != nil:
		return w.Suspend
	case w.Planned:
		return &Planned{}
	}
	return hostError(w.Message)
}

type hostError string

func (e hostError) Error() string { return string(e) }

// conn reads and writes protocol messages. Writes are serialized; reads
// belong to one goroutine.
type conn struct {
	mu  sync.Mutex
	enc *json.Encoder
	dec *json.Decoder
}

func newConn(r io.Reader, w io.Writer) *conn {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &conn{enc: enc, dec: json.NewDecoder(bufio.NewReaderSize(r, 64<<10))}
}

func (c *conn) send(m message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enc.Encode(m)
}

func (c *conn) recv() (message, error) {
	var m message
	err := c.dec.Decode(&m)
	return m, err
}
