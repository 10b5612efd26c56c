package landforge

// The forge's checks as a gate (DESIGN §21), as both of its users say
// them: the merge queue waiting on a candidate's checks (queue_ci: forge)
// and a settle round waiting on a pull request's. A failed check carries
// the end of its log into the task's QA report and its next prompt, and
// ci_max_rounds rounds of them leave the task BLOCKED.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// keyCIRounds is the frontmatter counting a task's rounds of failed
// checks.
const keyCIRounds = task.KeyCIRounds

// AskMergeAtOpen reports whether approve asks the forge to merge as soon
// as the pull request opens: with checks none (the forge decides), or
// required where the forge's own merge-when-checks-pass waits for the same
// checks and merges only the gated head. Otherwise settle asks once the
// checks passed.
func AskMergeAtOpen(w *workflow.Workflow, p forge.Provider) bool {
	ci := w.Config.CI
	return w.Config.PRMerge == "auto" && (!ci.Gates() || (ci.Checks == "required" && forge.PinsAutoMerge(p)))
}

// TimedOut is the checks still pending at ci_timeout as failed ones.
func TimedOut(w *workflow.Workflow, pending []forge.Check, why error) []FailedCheck {
	if len(pending) == 0 {
		pending = []forge.Check{{Name: "checks"}}
	}
	out := make([]FailedCheck, 0, len(pending))
	for _, c := range pending {
		d := fmt.Sprintf("did not pass within ci_timeout (%s)", w.Config.CI.Timeout)
		if why != nil {
			d += ": " + why.Error()
		} else if c.Description != "" {
			d += ": " + c.Description
		}
		out = append(out, FailedCheck{Name: c.Name, Description: d, URL: c.URL})
	}
	return out
}

func FailedNames(fs []FailedCheck) string {
	names := make([]string, 0, len(fs))
	for _, f := range fs {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// FailedCheck is a failed check as the task's QA report and the next
// prompt carry it.
type FailedCheck struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
	Log         string `json:"log,omitempty"`
}

// FailedChecks reads each failed check's log: the forge's where it serves
// one, else ci_log_command's (trusted first).
func FailedChecks(w *workflow.Workflow, chk forge.Checker, t forge.Target, e workflow.Entry, cs []forge.Check, n *int) []FailedCheck {
	out := make([]FailedCheck, 0, len(cs))
	for _, c := range cs {
		f := FailedCheck{Name: c.Name, Description: c.Description, URL: c.URL}
		if c.Log != "" {
			*n++
			log, err := chk.FailedLog(t, c)
			if err != nil {
				fmt.Fprintf(w.Stderr, "burl: %s: the log of the failed check %q: %v\n", e.ID, c.Name, err)
			}
			f.Log = log
		}
		if f.Log == "" {
			f.Log = ciLog(w, e.ID, t, c)
		}
		out = append(out, f)
	}
	return out
}

// ciLogTimeout bounds one run of ci_log_command.
const ciLogTimeout = 60 * time.Second

// ciLog runs ci_log_command for a failed check; "" when none is set, or it
// fails (said on stderr).
func ciLog(w *workflow.Workflow, id string, t forge.Target, c forge.Check) string {
	argv := w.Config.CI.LogCommand
	if len(argv) == 0 {
		return ""
	}
	if err := trust.Check(w.Repo, w.CILogCommands()...); err != nil {
		fmt.Fprintf(w.Stderr, "burl: %s: ci_log_command not run: %v\n", id, err)
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), ciLogTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = w.Repo.Root
	cmd.Env = append(os.Environ(), "BURL_TASK="+id, "BURL_CHECK_NAME="+c.Name, "BURL_CHECK_URL="+c.URL,
		"BURL_CHECK_DESCRIPTION="+c.Description, "BURL_HEAD="+t.Head, "BURL_PR_NUMBER="+strconv.Itoa(t.Number))
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintf(w.Stderr, "burl: %s: ci_log_command for %q: %v\n", id, c.Name, err)
	}
	return forge.Tail(string(out))
}

// ChecksReport is the failed checks in words: the QA report's lines and
// the next prompt's.
func ChecksReport(fs []FailedCheck) []string {
	lines := []string{"", "Failed checks:"}
	for _, f := range fs {
		l := "- " + f.Name
		if f.Description != "" {
			l += ": " + qa.OneLine(f.Description)
		}
		if f.URL != "" {
			l += " (" + f.URL + ")"
		}
		lines = append(lines, "", l)
		if f.Log != "" {
			lines = append(lines, "", "  ```")
			for _, ll := range strings.Split(f.Log, "\n") {
				lines = append(lines, "  "+ll)
			}
			lines = append(lines, "  ```")
		}
	}
	return lines
}

// CIRound counts one more round of failed checks for the task of tx (its
// rejection recorded): the event is checks_failed (details cause: pr or
// queue, round), and the round that reaches ci_max_rounds leaves the task
// BLOCKED for a human.
func CIRound(w *workflow.Workflow, tx *workflow.Tx, cause, names string) {
	t := tx.Task
	round := t.Int(keyCIRounds) + 1
	t.SetInt(keyCIRounds, round)
	tx.Action = "checks_failed"
	tx.Details["cause"] = cause
	tx.Details["round"] = round
	if round >= w.Config.CI.MaxRounds {
		tx.To = workflow.Blocked
		t.SetBlocked(fmt.Sprintf("the forge's checks failed in %d round(s) (ci_max_rounds %d): %s; a human decides", round, w.Config.CI.MaxRounds, names))
	}
}
