package forge

// GitLab (gitlab.com and self-managed) through the GitLab CLI, glab: its
// login holds the credentials (`glab auth login`); burl passes none. The
// JSON is GitLab's REST API merge request and note objects, which glab
// prints as they come (`--output json`, `glab api`).
//
// Flags are those of glab's documentation (docs/source/mr/*.md,
// docs/source/api/_index.md in gitlab-org/cli):
//   - glab mr create takes its description only in argv (--description),
//     so a merge request is created and updated through `glab api` with a
//     JSON body on stdin (--input -): the body never reaches argv, and
//     nothing in it is taken for one of glab's field conversions.
//   - glab mr merge sets auto-merge by default (--auto-merge, "default
//     true"; --when-pipeline-succeeds in older glab, also on by default), so
//     neither flag is passed and both generations of glab understand the
//     call. glab's --rebase asks GitLab to rebase the source branch before
//     merging, which writes a new head the --sha guard then refuses; the
//     branch burl pushes is already on top of main, so style rebase passes
//     no flag and GitLab merges with the project's merge method.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

type gitLab struct {
	cli     *cli
	project string // group/subgroup/name
	host    string // for glab api --hostname
}

// newGitLab serves the repository r. The project's path is every part of
// the remote's path (GitLab groups nest). forgeURL, when set, is the
// instance's URL (https://gitlab.example.com, optionally under a relative
// URL root and with /api/v4): its host names the instance and its path is
// not part of the project's.
func newGitLab(r Remote, forgeURL string) (Provider, error) {
	if r.Owner == "" || r.Name == "" {
		return nil, fmt.Errorf("forge: gitlab: the remote names no GROUP/NAME")
	}
	host := strings.ToLower(r.Host)
	glHost := host
	project := strings.Join(nonEmpty(r.Prefix, r.Owner, r.Name), "/")
	if forgeURL != "" {
		u, err := url.Parse(forgeURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("forge_url %q: expected the GitLab instance's URL, https://HOST", forgeURL)
		}
		host = strings.ToLower(u.Host)
		glHost = host
		root := strings.Trim(strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/api/v4"), "/")
		if root != "" {
			// A relative URL root: glab takes the instance as a URL.
			project = strings.TrimPrefix(project, root+"/")
			glHost = u.Scheme + "://" + host + "/" + root
		}
	}
	g := &gitLab{project: project, host: host, cli: &cli{
		tool:  "glab",
		forge: "gitlab",
		hint:  "landing: pr with forge: gitlab uses the GitLab CLI, logged in with `glab auth login`",
	}}
	if host != "" && host != "gitlab.com" {
		g.cli.env = []string{"GITLAB_HOST=" + glHost}
	}
	if host == "" {
		g.host = "gitlab.com"
	}
	return g, nil
}

func nonEmpty(parts ...string) []string {
	var out []string
	for _, p := range parts {
		if p = strings.Trim(p, "/"); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Ready is forge.Ready: the tool is installed.
func (g *gitLab) Ready() error { return g.cli.ready() }

func (g *gitLab) Name() string { return "gitlab" }

// glMR is a GitLab merge request (the REST API's object).
type glMR struct {
	IID                 int    `json:"iid"`
	WebURL              string `json:"web_url"`
	State               string `json:"state"` // opened, closed, merged, locked
	SourceBranch        string `json:"source_branch"`
	SHA                 string `json:"sha"`
	MergeCommitSHA      string `json:"merge_commit_sha"`
	SquashCommitSHA     string `json:"squash_commit_sha"`
	UpdatedAt           string `json:"updated_at"`
	DetailedMergeStatus string `json:"detailed_merge_status"`
	Author              struct {
		Username string `json:"username"`
	} `json:"author"`
	HeadPipeline *struct {
		Status string `json:"status"`
	} `json:"head_pipeline"`
}

func (m glMR) pr() PR {
	out := PR{
		Number:  m.IID,
		URL:     m.WebURL,
		Branch:  m.SourceBranch,
		Head:    m.SHA,
		Updated: m.UpdatedAt,
		// GitLab ≥ 16.x: a reviewer's "Request changes" blocks the merge
		// with this status.
		ChangesRequested: m.DetailedMergeStatus == "requested_changes",
	}
	switch m.State {
	case "merged":
		out.State = "merged"
		// A merge commit, else the squash commit, else (the project
		// fast-forwards) the head itself is what main holds.
		out.MergedSHA = firstOf(m.MergeCommitSHA, m.SquashCommitSHA, m.SHA)
	case "closed":
		out.State = "closed"
	default: // opened, locked (a merge under way)
		out.State = "open"
	}
	if m.HeadPipeline != nil {
		switch m.HeadPipeline.Status {
		case "success", "skipped":
			out.Checks = "success"
		case "failed", "canceled":
			out.Checks = "failure"
		case "":
		default: // created, waiting_for_resource, preparing, pending, running, manual, scheduled
			out.Checks = "pending"
		}
	}
	return out
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func (g *gitLab) api() string { return "projects/" + url.PathEscape(g.project) }

func (g *gitLab) Open(r Request) (PR, error) {
	out, err := g.cli.run("", "mr", "list", "--repo", g.project, "--source-branch", r.Branch,
		"--output", "json")
	if err != nil {
		return PR{}, err
	}
	var open []glMR
	if err := json.Unmarshal(out, &open); err != nil {
		return PR{}, fmt.Errorf("glab mr list: unexpected answer: %v", err)
	}
	var body []byte
	method, endpoint := "POST", g.api()+"/merge_requests"
	for _, m := range open {
		if m.SourceBranch == r.Branch && m.State == "opened" {
			// target_branch too: a stacked task's request moves from its
			// parent's branch to main so (glab mr update --target-branch's
			// field).
			method, endpoint = "PUT", endpoint+"/"+strconv.Itoa(m.IID)
			body, err = json.Marshal(map[string]string{"title": r.Title, "description": r.Body, "target_branch": r.Base})
			break
		}
	}
	if method == "POST" {
		// GitLab creates a label named in a new merge request that the
		// project does not have yet, so "burl" never fails the create.
		body, err = json.Marshal(map[string]string{
			"source_branch": r.Branch, "target_branch": r.Base,
			"title": r.Title, "description": r.Body, "labels": "burl",
		})
	}
	if err != nil {
		return PR{}, err
	}
	out, err = g.cli.run(string(body), "api", "--hostname", g.host, "--method", method,
		"--header", "Content-Type: application/json", "--input", "-", endpoint)
	if err != nil {
		return PR{}, err
	}
	var m glMR
	if err := json.Unmarshal(out, &m); err != nil || m.IID == 0 {
		return PR{}, fmt.Errorf("glab api %s %s: unexpected answer %q", method, endpoint, clip(out))
	}
	p := m.pr()
	p.WasOpen = method == "PUT"
	if p.Head == "" {
		p.Head = r.Head // GitLab fills sha in asynchronously on a new merge request
	}
	return p, nil
}

func clip(b []byte) string {
	s := string(bytes.TrimSpace(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// ListOpen lists the open merge requests, up to GitLab's largest page
// (100): one that is not on it is read with Get like one that left the
// list. GitLab's listing carries no pipeline, so Checks stays empty.
func (g *gitLab) ListOpen() ([]PR, error) {
	out, err := g.cli.run("", "mr", "list", "--repo", g.project, "--output", "json", "--per-page", "100")
	if err != nil {
		return nil, err
	}
	var list []glMR
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("glab mr list: unexpected answer: %v", err)
	}
	prs := make([]PR, 0, len(list))
	for _, m := range list {
		if m.State != "opened" && m.State != "locked" {
			continue
		}
		prs = append(prs, m.pr())
	}
	return prs, nil
}

func (g *gitLab) view(number int) (glMR, error) {
	out, err := g.cli.run("", "mr", "view", strconv.Itoa(number), "--repo", g.project, "--output", "json")
	if err != nil {
		return glMR{}, err
	}
	var m glMR
	if err := json.Unmarshal(out, &m); err != nil {
		return glMR{}, fmt.Errorf("glab mr view: unexpected answer: %v", err)
	}
	if m.IID == 0 {
		return glMR{}, fmt.Errorf("glab mr view %d: the answer names no merge request", number)
	}
	return m, nil
}

func (g *gitLab) Get(number int) (PR, error) {
	m, err := g.view(number)
	if err != nil {
		return PR{}, err
	}
	return m.pr(), nil
}

type glNote struct {
	Body   string `json:"body"`
	System bool   `json:"system"`
	Author struct {
		Username string `json:"username"`
	} `json:"author"`
	CreatedAt string `json:"created_at"`
}

// Feedback: GitLab has no review state on a note. A merge request asks for
// changes when GitLab says so (detailed_merge_status requested_changes,
// GitLab ≥ 16.x, set by a reviewer's "Request changes"), or when the latest
// comment from someone other than its author has a line starting with
// /request_changes (the quick action, which a GitLab without it leaves in
// the text). Text is that comment, else the last comment; GitLab's own
// system notes ("added 1 commit") are not comments.
func (g *gitLab) Feedback(pr PR) (Feedback, error) {
	m, err := g.view(pr.Number)
	if err != nil {
		return Feedback{}, err
	}
	out, err := g.cli.run("", "api", "--hostname", g.host,
		g.api()+"/merge_requests/"+strconv.Itoa(pr.Number)+"/notes?sort=desc&order_by=created_at&per_page=100")
	if err != nil {
		return Feedback{}, err
	}
	var notes []glNote
	if err := json.Unmarshal(out, &notes); err != nil {
		return Feedback{}, fmt.Errorf("glab api notes: unexpected answer: %v", err)
	}
	fb := Feedback{ChangesRequested: m.DetailedMergeStatus == "requested_changes"}
	var last, lastOther *glNote
	for i := range notes { // newest first
		n := &notes[i]
		if n.System || strings.TrimSpace(n.Body) == "" {
			continue
		}
		if last == nil {
			last = n
		}
		if lastOther == nil && n.Author.Username != m.Author.Username {
			lastOther = n
		}
	}
	if lastOther != nil && asksChanges(lastOther.Body) {
		fb.ChangesRequested = true
	}
	switch {
	case fb.ChangesRequested && lastOther != nil:
		fb.Text = strings.TrimSpace(lastOther.Body)
	case last != nil:
		fb.Text = strings.TrimSpace(last.Body)
	}
	return fb, nil
}

func asksChanges(body string) bool {
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "/request_changes") {
			return true
		}
	}
	return false
}

// Merge asks GitLab to merge pr when its pipeline succeeds (glab's default
// auto-merge), and only at pr.Head (--sha).
func (g *gitLab) Merge(pr PR, style string) error {
	args := []string{"mr", "merge", strconv.Itoa(pr.Number), "--repo", g.project, "--yes"}
	switch style {
	case "squash":
		args = append(args, "--squash")
	case "rebase", "merge":
		// The project's merge method; see the comment at the top.
	default:
		return fmt.Errorf("pr_merge_style %q: expected rebase, squash or merge", style)
	}
	if pr.Head == "" {
		return fmt.Errorf("glab mr merge %d: no head commit to merge at", pr.Number)
	}
	_, err := g.cli.run("", append(args, "--sha", pr.Head)...)
	return err
}
