package board

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/reason"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Pull requests (landing: pr, DESIGN §17) on the board: a QA task whose
// request is open and a DONE task that landed through one carry its
// number, link and state, read from the task's pr_number and pr_url.
// Those come from the workflow branch, which anyone who can push it
// writes: the URL is kept escaped as every task field is, and becomes a
// link in the report only when it is a plain http(s) URL (PRLink).

// PR states shown.
const (
	PROpen   = "open"
	PRMerged = "merged"
)

// setPR fills c's pull request from the task's frontmatter f: an open one
// on a QA task, the one that landed it on a DONE task (its keys stay set
// at pr_merged; a closed request sets them null and the task goes back to
// READY). Other buckets show none.
func (c *Card) setPR(f map[string]any) {
	var state string
	switch c.Bucket {
	case workflow.QA:
		state = PROpen
	case workflow.Done:
		state = PRMerged
	default:
		return
	}
	n := prNumberOf(f[task.KeyPRNumber])
	if n <= 0 {
		return
	}
	u, _ := f[task.KeyPRURL].(string)
	c.PRNumber, c.PRURL, c.PRState = n, cli.Escape(u), state
}

// prNumberOf reads pr_number as decoded from the frontmatter's JSON: a
// number, or a string a hand edit may have left; anything else is none.
func prNumberOf(v any) int {
	switch v := v.(type) {
	case float64:
		if v > 0 && v == float64(int(v)) {
			return int(v)
		}
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err == nil {
			return n
		}
	case json.Number:
		n, err := strconv.Atoi(string(v))
		if err == nil {
			return n
		}
	}
	return 0
}

// PR is the card's pull request as the board marks it ("PR #7"), "" when
// it has none.
func (c Card) PR() string {
	if c.PRNumber <= 0 {
		return ""
	}
	return fmt.Sprintf("PR #%d", c.PRNumber)
}

// PRLink is the URL the report links the pull request to: PRURL when it
// is an absolute http or https URL with a host and nothing a URL does
// not hold plainly (controls, which Escape made visible, spaces, quotes,
// angle brackets, backslashes), else "" and the URL is shown as text. A
// javascript: or data: URL pushed to the workflow branch never becomes
// a link.
func (c Card) PRLink() string {
	s := c.PRURL
	if c.PRNumber <= 0 || s == "" {
		return ""
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`"'<>\`+"`", r) {
			return ""
		}
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return ""
	}
	return s
}

// PRDetail is what the task view shows above the task's file about its
// pull request: its number, state and URL.
func PRDetail(c Card) []string {
	pr := c.PR()
	if pr == "" {
		return nil
	}
	head := pr + " " + c.PRState
	if c.PRState == PRMerged {
		head = "merged via " + pr
	}
	if c.PRURL != "" {
		head += ": " + c.PRURL
	}
	return []string{head, ""}
}

// prEvent is how a pull request's event reads after its task's ID: "PR #3
// opened", "PR #3 merged (a1b2c3d)", "PR #3 closed: the reviewer's
// words", "PR #3 changes requested: ...". ok is false for other events.
func prEvent(e events.Event) (s string, ok bool) {
	var what string
	switch e.Action {
	case "pr_open":
		what = "opened"
	case "pr_merged":
		what = "merged"
		if sha, _ := e.Details["merged_sha"].(string); sha != "" {
			what += " (" + gitx.Short(sha) + ")"
		}
	case "pr_closed":
		what = "closed"
	case "pr_changes_requested":
		what = "changes requested"
	default:
		return "", false
	}
	pr := "PR"
	n, _ := e.Details["number"].(float64)
	if n > 0 && n == float64(int(n)) {
		pr = fmt.Sprintf("PR #%d", int(n))
	}
	s = pr + " " + what
	if r := prReason(e, int(n)); r != "" {
		s += ": " + r
	}
	return s, true
}

// prReason is a closed or changes-requested event's reason without the
// "pull request #N closed" / "pull request #N: changes requested" that
// settle puts in front (the line says it already), on one line.
func prReason(e events.Event, n int) string {
	r, _ := e.Details["reason"].(string)
	for _, p := range []string{fmt.Sprintf("pull request #%d closed", n), fmt.Sprintf("pull request #%d: changes requested", n)} {
		if rest, ok := strings.CutPrefix(r, p); ok {
			r = strings.TrimPrefix(rest, ":")
			break
		}
	}
	return strings.Join(strings.Fields(r), " ")
}

// EventText is an event as the board and the report list it, after its
// time: "ACTION TASK ACTOR[: reason]", or for a pull request's event
// "TASK PR #3 merged (a1b2c3d) · ACTOR" (a reason before the actor: it
// says more); escaped.
func EventText(e events.Event) string {
	if pr, ok := prEvent(e); ok {
		s := pr + " · " + e.Actor
		if id := e.TaskID(); id != "" {
			s = id + " " + s
		}
		return cli.Escape(s)
	}
	s := e.Action
	if id := e.TaskID(); id != "" {
		s += " " + id
	}
	s += " " + e.Actor
	if r, ok := e.Details["reason"].(string); ok && r != "" {
		// The summary: a build's output or a list of files is the
		// event's whole text (git burl log), not a board line.
		s += ": " + reason.Summary(r)
	}
	return cli.Escape(s)
}
