package brief

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/reason"
	"github.com/burl-dev/burl/pkg/taskgate"
	"github.com/burl-dev/burl/pkg/workflow"
)

// SubmitRefusal is a refused submit --json as the agent's next prompt
// shows it (reason, violations, fix), and its violations; output that is
// not submit's JSON error is passed on as it came.
func SubmitRefusal(stdout, stderr []byte) (string, gate.Violations) {
	var doc struct {
		Error struct {
			Message    string          `json:"message"`
			Fix        string          `json:"fix"`
			Violations gate.Violations `json:"violations"`
		} `json:"error"`
	}
	if json.Unmarshal(stdout, &doc) != nil || doc.Error.Message == "" {
		return strings.TrimSpace(string(stderr) + "\n" + string(stdout)), nil
	}
	e := doc.Error
	var b strings.Builder
	if w := strings.TrimSpace(string(stderr)); w != "" {
		b.WriteString(w + "\n")
	}
	// "Cannot submit TASK-001: Scope violation: …": the title is ours.
	msg := e.Message
	if t, r, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(t, "Cannot submit") {
		msg = r
	}
	b.WriteString("Reason: " + msg + "\n")
	for _, l := range e.Violations.HumanLines() {
		b.WriteString("  " + l + "\n")
	}
	if e.Fix != "" {
		b.WriteString("Fix: " + e.Fix + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), e.Violations
}

// FailureLine is the first line of a run's failure that says what failed:
// the gate's reason after submit's heading, else the failure's own first
// line. It is a whole sentence, never cut.
func FailureLine(fail string) string {
	for _, l := range strings.Split(fail, "\n") {
		if r, ok := strings.CutPrefix(l, "Reason: "); ok {
			return strings.TrimSpace(r)
		}
	}
	l, _, _ := strings.Cut(strings.TrimSpace(fail), "\n")
	return strings.TrimSuffix(strings.TrimSpace(l), ":")
}

// BlockText is why watch blocks id after its agent's runs failed, for the
// human who decides: a first line that is its summary (the count, then
// what failed, every out-of-scope file named), the fix for them (the diff
// to look at, the exact scope command with every file, or unblock and
// cancel), then the last run's failure as the agent was told it.
func BlockText(dir, id, agent string, failures int, fail string, vs gate.Violations) string {
	var b strings.Builder
	var files []string
	for _, v := range vs {
		if v.Gate == "scope" && v.File != "" {
			files = append(files, v.File)
		}
	}
	// The first line is the task's one-line summary: written to fit.
	b.WriteString(blockSummary(id, agent, failures, fail, files) + "\n")
	if len(files) > 0 {
		quoted := make([]string, len(files))
		for i, f := range files {
			quoted[i] = osx.ShellQuote(f)
		}
		diff := "git burl show " + id
		if w, err := workflow.Open(dir); err == nil {
			if e, err := w.Get(id); err == nil && e.Task.BaseSHA() != "" && e.Task.Branch() != "" {
				diff = fmt.Sprintf("git diff %s..%s -- %s", e.Task.BaseSHA(), e.Task.Branch(), strings.Join(quoted, " "))
			}
		}
		fmt.Fprintf(&b, "Fix (for you): look at what it changed outside its scope: %s\n", diff)
		fmt.Fprintf(&b, "  if the task needs those files: %s && git burl unblock %s\n", taskgate.ScopeCommand(id, files), id)
		fmt.Fprintf(&b, "  if not: git burl unblock %s (its next run is told to revert them), or git burl cancel %s --reason \"...\"\n", id, id)
	} else {
		fmt.Fprintf(&b, "Fix (for you): read the failure below (and its run log); git burl unblock %s lets the agent try again, git burl unblock %s --claim takes it yourself, git burl cancel %s --reason \"...\" ends it\n", id, id, id)
	}
	b.WriteString("The last run's failure:\n")
	b.WriteString(strings.TrimSpace(fail))
	return b.String()
}

// blockSummary is the first line of BlockText: whole sentences that fit
// reason.Max (DESIGN §25), never a cut of the long reason, carrying a
// failed run's last output line (an agent's "rate limit reached") when
// it fits, else saying where it is.
func blockSummary(id, agent string, failures int, fail string, files []string) string {
	runs := fmt.Sprintf("%d run(s) of agent %s failed", failures, agent)
	fit := func(cands ...string) string {
		for _, c := range cands {
			if c != "" && utf8.RuneCountInString(c) <= reason.Max {
				return c
			}
		}
		return fmt.Sprintf("%s; git burl show %s says why.", runs, id)
	}
	if len(files) > 0 {
		return fit(fmt.Sprintf("%d file(s) outside %s's scope: %s; %s.", len(files), id, strings.Join(files, ", "), runs),
			fmt.Sprintf("%d file(s) outside %s's scope; %s.", len(files), id, runs))
	}
	var code int
	if n, _ := fmt.Sscanf(fail, "the agent exited with code %d;", &code); n == 1 {
		last := lastLine(fail)
		return fit(fmt.Sprintf("%s, the last with exit %d: %s", runs, code, last),
			fmt.Sprintf("%s, the last with exit %d; its last output line is in git burl show %s.", runs, code, id))
	}
	first := FailureLine(fail)
	return fit(fmt.Sprintf("%s (%s)", first, runs), first)
}

// lastLine is the last line of text that says something.
func lastLine(text string) string {
	ls := strings.Split(strings.TrimSpace(text), "\n")
	return strings.Join(strings.Fields(ls[len(ls)-1]), " ")
}
