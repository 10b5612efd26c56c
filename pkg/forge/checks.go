package forge

// The forge's checks as a gate (DESIGN §21): what a provider reads of the
// CI on a head, and how burl sums it. Pending never counts as passed, a
// state burl does not know is an error, and a check reported twice on one
// head with two different states is an error: none of them passes.

import (
	"fmt"
	"sort"
	"strings"
)

// Check states, as burl sums every forge's own.
const (
	CheckPending = "pending"
	CheckSuccess = "success"
	CheckFailure = "failure"
)

// Check is one check on a head: a CI job, a check run, a commit status.
type Check struct {
	Name        string `json:"name"`
	State       string `json:"state"` // pending, success, failure
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
	// Required is set on a check the forge requires before a merge into
	// the base branch (a protected branch's required status checks).
	Required bool `json:"required,omitempty"`
	// Log is where the provider finds the check's log (a job's ID), empty
	// when the forge keeps none it serves.
	Log string `json:"-"`
}

// Target is the head whose checks are read: a pull request's (Number > 0)
// or a branch's without one (a merge queue candidate, Number 0).
type Target struct {
	Number int
	Branch string
	Head   string // the commit the checks must be on
	Base   string // the branch it would merge into, whose protection says what is required
}

// Checker is a provider that reads the forge's checks.
type Checker interface {
	// Checks reads the checks on t.Head. With required, only the checks
	// the forge requires for a merge into t.Base, a required one not
	// reported yet among them as pending; else every check reported,
	// the required ones marked.
	Checks(t Target, required bool) ([]Check, error)
	// FailedLog is the failing part of a failed check's log where the
	// forge serves it (its last lines), "" where it serves none.
	FailedLog(t Target, c Check) (string, error)
}

// Stamper is a provider that lists a stamp of the checks of every recent
// head in one request (GitLab's pipelines, whose merge request listing
// carries none): a head whose stamp did not move since a round read its
// checks is not read again.
type Stamper interface {
	CheckStamps() (map[string]string, error)
}

// CheckerOf is p's Checker, or an error naming the forge when it reads no
// checks.
func CheckerOf(p Provider) (Checker, error) {
	if c, ok := p.(Checker); ok {
		return c, nil
	}
	return nil, fmt.Errorf("%s: this forge's checks cannot be read by burl: set checks: none", p.Name())
}

// PinsAutoMerge reports whether p's merge-when-checks-pass merges only the
// head it was asked at and waits for the checks the forge requires (gh's
// --auto --match-head-commit, glab's --sha): with checks: required, burl
// may ask it as soon as the pull request opens. Where it does not (Gitea
// schedules a merge of whatever the head is when its checks pass), burl
// asks only once the checks passed on the head its gates passed.
func PinsAutoMerge(p Provider) bool {
	a, ok := p.(interface{ PinsAutoMerge() bool })
	return ok && a.PinsAutoMerge()
}

// MergePassed asks the forge to merge pr now that the checks burl waits
// for passed on pr.Head: at once where the provider can (MergeNow), else
// through Merge.
func MergePassed(p Provider, pr PR, style string) error {
	if m, ok := p.(interface{ MergeNow(PR, string) error }); ok {
		return m.MergeNow(pr, style)
	}
	return p.Merge(pr, style)
}

// Verdict is the sum of a head's checks.
type Verdict struct {
	// State is success only when every check counted passed; failure when
	// one failed; else pending (one is running or not reported yet).
	State   string
	Failed  []Check
	Pending []Check
	Passed  []Check
}

// Judge sums cs: with required, only the checks marked Required count
// (none required: passed); else every check counts, and a head with none
// reported yet waits for its first. A state other than pending, success
// and failure, or one check reported with two states, is an error: the
// head has not passed.
func Judge(cs []Check, required bool) (Verdict, error) {
	if !required && len(cs) == 0 {
		return Verdict{State: CheckPending, Pending: []Check{{Name: "any check", State: CheckPending, Description: "no check reported on this head yet"}}}, nil
	}
	v := Verdict{State: CheckSuccess}
	seen := map[string]string{}
	for _, c := range cs {
		if required && !c.Required {
			continue
		}
		if c.Name == "" {
			return Verdict{State: CheckPending}, fmt.Errorf("a check without a name (state %q): the forge's answer is not understood", c.State)
		}
		if prev, ok := seen[c.Name]; ok && prev != c.State {
			return Verdict{State: CheckPending}, fmt.Errorf("check %q is reported both %s and %s on one head: not counted as passed", c.Name, prev, c.State)
		}
		seen[c.Name] = c.State
		switch c.State {
		case CheckSuccess:
			v.Passed = append(v.Passed, c)
		case CheckFailure:
			v.Failed = append(v.Failed, c)
		case CheckPending:
			v.Pending = append(v.Pending, c)
		default:
			return Verdict{State: CheckPending}, fmt.Errorf("check %q has the state %q, which burl does not know: not counted as passed", c.Name, c.State)
		}
	}
	switch {
	case len(v.Failed) > 0:
		v.State = CheckFailure
	case len(v.Pending) > 0:
		v.State = CheckPending
	}
	return v, nil
}

// Names lists the checks' names, sorted, for messages.
func Names(cs []Check) string {
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// logTailLines and logTailBytes bound the part of a failing log that goes
// into an agent's prompt: the end of a CI log is where it says why.
const (
	logTailLines = 80
	logTailBytes = 8 << 10
)

// Tail is the end of a log: its last lines, at most a few KiB, cut at a
// line start.
func Tail(log string) string {
	log = strings.TrimRight(log, "\n")
	if len(log) > logTailBytes {
		log = log[len(log)-logTailBytes:]
		if i := strings.IndexByte(log, '\n'); i >= 0 {
			log = log[i+1:]
		}
	}
	lines := strings.Split(log, "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return strings.Join(lines, "\n")
}
