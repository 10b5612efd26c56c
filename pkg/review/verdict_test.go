package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var diffPaths = []string{"src/a.go", "README.md"}

func TestParseAVerdict(t *testing.T) {
	v, err := Parse([]byte(`{"verdict": "request_changes", "summary": "one bug",
		"comments": [{"path": "src/a.go", "line": 12, "body": "off by one"}]}`), diffPaths)
	if err != nil {
		t.Fatal(err)
	}
	if v.Verdict != RequestChanges || v.Summary != "one bug" || len(v.Comments) != 1 || v.Comments[0] != (Comment{"src/a.go", 12, "off by one"}) {
		t.Errorf("got %+v", v)
	}
	if v, err := Parse([]byte(`{"verdict":"approve","summary":"fine"}`), nil); err != nil || v.Verdict != Approve || v.Comments != nil {
		t.Errorf("approve without comments: %+v, %v", v, err)
	}
}

// Whatever is not a verdict fails the review with what is wrong: never a
// pass.
func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{``, "not one JSON object"},
		{`approve`, "not one JSON object"},
		{`null`, "not one JSON object"},
		{`[1]`, "not one JSON object"},
		{`{"verdict":"approve","summary":"ok"} {"verdict":"approve"}`, "not one JSON object (more after the object)"},
		{`{"verdict":"lgtm","summary":"ok"}`, `verdict is "lgtm": it must be "approve" or "request_changes"`},
		{`{"verdict":"APPROVE","summary":"ok"}`, `verdict is "APPROVE"`},
		{`{"verdict":true,"summary":"ok"}`, `verdict is true`},
		{`{"summary":"ok"}`, "verdict is missing"},
		{`{"verdict":"approve"}`, "summary is missing or empty"},
		{`{"verdict":"approve","summary":" "}`, "summary is missing or empty"},
		{`{"verdict":"approve","summary":"ok","score":9}`, `unknown key "score"`},
		{`{"verdict":"approve","summary":"ok","comments":{}}`, "comments is {}: it must be a list"},
		{`{"verdict":"approve","summary":"ok","comments":["x"]}`, `comments[0]: "x" is not an object`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"path":"/etc/passwd","line":1,"body":"b"}]}`, `comments[0]: path "/etc/passwd" is not a file of the reviewed diff (its files: src/a.go, README.md)`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"path":"src/../src/a.go","line":1,"body":"b"}]}`, `path "src/../src/a.go" is not a file of the reviewed diff`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"path":"src/a.go","line":"12","body":"b"}]}`, `comments[0]: line is "12": it must be a line number`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"path":"src/a.go","line":1.5,"body":"b"}]}`, `line is 1.5: it must be a line number (1 or more)`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"path":"src/a.go","line":0,"body":"b"}]}`, `line is 0`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"path":"src/a.go","line":-3,"body":"b"}]}`, `line is -3`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"path":"src/a.go","line":1e30,"body":"b"}]}`, `line is 1e30`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"path":"src/a.go","body":"b"}]}`, `comments[0]: line is missing`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"path":"src/a.go","line":2}]}`, `comments[0]: body is missing or empty`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"line":2,"body":"b"}]}`, `comments[0]: path is missing`},
		{`{"verdict":"request_changes","summary":"s","comments":[{"path":"src/a.go","line":2,"body":"b","severity":"high"}]}`, `comments[0]: unknown key "severity"`},
		{`{"verdict":"approve","summary":"` + strings.Repeat("x", MaxFileBytes) + `"}`, "larger than 64 KiB"},
		{`{"verdict":"approve","summary":"s","comments":[` + strings.Repeat(`{"path":"README.md","line":1,"body":"b"},`, MaxComments) + `{"path":"README.md","line":1,"body":"b"}]}`, "more than 100"},
	} {
		v, err := Parse([]byte(c.doc), diffPaths)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.80q: got %+v, %v; want an error with %q", c.doc, v, err, c.want)
		}
	}
}

// The file the reviewer's run wrote is read as a regular file only, and
// no more of it than the cap.
func TestReadRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(filepath.Join(dir, "none.json"), nil); err == nil || !strings.Contains(err.Error(), "wrote no verdict file") {
		t.Errorf("missing: %v", err)
	}
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte(`{"verdict":"approve","summary":"ok"}`), 0o644)
	link := filepath.Join(dir, "link.json")
	os.Symlink(secret, link)
	if _, err := Read(link, nil); err == nil || !strings.Contains(err.Error(), "must be a regular file") {
		t.Errorf("symlink: %v", err)
	}
	if _, err := Read(dir, nil); err == nil {
		t.Errorf("a directory was read as a verdict")
	}
	huge := filepath.Join(dir, "huge.json")
	os.WriteFile(huge, []byte(strings.Repeat(" ", 10<<20)+`{"verdict":"approve","summary":"ok"}`), 0o644)
	if _, err := Read(huge, nil); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("huge: %v", err)
	}
	if v, err := Read(secret, nil); err != nil || v.Verdict != Approve {
		t.Errorf("a good file: %+v %v", v, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"verdict":"approve","summary":"ok"}`))
	f.Add([]byte(`{"verdict":"request_changes","summary":"s","comments":[{"path":"src/a.go","line":3,"body":"b"}]}`))
	f.Add([]byte(`{"verdict":"request_changes","summary":"s","comments":[{"path":"x","line":"3","body":"b"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data, diffPaths)
		if err != nil {
			return
		}
		// What passes is a verdict, with a summary, whose comments name
		// the diff's files at real line numbers.
		if v.Verdict != Approve && v.Verdict != RequestChanges || strings.TrimSpace(v.Summary) == "" {
			t.Fatalf("accepted %q as %+v", data, v)
		}
		for _, c := range v.Comments {
			if c.Line < 1 || c.Path != diffPaths[0] && c.Path != diffPaths[1] || strings.TrimSpace(c.Body) == "" {
				t.Fatalf("accepted comment %+v of %q", c, data)
			}
		}
	})
}
