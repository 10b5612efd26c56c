package task

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// sameNode compares every field of the tree burl reads.
func sameNode(a, b *yaml.Node, path string) error {
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value ||
		a.Anchor != b.Anchor || a.Line != b.Line || a.Column != b.Column || a.LineComment != b.LineComment || len(a.Content) != len(b.Content) {
		return fmt.Errorf("%s: fast {kind %v style %v tag %s value %q line %d col %d comment %q len %d}, yaml.v3 {kind %v style %v tag %s value %q line %d col %d comment %q len %d}",
			path, a.Kind, a.Style, a.Tag, a.Value, a.Line, a.Column, a.LineComment, len(a.Content),
			b.Kind, b.Style, b.Tag, b.Value, b.Line, b.Column, b.LineComment, len(b.Content))
	}
	for i := range a.Content {
		if err := sameNode(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}

func frontLines(s string) [][]byte {
	var out [][]byte
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			out = append(out, []byte(l))
		}
	}
	return out
}

// checkFast fails when the fast reader accepts lines and its tree differs
// from yaml.v3's; it reports whether the fast reader took them.
func checkFast(t *testing.T, lines [][]byte) bool {
	t.Helper()
	fast := fastRoot(lines)
	if fast == nil {
		return false
	}
	slow, err := slowRoot(lines)
	if err != nil {
		t.Fatalf("fast reader took what yaml.v3 refuses (%v):\n%s", err, bytes.Join(lines, nil))
	}
	if err := sameNode(fast, slow, "root"); err != nil {
		t.Fatalf("%v\nin:\n%s", err, bytes.Join(lines, nil))
	}
	return true
}

func TestFastRootMatchesYAML(t *testing.T) {
	taken := []string{
		"id: TASK-001\ntitle: T 2\npriority: medium\ncreated: 2026-11-22T02:59:47Z\n",
		"\n# Ownership\nassigned_to: unknown@vm\nqa_attempts: 0\n",
		"started_at: 2026-11-22T03:04:34.123Z\nsubmitted_at: null\n",
		"worktree: .worktrees/task-002-t-2\nbranch: task-002-t-2\nbase_sha: f4fd46068cfc532b5d099259404003f33cba3fc4\n",
		"affects: []\naffects_globs: [src/a.go, 'b c', \"d\"]\nmust_not_touch: [x]\n",
		"affects:\n  - src/parser/p1.go\n  - src/x/\n\n# Dependency control\ndepends_on: []\n",
		"tags:\n- a\n- 'b: c'\n- 7\n- 2024-01-01T00:00:00Z\n",
		"title: Don't stop \"me\" now (50% off) & more!\n",
		"title: 'Fix: the \"thing\"'\n",
		"title: \"it's: fine\"\n",
		"title: Café crème — ünïcode ✓\n",
		"title:    spaced out\n",
		"_x: /abs/path\nn1: -\n",
		"verify: make test\nqa_attempts: 12\nv: [1, 2]\n",
		"id: TASK-001\nid: TASK-002\n",
	}
	for _, s := range taken {
		if !checkFast(t, frontLines(s)) && !strings.Contains(s, "n1: -") {
			t.Errorf("fast reader refused burl's own layout:\n%s", s)
		}
	}
	// Each of these means something the fast reader does not model: it
	// must leave them to yaml.v3 (which may also refuse them).
	left := []string{
		"title: Fix issue #12\n", "title: a: b\n", "title: x # why\n", "created: 2024-01-01\n",
		"created: 2024-13-01T00:00:00Z\n", "n: 1.5\n", "n: 012\n", "n: 0x1F\n", "flag: true\n",
		"flag: yes\n", "v: Null\n", "v: ~\n", "v: .inf\n", "v:\nnext: 1\n", "v: *alias\n", "v: &a x\n",
		"v: !!str x\n", "v: |\n  text\n", "v: >\n  text\n", "v: \"esc\\n\"\n", "v: 'it''s'\n",
		"  indented: 1\n", "v: [a, [b]]\n", "v: [a,]\n", "v: {a: b}\n", "v: x\r\n", "v: x\ty\n",
		"v: -x\n", "v: trailing \n", "yes: 1\n", "1: x\n", "v:x\n", "v: [ ]\n",
		"list:\n  - a\n   - b\n", "list:\n  - a\n  -\n", "v: \u2028\n", "v: \xff\n", "# only a comment\n",
	}
	for _, s := range left {
		if fastRoot(frontLines(s)) != nil {
			t.Errorf("fast reader took what it should leave to yaml.v3:\n%q", s)
		}
	}
}

// Every task file in the repository's own fixtures reads the same both ways.
func TestFastRootOnFixtures(t *testing.T) {
	for _, s := range []string{richFile, qaFile} {
		tk, err := Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		checkFast(t, tk.lines)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if tk, err := Parse(fuzzCorpusBytes(t, data)); err == nil {
			checkFast(t, tk.lines)
		}
	}
}

// fuzzCorpusBytes is the input a `go test fuzz v1` corpus file holds.
func fuzzCorpusBytes(t *testing.T, file []byte) []byte {
	t.Helper()
	lit := strings.TrimSpace(strings.TrimPrefix(string(file), "go test fuzz v1\n"))
	lit = strings.TrimSuffix(strings.TrimPrefix(lit, "[]byte("), ")")
	s, err := strconv.Unquote(lit)
	if err != nil {
		t.Fatalf("corpus file: %v", err)
	}
	return []byte(s)
}

// FuzzFastRoot: whatever the fast reader accepts, yaml.v3 reads into the
// same tree.
func FuzzFastRoot(f *testing.F) {
	for _, s := range []string{
		"id: TASK-001\ntitle: T 2\ncreated: 2026-11-22T02:59:47Z\naffects: [a, b]\ntags:\n  - x\n",
		"title: 'q'\nb: \"d\"\nn: 0\nv: null\n# c\n\nz: .w/x\n",
		"title: Café #1\nk: [a,b]\nl:\n- 1\n- x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFast(t, frontLines(string(data)))
	})
}
