package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const file = ".burl/.workflow/config.yaml"

func TestDefaults(t *testing.T) {
	c := Default()
	if c.MaxParallel != 3 || c.WorkflowBranch != "burl" || c.WorkflowWorktree != ".burl" || !c.WorkflowAutoCommit ||
		c.WorkflowAutoPush || c.MainBranch != "main" || c.Remote != "origin" || c.MergeStrategy != "rebase_ff_only" ||
		c.PushMainOnApprove || c.PushTaskBranchOnSubmit || c.LockStaleMinutes != 120 || !c.UseGlobalClaimLock ||
		c.QAMaxAttempts != 3 || !c.AutoPriorityBoost || c.BuildCommand != "" || c.BuildTimeout != 30*time.Minute ||
		c.ConflictPolicy != "fail" || c.QueueBatch != 4 {
		t.Errorf("defaults differ from PRD 8.2: %+v", c)
	}
	if !reflect.DeepEqual(c.StubPatterns, DefaultStubPatterns) {
		t.Errorf("stub patterns %q", c.StubPatterns)
	}
	for _, ext := range []string{"rs", "py", "ts", "js", "tsx", "jsx", "go"} {
		found := false
		for _, e := range c.StubCheckExtensions {
			found = found || e == ext
		}
		if !found {
			t.Errorf("stub_check_extensions lacks %s", ext)
		}
	}
	// Default() hands out copies: a caller editing its lists must not
	// change the next caller's defaults.
	c.StubPatterns[0] = "changed"
	if Default().StubPatterns[0] == "changed" {
		t.Error("Default() shares its slices")
	}

	empty, err := Parse(file, nil)
	if err != nil || !reflect.DeepEqual(empty, Default()) {
		t.Errorf("an empty file must give the defaults: %+v %v", empty, err)
	}
}

func TestParseValues(t *testing.T) {
	c, err := Parse(file, []byte(`max_parallel: 0
workflow_auto_push: yes
main_branch: trunk
remote: upstream
merge_strategy: ff_only
lock_stale_minutes: 5
qa_max_attempts: 1
build_command: null
build_timeout: 90s
stub_patterns: ["XXX"]
stub_check_extensions: []
conflict_policy: warn
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxParallel != 0 || !c.WorkflowAutoPush || c.MainBranch != "trunk" || c.Remote != "upstream" ||
		c.MergeStrategy != "ff_only" || c.LockStaleMinutes != 5 || c.QAMaxAttempts != 1 || c.BuildCommand != "" ||
		c.BuildTimeout != 90*time.Second || !reflect.DeepEqual(c.StubPatterns, []string{"XXX"}) ||
		len(c.StubCheckExtensions) != 0 || c.ConflictPolicy != "warn" {
		t.Errorf("parsed %+v", c)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("unexpected warnings %q", c.Warnings)
	}
}

// Every wrong value names the file, the key and its line, so the user can
// go straight to it.
func TestInvalidValues(t *testing.T) {
	for _, c := range []struct{ key, value string }{
		{"max_parallel", "lots"},
		{"max_parallel", "-1"},
		{"max_parallel", "[1]"},
		{"workflow_branch", "has space"},
		{"workflow_branch", "../up"},
		{"workflow_auto_commit", "maybe"},
		{"workflow_auto_push", "[true]"},
		{"main_branch", "-rf"},
		{"main_branch", "refs/heads/x"},
		{"workflow_branch", "x.lock"},
		{"remote", "a:b"},
		{"merge_strategy", "octopus"},
		{"push_main_on_approve", "2"},
		{"push_task_branch_on_submit", "nope"},
		{"lock_stale_minutes", "0"},
		{"lock_stale_minutes", "1.5"},
		{"use_global_claim_lock", "{}"},
		{"qa_max_attempts", "0"},
		{"queue_batch", "0"},
		{"queue_batch", "two"},
		{"max_cost_usd_per_day", "-1"},
		{"max_cost_usd_per_day", "$20"},
		{"max_cost_usd_per_day", "[20]"},
		{"max_cost_usd_per_day", ".inf"},
		{"auto_priority_boost_on_retry", "often"},
		{"build_command", "[make, test]"},
		{"build_timeout", "soon"},
		{"build_timeout", "-5m"},
		{"stub_patterns", "TODO"},
		{"stub_patterns", "[[nested]]"},
		{"stub_check_extensions", "go"},
		{"conflict_policy", "panic"},
		{"landing", "push"},
		{"forge", "bitbucket"},
		{"forge_url", "file:///tmp/x"},
		{"forge_url", "https://user:secret@gitea.example"},
		{"pr_merge", "always"},
		{"pr_merge_style", "fast-forward"},
		{"pr_closed", "reopen"},
		{"checks", "some"},
		{"checks", "[required]"},
		{"ci_timeout", "0s"},
		{"ci_timeout", "later"},
		{"ci_max_rounds", "0"},
		{"ci_max_rounds", "two"},
		{"ci_log_command", "gh run view --log-failed"},
		{"ci_log_command", "[]"},
		{"ci_log_command", "[gh, [run]]"},
		{"queue_ci", "github"},
	} {
		data := "# header\nremote: origin\n\n" + c.key + ": " + c.value + "\n"
		_, err := Parse(file, []byte(data))
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%s: %s = %v, want *Error", c.key, c.value, err)
			continue
		}
		if ce.Key != c.key || ce.Line != 4 || ce.File != file {
			t.Errorf("%s: %s: error names %s:%d key %q", c.key, c.value, ce.File, ce.Line, ce.Key)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, file+":4: "+c.key+": ") {
			t.Errorf("%s: %s: message %q does not start with file:line: key", c.key, c.value, msg)
		}
	}
}

func TestBadStubRegexNamesTheEntry(t *testing.T) {
	_, err := Parse(file, []byte("max_parallel: 3\nstub_patterns:\n  - TODO\n  - \"fix(me\"\n"))
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v", err)
	}
	if ce.Key != "stub_patterns" || ce.Line != 4 || !strings.Contains(ce.Msg, `"fix(me"`) || !strings.Contains(ce.Msg, "entry 2") {
		t.Errorf("got %s:%d %s: %s; want line 4, entry 2", ce.File, ce.Line, ce.Key, ce.Msg)
	}
}

func TestUnknownKeyWarns(t *testing.T) {
	c, err := Parse(file, []byte("max_parallel: 2\nmax_paralel: 4\nfrobnicate: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxParallel != 2 {
		t.Errorf("an unknown key must not change known ones: max_parallel %d", c.MaxParallel)
	}
	if len(c.Warnings) != 2 {
		t.Fatalf("warnings %q", c.Warnings)
	}
	if w := c.Warnings[0]; !strings.Contains(w, file+":2:") || !strings.Contains(w, `"max_paralel"`) || !strings.Contains(w, "did you mean max_parallel?") {
		t.Errorf("warning %q should name file:line, the key and the nearest known key", w)
	}
	if w := c.Warnings[1]; !strings.Contains(w, `"frobnicate"`) || strings.Contains(w, "did you mean") {
		t.Errorf("warning %q: no suggestion expected for a key unlike any other", w)
	}
}

func TestDuplicateKey(t *testing.T) {
	_, err := Parse(file, []byte("max_parallel: 1\nremote: origin\nmax_parallel: 5\n"))
	var ce *Error
	if !errors.As(err, &ce) || ce.Line != 3 || ce.Key != "max_parallel" || !strings.Contains(ce.Msg, "line 1") {
		t.Errorf("duplicate key: %v", err)
	}
}

func TestSyntaxErrorHasLine(t *testing.T) {
	_, err := Parse(file, []byte("max_parallel: 3\nremote: [\n"))
	var ce *Error
	if !errors.As(err, &ce) || ce.Line != 2 || strings.Contains(err.Error(), ":0:") {
		t.Errorf("syntax error = %v; want it at line 2", err)
	}
	_, err = Parse(file, []byte("- a\n- b\n"))
	if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "mapping") {
		t.Errorf("a list is not a config: %v", err)
	}
}

func TestRenderRoundTrip(t *testing.T) {
	c, err := Parse(file, Render(Default()))
	if err != nil {
		t.Fatalf("Render(Default()) does not parse: %v\n%s", err, Render(Default()))
	}
	if !reflect.DeepEqual(c, Default()) {
		t.Errorf("Render→Parse differs from Default():\n%+v\n%+v", c, Default())
	}

	// Non-default values that need quoting survive too.
	d := Default()
	d.BuildCommand = `go test ./... && echo "ok: done" # not a comment`
	d.MainBranch = "trunk"
	d.WorkflowWorktree = "work flow"
	d.StubPatterns = []string{`^\s*pass\s*$`, "'quoted'", "# hash"}
	d.MaxParallel = 0
	d.BuildTimeout = 90 * time.Second
	back, err := Parse(file, Render(d))
	if err != nil {
		t.Fatalf("%v\n%s", err, Render(d))
	}
	if !reflect.DeepEqual(back, d) {
		t.Errorf("round trip:\n%+v\n%+v\n%s", back, d, Render(d))
	}
}

func TestLoad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte("max_parallel: lots\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), p+":1: max_parallel") {
		t.Errorf("Load error %v should name the path it read", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// The workflow branch is never main: task files would land in the code.
func TestWorkflowBranchIsNotMain(t *testing.T) {
	_, err := Parse(file, []byte("main_branch: trunk\nworkflow_branch: trunk\n"))
	var ce *Error
	if !errors.As(err, &ce) || ce.Key != "workflow_branch" || ce.Line != 2 {
		t.Errorf("Parse = %v, want an error on workflow_branch, line 2", err)
	}
}

func TestForgeKeys(t *testing.T) {
	c, err := Parse(file, []byte("landing: pr\nforge: gitea\nforge_url: http://127.0.0.1:3000/\npr_merge: none\npr_merge_style: squash\npr_closed: ready\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Landing != "pr" || c.Forge != "gitea" || c.ForgeURL != "http://127.0.0.1:3000" || c.PRMerge != "none" || c.PRMergeStyle != "squash" || c.PRClosed != "ready" {
		t.Fatalf("parsed %+v", c)
	}
	if d := Default(); d.Landing != "local" || d.Forge != "" || d.PRMerge != "auto" || d.PRMergeStyle != "rebase" || d.PRClosed != "blocked" {
		t.Fatalf("defaults %q %q %q %q", d.Landing, d.Forge, d.PRMerge, d.PRMergeStyle)
	}
}

func TestCIKeys(t *testing.T) {
	// Defaults: the checks gate where something waits for the forge.
	for _, c := range []struct{ data, checks string }{
		{"", "none"},
		{"landing: local\n", "none"},
		{"landing: pr\n", "required"},
		{"queue_ci: forge\n", "required"},
		{"landing: pr\nchecks: none\n", "none"},
		{"landing: pr\nchecks: all\n", "all"},
	} {
		got, err := Parse(file, []byte(c.data))
		if err != nil {
			t.Fatalf("%q: %v", c.data, err)
		}
		if got.CI.Checks != c.checks {
			t.Errorf("%q: checks = %q, want %q", c.data, got.CI.Checks, c.checks)
		}
		if got.CI.Timeout != 30*time.Minute || got.CI.MaxRounds != 2 || got.CI.LogCommand != nil {
			t.Errorf("%q: CI defaults %+v", c.data, got.CI)
		}
	}
	c, err := Parse(file, []byte("landing: pr\nchecks: all\nci_timeout: 90s\nci_max_rounds: 3\nci_log_command: [gh, run, view]\nqueue_ci: forge\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := CI{Checks: "all", Timeout: 90 * time.Second, MaxRounds: 3, LogCommand: []string{"gh", "run", "view"}, Queue: "forge"}
	if !reflect.DeepEqual(c.CI, want) || !c.CI.Gates() {
		t.Fatalf("parsed %+v, want %+v", c.CI, want)
	}
	// The queue cannot wait on checks that are switched off.
	_, err = Parse(file, []byte("queue_ci: forge\n\nchecks: none\n"))
	var ce *Error
	if !errors.As(err, &ce) || ce.Key != "checks" || ce.Line != 3 || !strings.Contains(err.Error(), "queue_ci: forge (line 1)") {
		t.Fatalf("queue_ci: forge with checks: none = %v", err)
	}
	// Checks nothing waits for: a warning, not an error.
	c, err = Parse(file, []byte("checks: all\n"))
	if err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], file+":1: checks: all waits for nothing") {
		t.Fatalf("checks without pr or queue_ci: %v %q", err, c.Warnings)
	}
}

func TestMaxCostUSDPerDay(t *testing.T) {
	c, err := Parse("config.yaml", []byte("max_cost_usd_per_day: 7.5\n"))
	if err != nil || c.MaxCostUSDPerDay != 7.5 {
		t.Fatalf("got %v, %v", c, err)
	}
	if Default().MaxCostUSDPerDay != 0 {
		t.Error("the default must be no cap")
	}
}
