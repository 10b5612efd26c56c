package landforge

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/workflow"
)

// provider is a forge.Provider that only names itself; pins says whether
// its merge-when-checks-pass pins the head.
type provider struct {
	forge.Provider
	pins bool
}

func (p provider) Name() string        { return "test" }
func (p provider) PinsAutoMerge() bool { return p.pins }

func withCI(ci config.CI, prMerge string) *workflow.Workflow {
	c := config.Default()
	c.Landing, c.PRMerge, c.CI = "pr", prMerge, ci
	return &workflow.Workflow{Config: c}
}

func TestAskMergeAtOpen(t *testing.T) {
	ci := config.DefaultCI()
	for _, c := range []struct {
		checks, merge string
		pins, want    bool
	}{
		{"none", "auto", false, true},      // the forge decides, as before checks
		{"required", "auto", true, true},   // gh, glab: pinned, the same checks
		{"required", "auto", false, false}, // gitea: asked once they passed
		{"all", "auto", true, false},       // more than the forge waits for
		{"required", "none", true, false},  // a human merges
	} {
		ci.Checks = c.checks
		if got := AskMergeAtOpen(withCI(ci, c.merge), provider{pins: c.pins}); got != c.want {
			t.Errorf("checks %s, pr_merge %s, pins %v: asked at opening = %v", c.checks, c.merge, c.pins, got)
		}
	}
}

func TestChecksReportAndTimeouts(t *testing.T) {
	w := withCI(config.CI{Checks: "required", Timeout: 90 * time.Second, MaxRounds: 2}, "auto")
	fs := TimedOut(w, []forge.Check{{Name: "ci/lint", Description: "required by main's protection, not reported on this head yet"}}, nil)
	if len(fs) != 1 || fs[0].Description != "did not pass within ci_timeout (1m30s): required by main's protection, not reported on this head yet" {
		t.Fatalf("TimedOut = %+v", fs)
	}
	// An answer never understood: why, in place of the check.
	fs = TimedOut(w, nil, errors.New(`check "ci" has the state "exploded"`))
	if len(fs) != 1 || fs[0].Name != "checks" || !strings.HasSuffix(fs[0].Description, `: check "ci" has the state "exploded"`) {
		t.Fatalf("TimedOut without checks = %+v", fs)
	}
	got := strings.Join(ChecksReport([]FailedCheck{
		{Name: "ci/test", Description: "2 tests\nfailed", URL: "http://ci.invalid/1", Log: "--- FAIL: TestJump\nFAIL"},
		{Name: "lint"},
	}), "\n")
	want := "\nFailed checks:\n\n- ci/test: 2 tests failed (http://ci.invalid/1)\n\n  ```\n  --- FAIL: TestJump\n  FAIL\n  ```\n\n- lint"
	if got != want {
		t.Errorf("ChecksReport =\n%q\nwant\n%q", got, want)
	}
	if FailedNames([]FailedCheck{{Name: "a"}, {Name: "b"}}) != "a, b" {
		t.Error("FailedNames")
	}
}
