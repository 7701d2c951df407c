package sandbox

import (
	"context"
	"encoding/json"

	"github.com/dop251/goja"
)

// Read is one hub.read(handle, options) issued by the guest: a handle the
// host gave out for a large value, and which part of it to read.
//
//	hub.read(h)                          the whole value
//	hub.read(h, { offset, length })      Slice: a slice of its text
//	hub.read(h, { path: "rows.4.name" }) Path: the value at a path of a JSON value
//
// Reads are numbered in the same sequence as tool calls (Seq) and count
// towards Limits.MaxCalls, so a host can journal a read and replay it on a
// resumed run exactly as it replays a call.
type Read struct {
	Seq    int    `json:"seq"`
	Handle string `json:"handle"`
	// Slice is set for { offset, length }: Offset and Length count bytes of
	// the value's UTF-8 text (a string's own text, else its JSON text);
	// Length 0 reads to the end.
	Slice  bool  `json:"slice,omitempty"`
	Offset int64 `json:"offset,omitempty"`
	Length int64 `json:"length,omitempty"`
	// Path holds the object keys and array indexes (as decimal strings) of
	// { path }; none is the whole value.
	Path []string `json:"path,omitempty"`
}

// ReadAddress is the address reads go under in errors and call records.
const ReadAddress = "hub.read"

// jsRead is the bridge's read(handle, options): options is the JSON the
// prelude built from the guest's options ({ slice, offset, length } or
// { path }).
func (r *run) jsRead(c goja.FunctionCall) goja.Value {
	handle, ok1 := argString(c, 0)
	opts, ok2 := argString(c, 1)
	var rd Read
	if !ok1 || !ok2 || handle == "" || json.Unmarshal([]byte(opts), &rd) != nil || rd.Offset < 0 || rd.Length < 0 || rd.Slice && rd.Path != nil {
		panic(r.rt.NewTypeError("hub.read: invalid read"))
	}
	if r.seq >= r.limits.MaxCalls {
		r.fail(newError(CodeMaxCalls, "call %d (%s) is above the limit of %d tool calls per run", r.seq+1, ReadAddress, r.limits.MaxCalls))
		return goja.Undefined()
	}
	r.seq++
	rd.Seq, rd.Handle = r.seq, handle
	host := r.host
	return r.startOp(&pending{what: ReadAddress, seq: rd.Seq, raw: true}, func(ctx context.Context) completion {
		raw, err := host.Read(ctx, rd)
		if err == nil && !json.Valid(raw) {
			err = &ToolError{Code: CodeHostError, Message: "the read returned a value that is not JSON", Address: ReadAddress}
		}
		return completion{raw: raw, err: err}
	})
}
