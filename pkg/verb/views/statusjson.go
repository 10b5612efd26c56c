package views

// status --json, streamed: the task objects are spliced from the status
// cache's JSON rather than decoded and encoded again.

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strconv"

	"github.com/burl-dev/burl/pkg/next"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// StreamJSON writes the document encoding/json would make of the struct
// tags plus "tasks", streamed: over thousands of tasks, building it in
// memory and re-validating it would cost more than the rest of status.
func (o *statusOut) StreamJSON(w *bufio.Writer) {
	enc := func(v any) []byte { j, _ := json.Marshal(v); return j }
	w.WriteString(`"counts":`)
	w.Write(enc(o.Counts))
	w.WriteString(`,"cancelled":`)
	w.WriteString(strconv.Itoa(o.Cancelled))
	w.WriteString(`,"tasks":[`)
	var b []byte
	for n, i := range o.order {
		if n > 0 {
			w.WriteByte(',')
		}
		b = o.taskJSON(b[:0], &o.all[i])
		w.Write(b)
	}
	w.WriteString(`],"locks":`)
	w.Write(enc(o.Locks))
	w.WriteString(`,"malformed":`)
	w.Write(enc(o.Malformed))
	w.WriteString(`,"duplicates":`)
	w.Write(enc(o.Duplicates))
	if o.Remote != nil {
		w.WriteString(`,"remote":`)
		w.Write(enc(o.Remote))
	}
	w.WriteString(`,"done_not_on_remote_main":`)
	w.Write(enc(o.NotOnRemoteMain))
	// What the runs of every task read cost, listed or not.
	for i := range o.all {
		if e := &o.all[i]; e.Err == nil && e.HasUsage {
			o.Usage.add(o.fields(e))
		}
	}
	w.WriteString(`,"usage":`)
	w.Write(enc(o.Usage))
	w.WriteString(`,"untrusted":`)
	w.Write(enc(o.Untrusted))
	o.cockpit.streamJSON(w)
}

// taskJSON appends a task object: the frontmatter (kept as JSON in the
// status cache) plus the keys status adds, spliced rather than decoded and
// re-encoded.
func (o *statusOut) taskJSON(b []byte, s *workflow.Summary) []byte {
	var f next.Facts
	st := next.DoneStep(s.Resolution == task.ResolutionCancelled)
	if s.Bucket != workflow.Done || o.dup[s.ID] {
		// Most of a long history is DONE, which nothing happens to.
		f = o.next.Facts(s)
		st = next.For(f)
	}
	_, locked := o.locked[s.ID]
	if fields := o.fields(s); len(fields) > 2 {
		b = append(append(b, fields[:len(fields)-1]...), ',')
	} else {
		b = append(b, '{')
	}
	b = append(b, `"bucket":`...)
	b = appendJSONString(b, string(s.Bucket))
	b = append(b, `,"path":`...)
	dir, name := filepath.Split(s.Path)
	if rel, ok := o.relDir[dir]; ok {
		b = appendJSONString2(b, rel, name)
	} else {
		b = appendJSONString(b, o.rel(s.Path))
	}
	b = append(b, `,"suggest":`...)
	b = appendJSONString(b, st.Command)
	b = strconv.AppendBool(append(b, `,"locked":`...), locked)
	if st.State != "" {
		b = append(b, `,"state":`...)
		b = appendJSONString(b, string(st.State))
	}
	if f.Stalled > 0 {
		b = append(b, `,"stalled":true`...)
	}
	if f.Holder.Gone() {
		b = append(b, `,"lost":true`...)
	}
	if len(f.Unmet) > 0 {
		b = append(b, `,"waiting_for":[`...)
		for i, d := range f.Unmet {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, d)
		}
		b = append(b, ']')
	}
	if st.Wait != "" {
		b = append(b, `,"waits":`...)
		b = appendJSONString(b, st.Wait)
	}
	if st.Why != "" {
		b = append(b, `,"why":`...)
		b = appendJSONString(b, st.Why)
	}
	if cs := o.conflicts[s.ID]; len(cs) > 0 {
		b = append(b, `,"conflicts":`...)
		j, _ := json.Marshal(cs)
		b = append(b, j...)
	}
	if s.Bucket == workflow.QA {
		b = o.cockpit.placeJSON(b, s.ID)
	}
	return append(b, '}')
}

// appendJSONString quotes s as encoding/json does; plain ASCII, by far the
// common case for paths and commands, is copied as is.
func appendJSONString(b []byte, s string) []byte {
	if !plainJSON(s) {
		j, _ := json.Marshal(s)
		return append(b, j...)
	}
	return append(append(append(b, '"'), s...), '"')
}

// appendJSONString2 is appendJSONString of s+t, without making that string.
func appendJSONString2(b []byte, s, t string) []byte {
	if !plainJSON(s) || !plainJSON(t) {
		return appendJSONString(b, s+t)
	}
	return append(append(append(append(b, '"'), s...), t...), '"')
}

// plainJSON reports whether s needs no escaping in a JSON string.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
