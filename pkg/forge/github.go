package forge

// GitHub (github.com and GitHub Enterprise Server) through the GitHub CLI,
// gh: its login holds the credentials (`gh auth login`, GH_TOKEN in the
// user's own environment); burl passes none. The JSON field names are gh's
// `--json` fields (cli/cli api/query_builder.go PullRequestFields, exported
// as in api/export_pr.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

type gitHub struct {
	cli  *cli
	repo string // --repo: OWNER/NAME on github.com, HOST/OWNER/NAME on Enterprise
}

// newGitHub serves the repository r. forgeURL, when set, is the Enterprise
// host's URL (https://github.example.com, or its API base): its host names
// the instance, for gh's --repo and GH_HOST.
func newGitHub(r Remote, forgeURL string) (Provider, error) {
	if r.Prefix != "" {
		return nil, fmt.Errorf("forge: github: a GitHub repository is OWNER/NAME; the remote names %s/%s/%s", r.Prefix, r.Owner, r.Name)
	}
	if r.Owner == "" || r.Name == "" {
		return nil, fmt.Errorf("forge: github: the remote names no OWNER/NAME")
	}
	host := r.Host
	if forgeURL != "" {
		u, err := url.Parse(forgeURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("forge_url %q: expected the GitHub Enterprise host's URL, https://HOST", forgeURL)
		}
		host = u.Host
	}
	host = strings.ToLower(host)
	g := &gitHub{cli: &cli{
		tool:  "gh",
		forge: "github",
		hint:  "landing: pr with forge: github uses the GitHub CLI, logged in with `gh auth login`",
	}}
	switch host {
	case "", "github.com", "www.github.com", "api.github.com", "ssh.github.com":
		g.repo = r.Slug()
	default:
		g.repo = host + "/" + r.Slug()
		g.cli.env = []string{"GH_HOST=" + host}
	}
	return g, nil
}

// Ready is forge.Ready: the tool is installed.
func (g *gitHub) Ready() error { return g.cli.ready() }

func (g *gitHub) Name() string { return "github" }

// ghPR is one pull request as gh's --json prints it.
type ghPR struct {
	Number      int    `json:"number"`
	URL         string `json:"url"`
	State       string `json:"state"`
	HeadRefName string `json:"headRefName"`
	HeadRefOid  string `json:"headRefOid"`
	MergeCommit *struct {
		Oid string `json:"oid"`
	} `json:"mergeCommit"`
	UpdatedAt         string    `json:"updatedAt"`
	ReviewDecision    string    `json:"reviewDecision"`
	StatusCheckRollup []ghCheck `json:"statusCheckRollup"`
}

// ghCheck is a CheckRun (status, conclusion) or a StatusContext (state).
type ghCheck struct {
	Typename    string `json:"__typename"`
	Name        string `json:"name"`
	Context     string `json:"context"`
	Status      string `json:"status"`
	Conclusion  string `json:"conclusion"`
	State       string `json:"state"`
	StartedAt   string `json:"startedAt"`
	CompletedAt string `json:"completedAt"`
}

func (p ghPR) pr() PR {
	out := PR{
		Number:           p.Number,
		URL:              p.URL,
		Branch:           p.HeadRefName,
		Head:             p.HeadRefOid,
		State:            strings.ToLower(p.State), // OPEN, CLOSED, MERGED
		Updated:          p.UpdatedAt,
		Checks:           ghChecks(p.StatusCheckRollup),
		ChecksStamp:      ghStamp(p.StatusCheckRollup),
		ChangesRequested: p.ReviewDecision == "CHANGES_REQUESTED",
	}
	if out.State == "merged" && p.MergeCommit != nil {
		out.MergedSHA = p.MergeCommit.Oid
	}
	return out
}

// ghChecks sums the checks on a head as gh's own `pr checks` does
// (api/queries_pr.go): any failing is failure, else any not finished is
// pending, else success; no checks is empty.
func ghChecks(cs []ghCheck) string {
	if len(cs) == 0 {
		return ""
	}
	failing, pending := false, false
	for _, c := range cs {
		var state string
		if c.Typename == "CheckRun" || c.Status != "" || c.Conclusion != "" {
			if c.Status != "COMPLETED" {
				pending = true
				continue
			}
			state = c.Conclusion
		} else {
			state = c.State
		}
		switch state {
		case "SUCCESS", "NEUTRAL", "SKIPPED":
		case "FAILURE", "ERROR", "ACTION_REQUIRED", "CANCELLED", "TIMED_OUT":
			failing = true
		default: // PENDING, EXPECTED, STALE, STARTUP_FAILURE, unknown
			pending = true
		}
	}
	switch {
	case failing:
		return "failure"
	case pending:
		return "pending"
	}
	return "success"
}

// ghStamp is PR.ChecksStamp: every check's name, state and times, so
// that any change to one (a re-run too) is a new stamp.
func ghStamp(cs []ghCheck) string {
	if len(cs) == 0 {
		return ""
	}
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, strings.Join([]string{c.Name, c.Context, c.Status, c.Conclusion, c.State, c.StartedAt, c.CompletedAt}, "|"))
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

const ghPRFields = "number,url,state,headRefName,headRefOid,mergeCommit,updatedAt"

func (g *gitHub) Open(r Request) (PR, error) {
	out, err := g.cli.run("", "pr", "list", "--repo", g.repo, "--state", "open",
		"--head", r.Branch, "--json", "number,url,headRefName,headRefOid,updatedAt")
	if err != nil {
		return PR{}, err
	}
	var open []ghPR
	if err := json.Unmarshal(out, &open); err != nil {
		return PR{}, fmt.Errorf("gh pr list: unexpected answer: %v", err)
	}
	for _, p := range open {
		if p.HeadRefName == r.Branch {
			return g.edit(p.Number, r)
		}
	}
	// gh pr create resolves the label's name before it creates anything and
	// stops with "could not add label: 'burl' not found" where the
	// repository has no such label: burl then creates the pull request
	// without it rather than create labels in the user's repository.
	args := []string{"pr", "create", "--repo", g.repo, "--base", r.Base, "--head", r.Branch,
		"--title", r.Title, "--body-file", "-"}
	out, err = g.cli.run(r.Body, append(args, "--label", "burl")...)
	var ce *cliError
	if errors.As(err, &ce) && strings.Contains(ce.Stderr, "could not add label") {
		out, err = g.cli.run(r.Body, args...)
	}
	if errors.As(err, &ce) {
		// Opened meanwhile: "a pull request for branch "B" into branch
		// "main" already exists:\nURL".
		if n := ghNumber(ce.Stderr); n > 0 && strings.Contains(ce.Stderr, "already exists") {
			return g.edit(n, r)
		}
	}
	if err != nil {
		return PR{}, err
	}
	n := ghNumber(string(out))
	if n == 0 {
		return PR{}, fmt.Errorf("gh pr create: no pull request URL in its answer %q", strings.TrimSpace(string(out)))
	}
	return g.Get(n)
}

// edit updates pull request n: its title, body and base (a stacked task's
// request moves from its parent's branch to main so; gh pr edit --base).
func (g *gitHub) edit(n int, r Request) (PR, error) {
	if _, err := g.cli.run(r.Body, "pr", "edit", strconv.Itoa(n), "--repo", g.repo,
		"--title", r.Title, "--base", r.Base, "--body-file", "-"); err != nil {
		return PR{}, err
	}
	p, err := g.Get(n)
	p.WasOpen = true
	return p, err
}

var ghPullRe = regexp.MustCompile(`https?://\S+/pull/(\d+)`)

// ghNumber is the number of the last pull request URL in text.
func ghNumber(text string) int {
	m := ghPullRe.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

func (g *gitHub) ListOpen() ([]PR, error) {
	out, err := g.cli.run("", "pr", "list", "--repo", g.repo, "--state", "open", "--limit", "1000",
		"--json", "number,url,headRefName,headRefOid,updatedAt,reviewDecision,statusCheckRollup")
	if err != nil {
		return nil, err
	}
	var list []ghPR
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("gh pr list: unexpected answer: %v", err)
	}
	prs := make([]PR, 0, len(list))
	for _, p := range list {
		p.State = "OPEN"
		prs = append(prs, p.pr())
	}
	return prs, nil
}

func (g *gitHub) Get(number int) (PR, error) {
	out, err := g.cli.run("", "pr", "view", strconv.Itoa(number), "--repo", g.repo, "--json", ghPRFields)
	if err != nil {
		return PR{}, err
	}
	var p ghPR
	if err := json.Unmarshal(out, &p); err != nil {
		return PR{}, fmt.Errorf("gh pr view: unexpected answer: %v", err)
	}
	if p.Number == 0 {
		return PR{}, fmt.Errorf("gh pr view %d: the answer names no pull request", number)
	}
	return p.pr(), nil
}

type ghAuthor struct {
	Login string `json:"login"`
}

type ghReview struct {
	Author      ghAuthor   `json:"author"`
	Body        string     `json:"body"`
	State       string     `json:"state"` // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
	SubmittedAt *time.Time `json:"submittedAt"`
	Commit      struct {
		Oid string `json:"oid"`
	} `json:"commit"`
}

type ghComment struct {
	Author    ghAuthor  `json:"author"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"createdAt"`
}

// Feedback reads a pull request's reviews and comments in one call. A
// review asks for changes when it is its author's latest deciding review
// (APPROVED, CHANGES_REQUESTED or DISMISSED: a later plain comment decides
// nothing, as on GitHub) and it was made on the current head (a push since
// makes it stale).
func (g *gitHub) Feedback(pr PR) (Feedback, error) {
	out, err := g.cli.run("", "pr", "view", strconv.Itoa(pr.Number), "--repo", g.repo,
		"--json", "reviews,comments,headRefOid")
	if err != nil {
		return Feedback{}, err
	}
	var v struct {
		Reviews    []ghReview  `json:"reviews"`
		Comments   []ghComment `json:"comments"`
		HeadRefOid string      `json:"headRefOid"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return Feedback{}, fmt.Errorf("gh pr view: unexpected answer: %v", err)
	}
	head := v.HeadRefOid
	if head == "" {
		head = pr.Head
	}
	reviews := v.Reviews
	sort.SliceStable(reviews, func(i, j int) bool { return ghWhen(reviews[i]).Before(ghWhen(reviews[j])) })
	latest := map[string]int{} // author → index of the deciding review
	var order []string
	for i, r := range reviews {
		switch r.State {
		case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
			if _, seen := latest[r.Author.Login]; !seen {
				order = append(order, r.Author.Login)
			}
			latest[r.Author.Login] = i
		}
	}
	var fb Feedback
	var asks []string
	for _, who := range order {
		r := reviews[latest[who]]
		if r.State == "CHANGES_REQUESTED" && r.Commit.Oid == head {
			fb.ChangesRequested = true
			if b := strings.TrimSpace(r.Body); b != "" {
				asks = append(asks, b)
			}
		}
	}
	if len(asks) > 0 {
		fb.Text = strings.Join(asks, "\n\n")
		return fb, nil
	}
	// Else the last review or comment that says something.
	var when time.Time
	for _, r := range reviews {
		if t := ghWhen(r); strings.TrimSpace(r.Body) != "" && r.State != "PENDING" && !t.Before(when) {
			when, fb.Text = t, strings.TrimSpace(r.Body)
		}
	}
	for _, c := range v.Comments {
		if strings.TrimSpace(c.Body) != "" && !c.CreatedAt.Before(when) {
			when, fb.Text = c.CreatedAt, strings.TrimSpace(c.Body)
		}
	}
	return fb, nil
}

func ghWhen(r ghReview) time.Time {
	if r.SubmittedAt == nil {
		return time.Time{}
	}
	return *r.SubmittedAt
}

// Merge asks GitHub to merge pr once its required checks pass (gh's
// --auto), and only while its head is still pr.Head.
func (g *gitHub) Merge(pr PR, style string) error {
	var flag string
	switch style {
	case "rebase", "squash", "merge":
		flag = "--" + style
	default:
		return fmt.Errorf("pr_merge_style %q: expected rebase, squash or merge", style)
	}
	if pr.Head == "" {
		return fmt.Errorf("gh pr merge %d: no head commit to merge at", pr.Number)
	}
	_, err := g.cli.run("", "pr", "merge", strconv.Itoa(pr.Number), "--repo", g.repo,
		"--auto", flag, "--match-head-commit", pr.Head)
	return err
}
