package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one message from the client, as the SDK's own stdio
// transport does.
const maxLine = sdk.DefaultMaxLineLength

// Stdio is the transport of `git burl mcp`: the SDK's newline-delimited
// JSON on in and out, made to survive what a client may send or do.
//   - A line that is not JSON-RPC gets an error answer (parse error, or
//     invalid request) and is skipped; the SDK's own reader would end the
//     session at it.
//   - When in ends, the calls already read are answered before the server
//     stops: a client may write its requests and close its end.
//   - Large answers are written by the transport itself (large.go).
func Stdio(in io.Reader, out io.Writer) sdk.Transport {
	w := &lockedWriter{w: out}
	l := newLarge()
	return &stdio{
		inner: &sdk.IOTransport{Reader: io.NopCloser(&lines{r: bufio.NewReader(in), out: w, large: l}), Writer: w},
		out:   w,
		large: l,
	}
}

type stdio struct {
	inner *sdk.IOTransport
	out   *lockedWriter
	large *large
}

func (t *stdio) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	d := &draining{Connection: c, pending: map[jsonrpc.ID]bool{}, out: t.out, large: t.large}
	d.cond = sync.NewCond(&d.mu)
	return d, nil
}

// lockedWriter writes one message at a time: the SDK writes each in one
// call, and lines answers bad lines in between.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// writeParts writes one message made of parts.
func (l *lockedWriter) writeParts(parts ...[]byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range parts {
		if _, err := l.w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

func (l *lockedWriter) Close() error { return nil }

// lines passes on the client's lines that are JSON-RPC messages and
// answers the others.
type lines struct {
	r     *bufio.Reader
	out   io.Writer
	large *large
	line  []byte // what is left of the line being passed on
}

func (l *lines) Read(p []byte) (int, error) {
	for len(l.line) == 0 {
		line, err := l.next()
		if len(line) > 0 {
			l.line = line
			break
		}
		if err != nil {
			return 0, err
		}
	}
	n := copy(p, l.line)
	l.line = l.line[n:]
	return n, nil
}

// next is the next good line (with its newline), or nil after answering
// a bad one.
func (l *lines) next() ([]byte, error) {
	var line []byte
	var err error
	tooLong := false
	for {
		var part []byte
		part, err = l.r.ReadSlice('\n')
		if !tooLong {
			line = append(line, part...)
			if len(line) > maxLine {
				tooLong, line = true, nil
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
	}
	if tooLong {
		l.answer(jsonrpc.CodeParseError, fmt.Sprintf("parse error: a message longer than %d bytes", maxLine), nil)
		return nil, err
	}
	msg := bytes.TrimSpace(line)
	if len(msg) == 0 {
		return nil, err
	}
	if !json.Valid(msg) {
		l.answer(jsonrpc.CodeParseError, "parse error: the line is not JSON", nil)
		return nil, err
	}
	if msg[0] == '[' {
		l.large.batches.Store(true)
	} else {
		// A batch (old protocol versions) is checked by the SDK.
		if _, derr := jsonrpc.DecodeMessage(msg); derr != nil {
			var head struct {
				ID any `json:"id"`
			}
			_ = json.Unmarshal(msg, &head)
			l.answer(jsonrpc.CodeInvalidRequest, "invalid request: "+derr.Error(), head.ID)
			return nil, err
		}
	}
	return append(msg, '\n'), err
}

// answer writes a JSON-RPC error response for a line the SDK never sees.
func (l *lines) answer(code int64, msg string, id any) {
	if _, ok := id.(string); !ok {
		if _, ok := id.(float64); !ok {
			id = nil
		}
	}
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	_, _ = l.out.Write(append(data, '\n'))
}

// draining holds back the end of the client's input until every call read
// before it is answered, unless an answer waits on the client itself (a
// request of the server's own, which can no longer be answered).
type draining struct {
	sdk.Connection
	mu       sync.Mutex
	cond     *sync.Cond
	pending  map[jsonrpc.ID]bool // calls read and not yet answered
	outgoing int                 // the server's own calls not yet answered
	ended    bool                // the client's input ended
	closed   bool                // the server closed the connection
	out      *lockedWriter
	large    *large
}

func (d *draining) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := d.Connection.Read(ctx)
	d.mu.Lock()
	defer d.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			d.pending[m.ID] = true
		}
	case *jsonrpc.Response:
		d.outgoing--
	}
	if errors.Is(err, io.EOF) {
		d.ended = true
		for len(d.pending) > 0 && d.outgoing <= 0 && !d.closed {
			d.cond.Wait()
		}
	}
	return msg, err
}

func (d *draining) Write(ctx context.Context, msg jsonrpc.Message) error {
	d.mu.Lock()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		delete(d.pending, m.ID)
	case *jsonrpc.Request:
		if m.IsCall() {
			if d.ended {
				d.mu.Unlock()
				return errors.New("the client closed its input: it cannot answer")
			}
			d.outgoing++
		}
	}
	d.cond.Broadcast()
	d.mu.Unlock()
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil && len(r.Result) > 0 {
		if before, text, after, ok := d.large.take(r.Result); ok {
			if d.large.batches.Load() {
				// The SDK's connection gathers a batch's answers.
				r.Result = slices.Concat(before, text, after)
				return d.Connection.Write(ctx, msg)
			}
			// Written here, in pieces: the SDK's connection would
			// compact the whole answer once more.
			head, err := responseHead(r.ID)
			if err != nil {
				return err
			}
			return d.out.writeParts(head, before, text, after, []byte("}\n"))
		}
	}
	return d.Connection.Write(ctx, msg)
}

// Close ends the wait for answers: once the server closes the connection
// it writes none.
func (d *draining) Close() error {
	d.mu.Lock()
	d.closed = true
	d.cond.Broadcast()
	d.mu.Unlock()
	return d.Connection.Close()
}
