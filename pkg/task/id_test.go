package task

import (
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/errs"
)

func TestNormalizeID(t *testing.T) {
	for in, want := range map[string]string{
		"TASK-001":  "TASK-001",
		"task-001":  "TASK-001",
		"Task-7":    "TASK-007",
		"1":         "TASK-001",
		"001":       "TASK-001",
		" 42 ":      "TASK-042",
		"TASK-1000": "TASK-1000",
		"TASK-0999": "TASK-999",
	} {
		got, err := NormalizeID(in)
		if err != nil || got != want {
			t.Errorf("NormalizeID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"../x", "/etc/passwd", "TASK-abc", "0", "TASK-000", "", "TASK-", "-1", "+1", "1e3",
		"TASK-001/../../x", "1234567890", "TASK-1.5", "TASK_001", "..\\x", "TASK-001\x00"} {
		got, err := NormalizeID(in)
		if err == nil {
			t.Errorf("NormalizeID(%q) = %q, want an error", in, got)
			continue
		}
		if errs.KindOf(err) != errs.User || !strings.Contains(err.Error(), "not a task ID") {
			t.Errorf("NormalizeID(%q) error = %v (kind %v), want a user error saying it is not a task ID", in, err, errs.KindOf(err))
		}
	}
}

func TestNextID(t *testing.T) {
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{nil, "TASK-001"},
		{[]string{"TASK-001", "TASK-003"}, "TASK-004"},
		{[]string{"TASK-998", "TASK-999"}, "TASK-1000"},
		{[]string{"TASK-1000", "TASK-999"}, "TASK-1001"},
		{[]string{"junk", "TASK-002"}, "TASK-003"},
	} {
		if got := NextID(c.ids); got != c.want {
			t.Errorf("NextID(%q) = %q, want %q", c.ids, got, c.want)
		}
	}
	// IDs past 999 round-trip through normalisation and file names.
	if id, _ := NormalizeID("1000"); id != "TASK-1000" {
		t.Errorf("NormalizeID(1000) = %q", id)
	}
	if id, ok := IDFromFileName(FileName("TASK-1000", "big")); !ok || id != "TASK-1000" {
		t.Errorf("IDFromFileName(TASK-1000-big.md) = %q %v", id, ok)
	}
}

func TestIDFromFileName(t *testing.T) {
	for name, want := range map[string]string{
		"TASK-001-player-jump.md": "TASK-001",
		"TASK-001.md":             "TASK-001",
		"TASK-042-a-1-b.md":       "TASK-042",
		"TASK-001x.md":            "",
		"TASK-abc.md":             "",
		"TASK-001-x.md.tmp123":    "", // natefinch/atomic temp files
		"notes.md":                "",
		".gitkeep":                "",
		"task-001-x.md":           "",
		"TASK-7-seven.md":         "TASK-007",
		"TASK-0008-x.md":          "TASK-008",
		"TASK-0-x.md":             "",
		"TASK--x.md":              "",
		"TASK-1234567890-x.md":    "",
	} {
		got, ok := IDFromFileName(name)
		if got != want || ok != (want != "") {
			t.Errorf("IDFromFileName(%q) = %q %v, want %q", name, got, ok, want)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Implement player jump":      "implement-player-jump",
		"  Fix: crash (on exit)!!  ": "fix-crash-on-exit",
		"../../etc/passwd":           "etc-passwd",
		"v2.0 -- release":            "v2-0-release",
		"":                           "task",
		"!!!":                        "task",
		"日本語":                        "task",
		"Café au lait":               "caf-au-lait",
		"UPPER lower 123":            "upper-lower-123",
		"tab\tand\nnewline":          "tab-and-newline",
		"a-very-long-title-that-keeps-going-and-going-past-forty": "a-very-long-title-that-keeps-going-and-g",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	long := Slug(strings.Repeat("word ", 40))
	if len(long) > 40 || strings.HasSuffix(long, "-") || strings.HasPrefix(long, "-") {
		t.Errorf("Slug of a long title = %q: want at most 40 chars without edge dashes", long)
	}
	for _, s := range []string{"x/y", "a..b", "-lead", "a b"} {
		sl := Slug(s)
		if strings.ContainsAny(sl, "/. ") || strings.HasPrefix(sl, "-") {
			t.Errorf("Slug(%q) = %q is not file- and branch-safe", s, sl)
		}
	}
	if got := BranchName("TASK-001", "x"); got != "task-001-x" {
		t.Errorf("BranchName = %q", got)
	}
}

func TestCheckRelPath(t *testing.T) {
	for _, ok := range []string{"src/a.go", "src/", "a b/c d.txt", "src/**/x_*.go", ".github/workflows/ci.yml", "a..b/c", "..foo"} {
		if err := CheckRelPath(ok); err != nil {
			t.Errorf("CheckRelPath(%q) = %v, want ok", ok, err)
		}
	}
	for _, bad := range []string{"", "../x", "a/../../x", "a/..", "..", "/etc/passwd", `C:\x`, "C:/x", `a\b`, "a\x00b"} {
		if err := CheckRelPath(bad); err == nil {
			t.Errorf("CheckRelPath(%q) = nil, want an error", bad)
		}
	}
}

func TestPriorityRank(t *testing.T) {
	if !(PriorityRank("critical") < PriorityRank("high") && PriorityRank("high") < PriorityRank("medium") &&
		PriorityRank("medium") < PriorityRank("low") && PriorityRank("low") < PriorityRank("bogus")) {
		t.Error("priorities must rank critical < high < medium < low < unknown")
	}
}
