package task

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/usage"
)

// richFile exercises everything a rewrite must keep: unknown keys, comments
// (own-line and inline), flow and block lists, a block scalar, a comment
// right after the last key, and a body with markdown comments and "---"
// lines (a horizontal rule, and a would-be second frontmatter).
const richFile = `---
id: TASK-007
title: Implement player jump
priority: high # agreed in standup
created: 2026-01-13T10:00:00Z

# Ownership/attempts
assigned_to: null
qa_attempts: 0
x_custom: {nested: [1, 2], keep: "me"}   # unknown to burl

# Git/worktree state (populated on claim)
worktree: null
branch: null
base_sha: null   # REQUIRED for diff-based validation (set on claim)

# Scope control
affects:
  - src/player/jump.rs
  - src/player/mod.rs
affects_globs: [src/player/**, assets/jump/*]   # flow list
must_not_touch:
  - src/enemy/**

depends_on: []
notes: |
  line one
  line two
tags: [feature, player]
# trailing comment
---

## Objective
Make the player jump.

<!-- reviewer: keep this comment -->
---
id: not-frontmatter
---

## QA Report
<!-- Validator fills (tool can append) -->

## Context
Links.
`

func mustParse(t *testing.T, s string) *Task {
	t.Helper()
	tk, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, s)
	}
	return tk
}

func split(s string) []string { return strings.SplitAfter(s, "\n") }

// changedLines returns the lines of after that are not in before, as a
// multiset diff on whole lines (with their endings).
func changedLines(before, after string) (removed, added []string) {
	count := map[string]int{}
	for _, l := range split(before) {
		count[l]++
	}
	for _, l := range split(after) {
		if count[l] > 0 {
			count[l]--
		} else {
			added = append(added, l)
		}
	}
	for _, l := range split(before) {
		if count[l] > 0 {
			removed = append(removed, l)
			count[l]--
		}
	}
	return removed, added
}

func bodyOf(file string) string {
	// The body starts after the second "---" line of the file.
	i := strings.Index(file, "\n---")
	return file[i+len("\n---"):]
}

func TestParseBytesRoundTrip(t *testing.T) {
	for _, s := range []string{richFile, strings.ReplaceAll(richFile, "\n", "\r\n"), "---\nid: TASK-001\ntitle: t\n---"} {
		tk := mustParse(t, s)
		if got := string(tk.Bytes()); got != s {
			t.Errorf("Bytes() changed an untouched file:\n got %q\nwant %q", got, s)
		}
	}
}

// Editors leave trailing blanks on the marker lines; YAML reads "--- " as
// a marker too, so it must close the frontmatter rather than be swallowed.
func TestMarkerWithTrailingBlanks(t *testing.T) {
	in := "--- \nid: TASK-001\ntitle: t\n---  \t\nbody\n---\nmore\n"
	tk := mustParse(t, in)
	if tk.Body() != "body\n---\nmore\n" {
		t.Errorf("body = %q", tk.Body())
	}
	tk.SetStr(KeyBranch, "task-001-t")
	if back := mustParse(t, string(tk.Bytes())); back.Branch() != "task-001-t" || back.Body() != "body\n---\nmore\n" {
		t.Errorf("after SetStr:\n%s", tk.Bytes())
	}
}

func TestAccessors(t *testing.T) {
	tk := mustParse(t, richFile)
	if tk.ID() != "TASK-007" || tk.Title() != "Implement player jump" || tk.Priority() != "high" {
		t.Errorf("id/title/priority = %q %q %q", tk.ID(), tk.Title(), tk.Priority())
	}
	if got := tk.List(KeyAffectsGlobs); strings.Join(got, ",") != "src/player/**,assets/jump/*" {
		t.Errorf("affects_globs = %q", got)
	}
	if tk.Str(KeyBaseSHA) != "" || tk.Branch() != "" {
		t.Errorf("null values must read as empty, got base_sha %q branch %q", tk.Str(KeyBaseSHA), tk.Branch())
	}
	if got := tk.List(KeyDependsOn); got == nil || len(got) != 0 {
		t.Errorf("depends_on: [] = %#v, want empty non-nil", got)
	}
	if tk.List("missing") != nil || tk.Str("missing") != "" || tk.Has("missing") {
		t.Error("a missing key must read as absent")
	}
	if tk.Str("notes") != "line one\nline two\n" {
		t.Errorf("block scalar = %q", tk.Str("notes"))
	}
	noPrio := mustParse(t, "---\nid: TASK-001\ntitle: t\n---\n")
	if noPrio.Priority() != "medium" {
		t.Errorf("default priority = %q, want medium", noPrio.Priority())
	}
}

func TestSetKeepsUntouchedLines(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n"} {
		name := map[string]string{"\n": "LF", "\r\n": "CRLF"}[nl]
		t.Run(name, func(t *testing.T) {
			in := strings.ReplaceAll(richFile, "\n", nl)
			tk := mustParse(t, in)
			ts := time.Date(2026, 2, 3, 4, 5, 6, 0, time.FixedZone("x", 3600))
			tk.SetStr(KeyAssignedTo, "worker@host")
			tk.SetTime(KeyStartedAt, ts) // missing key: appended
			tk.SetList(KeyAffects, []string{"src/a.go", "src/b dir/c.go"})
			tk.SetList(KeyAffectsGlobs, []string{"src/**"})
			tk.SetInt(KeyQAAttempts, 2)
			tk.SetStr(KeyBaseSHA, "abc123")
			tk.SetNull(KeyPriority)
			out := string(tk.Bytes())

			removed, added := changedLines(in, out)
			wantRemoved := []string{
				"priority: high # agreed in standup" + nl,
				"assigned_to: null" + nl,
				"qa_attempts: 0" + nl,
				"base_sha: null   # REQUIRED for diff-based validation (set on claim)" + nl,
				"  - src/player/jump.rs" + nl,
				"  - src/player/mod.rs" + nl,
				"affects_globs: [src/player/**, assets/jump/*]   # flow list" + nl,
			}
			if strings.Join(removed, "") != strings.Join(wantRemoved, "") {
				t.Errorf("removed lines:\n%q\nwant\n%q", removed, wantRemoved)
			}
			for _, l := range added {
				if !strings.HasSuffix(l, nl) || (nl == "\n" && strings.HasSuffix(l, "\r\n")) {
					t.Errorf("added line %q does not use the file's line ending", l)
				}
			}
			if bodyOf(out) != bodyOf(in) {
				t.Errorf("body changed:\n%q\nwant\n%q", bodyOf(out), bodyOf(in))
			}
			// Lines around the edits keep their order: the comment before
			// "affects" still precedes it, the trailing comment still ends it.
			if !strings.Contains(out, "# Scope control"+nl+"affects:"+nl+"  - src/a.go"+nl) {
				t.Errorf("affects not rewritten in place:\n%s", out)
			}
			if !strings.Contains(out, "# trailing comment"+nl+"started_at: ") {
				t.Errorf("a new key belongs at the end of the frontmatter:\n%s", out)
			}
			// Inline comments survive a scalar rewrite; flow lists stay flow.
			if !strings.Contains(out, "base_sha: abc123 # REQUIRED") || !strings.Contains(out, "priority: null # agreed") {
				t.Errorf("inline comments lost:\n%s", out)
			}
			if !strings.Contains(out, "affects_globs: [src/**]") {
				t.Errorf("flow list not kept as flow:\n%s", out)
			}

			back := mustParse(t, out)
			if back.Str(KeyAssignedTo) != "worker@host" || back.Int(KeyQAAttempts) != 2 || back.BaseSHA() != "abc123" {
				t.Errorf("values after reparse: %q %d %q", back.Str(KeyAssignedTo), back.Int(KeyQAAttempts), back.BaseSHA())
			}
			if back.Str(KeyStartedAt) != "2026-02-03T03:05:06Z" {
				t.Errorf("SetTime must write UTC RFC 3339, got %q", back.Str(KeyStartedAt))
			}
			if got := back.List(KeyAffects); strings.Join(got, "|") != "src/a.go|src/b dir/c.go" {
				t.Errorf("affects = %q", got)
			}
			if back.Str(KeyPriority) != "" || !back.Has(KeyPriority) {
				t.Error("SetNull must keep the key with a null value")
			}
			if got := back.Fields()["x_custom"]; got == nil {
				t.Error("unknown key lost")
			}
		})
	}
}

func TestSetStrQuotesWhatYAMLWouldMisread(t *testing.T) {
	for _, v := range []string{"null", "true", "123", "a: b", "#hash", " lead", "- dash", "multi\nline", `q"uote'`, "TASK-001"} {
		tk := mustParse(t, "---\nid: TASK-001\ntitle: t\n---\n")
		tk.SetStr(KeyTitle, v)
		back := mustParse(t, string(tk.Bytes()))
		if back.Title() != v {
			t.Errorf("SetStr(%q) reads back as %q; file:\n%s", v, back.Title(), tk.Bytes())
		}
	}
}

func TestSetNullOnMissingKeyAddsNothing(t *testing.T) {
	in := "---\nid: TASK-001\ntitle: t\n---\n"
	tk := mustParse(t, in)
	tk.SetNull(KeyBranch)
	if string(tk.Bytes()) != in {
		t.Errorf("SetNull of a missing key changed the file: %q", tk.Bytes())
	}
}

func TestSetListEmptyIsFlow(t *testing.T) {
	tk := mustParse(t, "---\nid: TASK-001\ntitle: t\ntags:\n  - a\n---\n")
	tk.SetList(KeyTags, nil)
	if !strings.Contains(string(tk.Bytes()), "tags: []\n") {
		t.Errorf("empty list should render as []:\n%s", tk.Bytes())
	}
}

// Frontmatter shapes a line-by-line rewrite cannot keep intact must be
// refused when read (reported as malformed, with a line), never mangled
// or crashed on later when a verb sets a key.
func TestParseRefusesShapesThatCannotBeRewritten(t *testing.T) {
	for name, in := range map[string]string{
		"flow mapping":  "---\n{id: TASK-001, title: x}\n---\n",
		"indented keys": "---\n  id: TASK-001\n  title: x\n---\n",
		"anchor":        "---\nid: TASK-001\ntitle: &t x\ntags: [*t]\n---\n",
		"merge key":     "---\nid: TASK-001\nbase: &b {a: 1}\nx:\n  <<: *b\ntitle: t\n---\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(in))
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line == 0 {
				t.Fatalf("Parse(%q) = %v, want a *ParseError with a line", in, err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int
		msg  string
	}{
		{"", 1, "missing YAML frontmatter"},
		{"id: TASK-001\n", 1, "missing YAML frontmatter"},
		{"---\nid: TASK-001\ntitle: x\n", 1, "not closed"},
		{"---\nid: TASK-001\ntitle: x\npriority: [\n---\nbody\n", 4, "invalid YAML"},
		{"---\n---\n", 2, "empty"},
		{"---\n- a\n- b\n---\n", 2, "mapping"},
		{"---\nid: TASK-001\ntitle: a\nid: TASK-002\n---\n", 4, "twice"},
		{"---\nid: TASK-001\n--- x\ntitle: a\n---\n", 3, "new YAML document"},
		{"---\nid: TASK-001\n... \ttitle\n---\n", 3, "new YAML document"},
		{"---\nid: TASK-001\ntitle: a\rb: c\n---\n", 3, "stray line break"},
		{"---\nid: TASK-001\ntitle: a\u2028b: c\n---\n", 3, "stray line break"},
	} {
		_, err := Parse([]byte(c.in))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) = %v, want *ParseError", c.in, err)
			continue
		}
		if pe.Line != c.line || !strings.Contains(pe.Error(), c.msg) {
			t.Errorf("Parse(%q) = line %d %q, want line %d containing %q", c.in, pe.Line, pe.Error(), c.line, c.msg)
		}
	}
}

const qaFile = "---\nid: TASK-001\ntitle: t\n---\n\n## Objective\nx\n\n## QA Report\n<!-- Validator fills -->\n\n## Context\nLinks.\n"

func TestAppendToSectionExisting(t *testing.T) {
	tk := mustParse(t, qaFile)
	tk.AppendToSection("QA Report", "### Attempt 1\nFAIL: scope")
	want := "---\nid: TASK-001\ntitle: t\n---\n\n## Objective\nx\n\n## QA Report\n<!-- Validator fills -->\n\n### Attempt 1\nFAIL: scope\n\n## Context\nLinks.\n"
	if got := string(tk.Bytes()); got != want {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
	tk.AppendToSection("QA Report", "### Attempt 2\nPASS")
	if sec := tk.Section("QA Report"); !strings.Contains(sec, "FAIL: scope\n\n### Attempt 2\nPASS\n") {
		t.Errorf("second append not after the first:\n%q", sec)
	}
	if tk.Section("Context") != "Links.\n" {
		t.Errorf("next section disturbed: %q", tk.Section("Context"))
	}
}

func TestAppendToSectionLastAndMissing(t *testing.T) {
	tk := mustParse(t, "---\nid: TASK-001\ntitle: t\n---\n\n## QA Report\n")
	tk.AppendToSection("QA Report", "one")
	if got := tk.Body(); got != "\n## QA Report\n\none\n" {
		t.Errorf("append to a last, empty section: %q", got)
	}

	tk = mustParse(t, "---\nid: TASK-001\ntitle: t\n---\n\n## Objective\nx") // no final newline
	tk.AppendToSection("QA Report", "report")
	if got := tk.Body(); got != "\n## Objective\nx\n\n## QA Report\n\nreport\n" {
		t.Errorf("missing section: %q", got)
	}
	if _, err := Parse(tk.Bytes()); err != nil {
		t.Errorf("result does not parse: %v", err)
	}
}

func TestAppendToSectionCRLF(t *testing.T) {
	in := strings.ReplaceAll(qaFile, "\n", "\r\n")
	tk := mustParse(t, in)
	tk.AppendToSection("QA Report", "a\nb")
	out := string(tk.Bytes())
	if strings.Count(out, "\n") != strings.Count(out, "\r\n") {
		t.Errorf("mixed line endings after append:\n%q", out)
	}
	if !strings.Contains(out, "\r\na\r\nb\r\n\r\n## Context") {
		t.Errorf("append misplaced:\n%q", out)
	}
}

func TestNew(t *testing.T) {
	created := time.Date(2026, 1, 13, 10, 0, 0, 0, time.UTC)
	tk := New(Spec{ID: "TASK-012", Title: "Add: jump (v2)", Priority: "critical", Created: created,
		Affects: []string{"a.go"}, DependsOn: []string{"TASK-003"}, Tags: []string{"x"}, Verify: "make check"})
	back := mustParse(t, string(tk.Bytes()))
	if err := back.Validate("TASK-012"); err != nil {
		t.Fatalf("a new task must validate: %v\n%s", err, tk.Bytes())
	}
	if back.Title() != "Add: jump (v2)" || back.Priority() != "critical" || back.Str(KeyVerify) != "make check" ||
		back.Str(KeyCreated) != "2026-01-13T10:00:00Z" || back.List(KeyDependsOn)[0] != "TASK-003" {
		t.Errorf("fields not set:\n%s", tk.Bytes())
	}
	if !strings.Contains(back.Body(), "## QA Report") || !strings.Contains(back.Body(), "## Objective") {
		t.Errorf("default body missing sections:\n%s", back.Body())
	}

	custom := New(Spec{ID: "TASK-013", Title: "t", Created: created, Body: "## Objective\nMine"})
	if b := custom.Body(); !strings.HasPrefix(b, "\n## Objective\nMine\n") || !strings.Contains(b, "\n## QA Report\n") {
		t.Errorf("custom body should be kept and get a QA Report section: %q", b)
	}
	if custom.Priority() != "medium" {
		t.Errorf("default priority %q", custom.Priority())
	}
}

func TestFields(t *testing.T) {
	f := mustParse(t, richFile).Fields()
	if f["created"] != "2026-01-13T10:00:00Z" {
		t.Errorf("created = %#v, want the timestamp as written", f["created"])
	}
	if f["qa_attempts"] != 0 || f["assigned_to"] != nil {
		t.Errorf("qa_attempts %#v assigned_to %#v", f["qa_attempts"], f["assigned_to"])
	}
	if tags, ok := f["tags"].([]any); !ok || len(tags) != 2 {
		t.Errorf("tags = %#v", f["tags"])
	}
}

func TestValidateLines(t *testing.T) {
	base := "---\nid: TASK-001\ntitle: t\npriority: high\naffects:\n  - src/a.go\n  - src/b.go\ndepends_on: [TASK-002]\n---\n"
	for _, c := range []struct {
		name, from, to, fileID string
		line                   int
		msg                    string
	}{
		{"id mismatch", "id: TASK-001", "id: TASK-001", "TASK-002", 2, "does not match the file name"},
		{"bad id", "id: TASK-001", "id: 7", "", 2, "not of the form"},
		{"missing id", "id: TASK-001\n", "", "", 0, `missing required key "id"`},
		{"missing title", "title: t\n", "", "", 0, "title"},
		{"bad priority", "priority: high", "priority: urgent", "", 4, "priority"},
		{"list key scalar", "depends_on: [TASK-002]", "depends_on: TASK-002", "", 8, "must be a list"},
		{"dotdot in affects", "  - src/b.go", "  - ../b.go", "", 7, ".."},
		{"absolute affects", "  - src/a.go", "  - /etc/passwd", "", 6, "relative"},
		{"bad depends_on", "[TASK-002]", "[x]", "", 8, "depends_on"},
		{"qa_attempts", "priority: high", "qa_attempts: many", "", 4, "whole number"},
		{"worktree", "priority: high", "worktree: ../../elsewhere", "", 4, "worktree"},
		{"branch", "priority: high", "branch: -delete", "", 4, "branch"},
		{"full ref branch", "priority: high", "branch: refs/heads/zz", "", 4, "short branch name"},
		{"worktree via .git", "priority: high", "worktree: .worktrees/x/.git/hooks", "", 4, ".git folder"},
		{"worktree outside", "priority: high", "worktree: .burl", "", 4, "not inside .worktrees/"},
		{"short base_sha", "priority: high", "base_sha: abc123", "", 4, "full commit id"},
		{"option base_sha", "priority: high", "base_sha: --output=/tmp/x", "", 4, "full commit id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Replace(base, c.from, c.to, 1)
			err := mustParse(t, in).Validate(c.fileID)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Validate = %v, want *ParseError", err)
			}
			if pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("Validate = line %d %q, want line %d containing %q\n%s", pe.Line, pe.Msg, c.line, c.msg, in)
			}
		})
	}
	if err := mustParse(t, base).Validate("TASK-001"); err != nil {
		t.Errorf("valid task rejected: %v", err)
	}
}

// With several problems in one file the first one in file order is
// reported, so repeated runs (and the user fixing them top-down) agree.
func TestValidateReportsFirstProblemInFileOrder(t *testing.T) {
	in := "---\nid: TASK-001\ntitle: t\naffects: a\naffects_globs: b\nmust_not_touch: c\ntags: d\ndepends_on: e\n---\n"
	for i := 0; i < 50; i++ {
		err := mustParse(t, in).Validate("")
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 4 {
			t.Fatalf("run %d: Validate = %v, want line 4 (affects)", i, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		richFile,
		strings.ReplaceAll(richFile, "\n", "\r\n"),
		qaFile,
		"---\nid: TASK-001\ntitle: t\n---\n",
		"---\nid: TASK-001\n---",
		"---\na: [1, 2\n---\n",
		"---\n{a: b}\n---\n",
		"---\na: &x 1\nb: *x\n---\n",
		"---\ntitle: |\n  x\n\n  y\n---\n",
		"---\n# only a comment\n---\n",
		"---\nkey: 'multi\n  line'\nnext: 1\n---\n",
		"---\r\nid: x\r\n...\r\nbody",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := Parse(data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse error is %T, want *ParseError", err)
			}
			return
		}
		if !bytes.Equal(tk.Bytes(), data) {
			t.Fatalf("Bytes() != input:\n%q\n%q", tk.Bytes(), data)
		}
		body := tk.Body()
		for _, key := range []string{KeyTitle, KeyAssignedTo, "zz_new"} {
			tk.SetStr(key, "value: with # specials")
			back, err := Parse(tk.Bytes())
			if err != nil {
				t.Fatalf("SetStr(%s) made an unparsable file: %v\n%q", key, err, tk.Bytes())
			}
			if got := back.Str(key); got != "value: with # specials" {
				t.Fatalf("SetStr(%s) reads back %q\n%q", key, got, tk.Bytes())
			}
			if back.Body() != body {
				t.Fatalf("SetStr(%s) changed the body", key)
			}
			tk = back
		}
	})
}

func TestUsageRoundTrip(t *testing.T) {
	tk, err := Parse([]byte("---\nid: TASK-001\ntitle: x\nmax_cost_usd: 1.5\n---\n\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	tk.AddUsage("coder", usage.Usage{InputTokens: 10, OutputTokens: 2, CostUSD: 0.25})
	tk.AddUsage("coder", usage.Usage{InputTokens: 5, OutputTokens: 1, CostUSD: 0.5})
	tk.AddUsage("b-agent", usage.Usage{CostUSD: 1})
	again, err := Parse(tk.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, tk.Bytes())
	}
	tb := again.Usage()
	if c := tb["coder"]; c.Runs != 2 || c.InputTokens != 15 || c.OutputTokens != 3 || c.CostUSD != 0.75 {
		t.Fatalf("coder: %+v\n%s", c, tk.Bytes())
	}
	if tot := tb.Total(); tot.CostUSD != 1.75 || tot.Runs != 3 {
		t.Fatalf("total: %+v", tot)
	}
	if again.MaxCostUSD() != 1.5 || !strings.HasSuffix(string(tk.Bytes()), "---\n\nbody\n") {
		t.Fatalf("max %v or body changed:\n%s", again.MaxCostUSD(), tk.Bytes())
	}
}
