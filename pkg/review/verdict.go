// Package review is the reviewer agent as a gate (DESIGN §21): what
// agents.yaml's review: asks for, the review's lease on its task, what
// the reviewer reads (its checkout, the diff, the prompt), the verdict it
// writes to $BURL_REVIEW_FILE (read strictly: whatever does not parse is
// a failed review, never a pass) and the verdict's record on the task,
// for the head it reviewed. Whether a task may land on that record is
// pkg/land's question (land.ReviewGate).
package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
)

// The verdicts. A reviewer writes Approve or RequestChanges; Failed is
// burl's record of a review that gave no verdict, and Overridden of a
// human's approve without the reviewer's.
const (
	Approve        = task.ReviewApprove
	RequestChanges = "request_changes"
	Failed         = "failed"
	Overridden     = "overridden"
)

// Limits of a verdict file: a reviewer that writes more is not reviewing.
const (
	MaxFileBytes = 64 << 10
	MaxComments  = 100
)

// Comment is one of the reviewer's comments on a line of the diff.
type Comment struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Body string `json:"body"`
}

// Verdict is what the reviewer wrote.
type Verdict struct {
	Verdict  string    `json:"verdict"`
	Summary  string    `json:"summary"`
	Comments []Comment `json:"comments"`
}

// Read reads the verdict file at path, which the reviewer's run could
// write: only a regular file, never followed through a symlink, and no
// more than MaxFileBytes of it. paths are the files the reviewed diff
// touches, the only ones a comment may name.
func Read(path string, paths []string) (*Verdict, error) {
	f, err := osx.OpenRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errors.New("the reviewer wrote no verdict file ($BURL_REVIEW_FILE)")
	}
	if err != nil {
		return nil, fmt.Errorf("the verdict file cannot be read: it must be a regular file (%v)", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("the verdict file cannot be read (%v)", err)
	}
	return Parse(data, paths)
}

// Parse reads a verdict strictly: one JSON object with verdict (approve
// or request_changes), a summary and comments, each on a path of the diff
// (paths) at a line number. Anything else is an error saying what is
// wrong, which fails the review.
func Parse(data []byte, paths []string) (*Verdict, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("the verdict file is larger than %d KiB: a verdict is a short JSON object", MaxFileBytes>>10)
	}
	var top map[string]json.RawMessage
	if err := decodeOne(data, &top); err != nil || top == nil {
		return nil, fmt.Errorf("the verdict file is not one JSON object (%s)", jsonWhy(err))
	}
	v := &Verdict{}
	for _, k := range sortedKeys(top) {
		raw := top[k]
		switch k {
		case "verdict":
			if json.Unmarshal(raw, &v.Verdict) != nil || v.Verdict != Approve && v.Verdict != RequestChanges {
				return nil, fmt.Errorf("verdict is %s: it must be \"approve\" or \"request_changes\"", clip(string(raw)))
			}
		case "summary":
			if json.Unmarshal(raw, &v.Summary) != nil {
				return nil, fmt.Errorf("summary is %s: it must be a string", clip(string(raw)))
			}
		case "comments":
			var list []json.RawMessage
			if json.Unmarshal(raw, &list) != nil {
				return nil, fmt.Errorf("comments is %s: it must be a list of {\"path\", \"line\", \"body\"}", clip(string(raw)))
			}
			if len(list) > MaxComments {
				return nil, fmt.Errorf("comments holds %d comments, more than %d", len(list), MaxComments)
			}
			for i, c := range list {
				cm, err := parseComment(c, paths)
				if err != nil {
					return nil, fmt.Errorf("comments[%d]: %v", i, err)
				}
				v.Comments = append(v.Comments, cm)
			}
		default:
			return nil, fmt.Errorf("unknown key %q (known: verdict, summary, comments)", k)
		}
	}
	switch {
	case v.Verdict == "":
		return nil, errors.New("verdict is missing: it must be \"approve\" or \"request_changes\"")
	case strings.TrimSpace(v.Summary) == "":
		return nil, errors.New("summary is missing or empty: say in a sentence what the review found")
	}
	return v, nil
}

func parseComment(raw json.RawMessage, paths []string) (Comment, error) {
	var m map[string]json.RawMessage
	var c Comment
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return c, fmt.Errorf("%s is not an object {\"path\", \"line\", \"body\"}", clip(string(raw)))
	}
	for _, k := range sortedKeys(m) {
		switch k {
		case "path", "body":
		case "line":
			// Into any, so that a number in a string ("12") is not one.
			var x any
			d := json.NewDecoder(bytes.NewReader(m[k]))
			d.UseNumber()
			n, isNum := json.Number(""), false
			if d.Decode(&x) == nil {
				n, isNum = x.(json.Number)
			}
			if !isNum {
				return c, fmt.Errorf("line is %s: it must be a line number", clip(string(m[k])))
			}
			i, err := n.Int64()
			if err != nil || i < 1 || i > math.MaxInt32 {
				return c, fmt.Errorf("line is %s: it must be a line number (1 or more)", n)
			}
			c.Line = int(i)
		default:
			return c, fmt.Errorf("unknown key %q (known: path, line, body)", k)
		}
	}
	if json.Unmarshal(m["path"], &c.Path) != nil || c.Path == "" {
		return c, errors.New("path is missing or not a string")
	}
	if c.Line == 0 {
		return c, errors.New("line is missing")
	}
	if json.Unmarshal(m["body"], &c.Body) != nil || strings.TrimSpace(c.Body) == "" {
		return c, errors.New("body is missing or empty")
	}
	for _, p := range paths {
		if p == c.Path {
			return c, nil
		}
	}
	return c, fmt.Errorf("path %q is not a file of the reviewed diff (%s)", clip(c.Path), listClipped(paths))
}

// decodeOne decodes exactly one JSON value from data.
func decodeOne(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("more after the object")
	}
	return nil
}

func jsonWhy(err error) string {
	if err == nil {
		return "null"
	}
	return err.Error()
}

func sortedKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// clip keeps what the reviewer wrote short in a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func listClipped(paths []string) string {
	if len(paths) == 0 {
		return "it touches no file"
	}
	if len(paths) > 5 {
		return "its files: " + strings.Join(paths[:5], ", ") + fmt.Sprintf(" and %d more", len(paths)-5)
	}
	return "its files: " + strings.Join(paths, ", ")
}

// Describe is a task's recorded review in one line, as show and the
// board print it ("" when it has none): the verdict, who gave it, on
// which head and, when changes were requested, in how many rounds.
func Describe(verdict, reviewer, head string, rounds int) string {
	if verdict == "" {
		return ""
	}
	s := verdict
	if reviewer != "" && verdict != Overridden {
		s += " by " + reviewer
	}
	if verdict == Overridden {
		s += " (approved by hand)"
	}
	if head != "" {
		s += " of " + gitx.Short(head)
	}
	if rounds > 0 {
		s += fmt.Sprintf(", %d round(s) of changes requested", rounds)
	}
	return s
}

// Marker is the board's flag for a verdict: R+ approved, R- changes
// requested, R! the review failed, R~ overridden by a human.
func Marker(verdict string) string {
	switch verdict {
	case Approve:
		return "R+"
	case RequestChanges:
		return "R-"
	case Failed:
		return "R!"
	case Overridden:
		return "R~"
	}
	return ""
}
