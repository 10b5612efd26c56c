package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// largeAnswer is the size from which an answer's text skips the SDK's
// encoder. The SDK passes over a text four times on its way out (it is
// escaped, then each enclosing MarshalJSON's output is compacted again),
// which for status --json at 10,000 tasks (5.8 MB) cost several times
// what making the document did.
var largeAnswer = 64 << 10

// large keeps the texts of large answers out of the SDK: the tool answers
// a placeholder, and the transport, which gets the SDK's encoded answer,
// writes the text, escaped once, in its place.
type large struct {
	mu    sync.Mutex
	texts map[string][]byte // quoted placeholder → quoted, escaped text
	seq   atomic.Uint64
	salt  uint64
	// batches: the client sent a batch (old protocol versions), whose
	// answers the SDK's connection gathers; answers then go through it.
	batches atomic.Bool
}

func newLarge() *large {
	return &large{texts: map[string][]byte{}, salt: rand.Uint64()}
}

// put stands for text in an answer: the placeholder to answer instead.
// The salt makes it impossible to guess, so no task's text can be taken
// for it.
func (l *large) put(text []byte) string {
	p := fmt.Sprintf("burl-answer-%016x-%d", l.salt, l.seq.Add(1))
	l.mu.Lock()
	l.texts[`"`+p+`"`] = quote(text)
	l.mu.Unlock()
	return p
}

// take finds the placeholder of a kept text in an encoded answer, which
// is then before, text, after.
func (l *large) take(answer []byte) (before, text, after []byte, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for p, t := range l.texts {
		if i := bytes.Index(answer, []byte(p)); i >= 0 {
			delete(l.texts, p)
			return answer[:i], t, answer[i+len(p):], true
		}
	}
	return nil, nil, nil, false
}

// quote is text as a JSON string. The texts are JSON documents the verbs
// wrote, valid UTF-8 (put's caller checks), so only quotes, backslashes
// and control characters are escaped.
func quote(text []byte) []byte {
	out := make([]byte, 0, len(text)+len(text)/8+2)
	out = append(out, '"')
	last := 0
	for i, c := range text {
		if c != '"' && c != '\\' && c >= 0x20 {
			continue
		}
		out = append(out, text[last:i]...)
		if c == '"' || c == '\\' {
			out = append(out, '\\', c)
		} else {
			out = fmt.Appendf(out, `\u%04x`, c)
		}
		last = i + 1
	}
	return append(append(out, text[last:]...), '"')
}

// responseHead is how the SDK's connection begins an answer to id.
func responseHead(id jsonrpc.ID) ([]byte, error) {
	raw, err := json.Marshal(id.Raw())
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"jsonrpc":"2.0","id":`), raw...), `,"result":`...), nil
}
