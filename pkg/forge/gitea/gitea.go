// Package gitea is the forge provider for Gitea and Forgejo, over their
// REST API with net/http. It registers itself with pkg/forge; only the
// binaries that talk to a forge (approve, sync) import it, so the others
// carry no HTTP client.
package gitea

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/gitx"
)

func init() { forge.Register("gitea", newGitea) }

// gitea speaks Gitea's (and Forgejo's) REST API over net/http. The token
// comes from BURL_FORGE_TOKEN or git's credential helper for the API's
// host, and travels only in the Authorization header.
type gitea struct {
	git    gitx.Git // asks git's credential helper
	api    string   // https://host/api/v1
	repo   string   // /repos/owner/name
	client *http.Client
	token  string
	// tokenErr is remembered: a credential helper that has no token is
	// asked once per command, not once per request.
	tokenErr error
	asked    bool
	// wait is how long a 405 "try again later" is retried (Gitea answers it
	// while it re-checks a pull request after its base moved).
	wait time.Duration
	// mu guards the token asked once and requiredBy: a settle round reads
	// several heads' checks at once.
	mu sync.Mutex
	// requiredBy caches each base branch's required status contexts.
	requiredBy map[string][]string
}

func newGitea(r forge.Remote, forgeURL string, git gitx.Git) (forge.Provider, error) {
	api := forgeURL
	if api == "" {
		scheme := r.Scheme
		if scheme == "ssh" {
			scheme = "https"
		}
		api = scheme + "://" + r.Host
		if r.Prefix != "" {
			api += "/" + r.Prefix
		}
	}
	api = strings.TrimSuffix(api, "/")
	if !strings.HasSuffix(api, "/api/v1") {
		api += "/api/v1"
	}
	return &gitea{
		git:    git,
		api:    api,
		repo:   "/repos/" + url.PathEscape(r.Owner) + "/" + url.PathEscape(r.Name),
		client: &http.Client{Timeout: 30 * time.Second},
		wait:   10 * time.Second,
	}, nil
}

func (g *gitea) Name() string { return "gitea" }

// giteaPR is the part of Gitea's PullRequest object burl reads.
type giteaPR struct {
	Number  int    `json:"number"`
	HTMLURL string `json:"html_url"`
	State   string `json:"state"`
	Merged  bool   `json:"merged"`
	MergeSH string `json:"merge_commit_sha"`
	Updated string `json:"updated_at"`
	// Counted into the change stamp too: updated_at has whole seconds, and
	// a review within the second a round read the list would be missed.
	Comments       int `json:"comments"`
	ReviewComments int `json:"review_comments"`
	Head           struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"head"`
}

func (p giteaPR) pr() forge.PR {
	out := forge.PR{Number: p.Number, URL: p.HTMLURL, Branch: p.Head.Ref, Head: p.Head.SHA, State: p.State,
		Updated: fmt.Sprintf("%s c%d r%d", p.Updated, p.Comments, p.ReviewComments)}
	if p.Merged {
		out.State, out.MergedSHA = "merged", p.MergeSH
	}
	return out
}

func (g *gitea) Open(r forge.Request) (forge.PR, error) {
	open, err := g.ListOpen()
	var he *HTTPError
	if asHTTP(err, &he) && he.Status == http.StatusNotFound && g.takenIn() {
		open, err = g.ListOpen()
	}
	if err != nil {
		return forge.PR{}, err
	}
	for _, p := range open {
		if p.Branch == r.Branch {
			// The base too: a stacked task's request moves from its
			// parent's branch to main so (Gitea changes it only when it
			// differs).
			var got giteaPR
			if err := g.do("PATCH", g.repo+"/pulls/"+strconv.Itoa(p.Number), map[string]any{"title": r.Title, "body": r.Body, "base": r.Base}, &got); err != nil {
				return forge.PR{}, err
			}
			pr := got.pr()
			pr.WasOpen = true
			return pr, nil
		}
	}
	req := map[string]any{"title": r.Title, "body": r.Body, "head": r.Branch, "base": r.Base}
	if id, ok := g.label(); ok {
		req["labels"] = []int64{id}
	}
	var got giteaPR
	err = g.do("POST", g.repo+"/pulls", req, &got)
	return got.pr(), err
}

// emptyWait bounds how long Open waits for Gitea to take in a
// repository's first push; emptyPoll is how often it asks.
var emptyWait, emptyPoll = 15 * time.Second, 250 * time.Millisecond

// takenIn waits until Gitea no longer calls the repository empty. After
// its first push Gitea marks it so only once its hook's work is done,
// after the push returned, and until then every pull request call answers
// 404 (forge/NOTES.md): an approve right after the first push meets that.
// It reports whether the repository is not empty (a 404 then was that
// window, or is the forge's real answer, which asking again repeats).
func (g *gitea) takenIn() bool {
	deadline := time.Now().Add(emptyWait)
	for {
		var repo struct {
			Empty bool `json:"empty"`
		}
		if err := g.do("GET", g.repo, nil, &repo); err != nil {
			return false
		}
		if !repo.Empty {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(emptyPoll)
	}
}

// label is the repository's "burl" label, made when missing, which marks
// the pull requests burl opened. Best effort: a token that may not manage
// labels still opens the request, unlabelled.
func (g *gitea) label() (int64, bool) {
	var labels []struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	if err := g.do("GET", g.repo+"/labels?limit=50", nil, &labels); err != nil {
		return 0, false
	}
	for _, l := range labels {
		if l.Name == "burl" {
			return l.ID, true
		}
	}
	var made struct {
		ID int64 `json:"id"`
	}
	if err := g.do("POST", g.repo+"/labels", map[string]any{"name": "burl", "color": "#5319e7", "description": "opened by git burl approve"}, &made); err != nil || made.ID == 0 {
		return 0, false
	}
	return made.ID, true
}

// ListOpen pages through the open pull requests; Gitea's default page
// limit is 50, and X-Total-Count says when one page was all of them.
func (g *gitea) ListOpen() ([]forge.PR, error) {
	const limit = 50
	var out []forge.PR
	for page := 1; ; page++ {
		var prs []giteaPR
		h, err := g.request("GET", fmt.Sprintf("%s/pulls?state=open&limit=%d&page=%d", g.repo, limit, page), nil, &prs)
		if err != nil {
			return nil, err
		}
		for _, p := range prs {
			out = append(out, p.pr())
		}
		total, terr := strconv.Atoi(h.Get("X-Total-Count"))
		if len(prs) < limit || (terr == nil && len(out) >= total) {
			return out, nil
		}
	}
}

func (g *gitea) Get(number int) (forge.PR, error) {
	var p giteaPR
	err := g.do("GET", g.repo+"/pulls/"+strconv.Itoa(number), nil, &p)
	return p.pr(), err
}

type giteaReview struct {
	ID        int64  `json:"id"`
	State     string `json:"state"`
	Body      string `json:"body"`
	CommitID  string `json:"commit_id"`
	Stale     bool   `json:"stale"`
	Dismissed bool   `json:"dismissed"`
	Submitted string `json:"submitted_at"`
	Comments  int    `json:"comments_count"`
	User      struct {
		Login string `json:"login"`
	} `json:"user"`
}

type giteaComment struct {
	Body    string `json:"body"`
	Path    string `json:"path"`
	Line    int    `json:"position"`
	Created string `json:"created_at"`
	User    struct {
		Login string `json:"login"`
	} `json:"user"`
}

func (g *gitea) Feedback(pr forge.PR) (forge.Feedback, error) {
	var reviews []giteaReview
	if err := g.do("GET", g.repo+"/pulls/"+strconv.Itoa(pr.Number)+"/reviews", nil, &reviews); err != nil {
		return forge.Feedback{}, err
	}
	var fb forge.Feedback
	var asks []string
	for _, r := range latestPerReviewer(reviews) {
		if r.State != "REQUEST_CHANGES" || r.Stale || r.Dismissed || (pr.Head != "" && r.CommitID != "" && r.CommitID != pr.Head) {
			continue
		}
		fb.ChangesRequested = true
		text := strings.TrimSpace(r.Body)
		if r.Comments > 0 {
			var cs []giteaComment
			if err := g.do("GET", fmt.Sprintf("%s/pulls/%d/reviews/%d/comments", g.repo, pr.Number, r.ID), nil, &cs); err != nil {
				return forge.Feedback{}, err
			}
			for _, c := range cs {
				text += fmt.Sprintf("\n%s: %s", c.Path, strings.TrimSpace(c.Body))
			}
		}
		asks = append(asks, fmt.Sprintf("%s: %s", r.User.Login, strings.TrimSpace(text)))
	}
	if fb.ChangesRequested || pr.State == "open" {
		// An open request nobody asked changes on goes nowhere: its last
		// comment is not needed, and not asked for.
		fb.Text = strings.Join(asks, "\n")
		return fb, nil
	}
	// The last word said on it: a review with a body, or a comment.
	var comments []giteaComment
	if err := g.do("GET", g.repo+"/issues/"+strconv.Itoa(pr.Number)+"/comments", nil, &comments); err != nil {
		return forge.Feedback{}, err
	}
	last, at := "", ""
	for _, r := range reviews {
		if strings.TrimSpace(r.Body) != "" && r.Submitted >= at {
			last, at = r.User.Login+": "+strings.TrimSpace(r.Body), r.Submitted
		}
	}
	for _, c := range comments {
		if strings.TrimSpace(c.Body) != "" && c.Created >= at {
			last, at = c.User.Login+": "+strings.TrimSpace(c.Body), c.Created
		}
	}
	fb.Text = last
	return fb, nil
}

// latestPerReviewer keeps each reviewer's last submitted verdict: a
// reviewer who asked for changes and then approved no longer asks.
func latestPerReviewer(rs []giteaReview) []giteaReview {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Submitted < rs[j].Submitted })
	last := map[string]int{}
	var order []string
	for i, r := range rs {
		if r.State == "COMMENT" || r.State == "PENDING" || r.State == "REQUEST_REVIEW" {
			continue
		}
		if _, ok := last[r.User.Login]; !ok {
			order = append(order, r.User.Login)
		}
		last[r.User.Login] = i
	}
	out := make([]giteaReview, 0, len(order))
	for _, u := range order {
		out = append(out, rs[last[u]])
	}
	return out
}

func (g *gitea) Merge(pr forge.PR, style string) error { return g.merge(pr, style, true) }

// MergeNow is forge.MergePassed's: a merge at pr.Head now, not scheduled
// (Gitea's scheduled merge takes whatever the head is when it runs, some
// seconds later).
func (g *gitea) MergeNow(pr forge.PR, style string) error { return g.merge(pr, style, false) }

func (g *gitea) merge(pr forge.PR, style string, whenChecks bool) error {
	// A branch other requests are stacked on stays: Gitea closes (or,
	// by its setting, retargets) the requests whose base it deletes, and
	// burl deletes it once it has retargeted them itself.
	body := map[string]any{"Do": style, "merge_when_checks_succeed": whenChecks, "head_commit_id": pr.Head, "delete_branch_after_merge": !pr.KeepBranch}
	deadline := time.Now().Add(g.wait)
	for {
		err := g.do("POST", g.repo+"/pulls/"+strconv.Itoa(pr.Number)+"/merge", body, nil)
		var he *HTTPError
		if err == nil || !asHTTP(err, &he) || he.Status != http.StatusMethodNotAllowed || !strings.Contains(strings.ToLower(he.Message), "try again") || time.Now().After(deadline) {
			return err
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// HTTPError is a forge's refusal of a REST request. Message is the forge's
// own, never the request's headers.
type HTTPError struct {
	Forge, Method, URL string
	Status             int
	Message            string
}

func (e *HTTPError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	s := fmt.Sprintf("%s: %s %s answered %d: %s", e.Forge, e.Method, e.URL, e.Status, msg)
	if e.Status == http.StatusUnauthorized {
		s += " (set BURL_FORGE_TOKEN to an access token with the write:repository scope, or store one in git's credential helper for this host)"
	}
	return s
}

func asHTTP(err error, he **HTTPError) bool {
	e, ok := err.(*HTTPError)
	if ok {
		*he = e
	}
	return ok
}

func (g *gitea) do(method, path string, in, out any) error {
	_, err := g.request(method, path, in, out)
	return err
}

func (g *gitea) request(method, path string, in, out any) (http.Header, error) {
	h, data, err := g.send(method, path, in)
	if err != nil {
		return nil, err
	}
	if out != nil && len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return nil, fmt.Errorf("gitea: %s %s%s: the answer is not the JSON expected: %w", method, g.api, path, err)
		}
	}
	return h, nil
}

// raw is a request whose answer is text (a log), not JSON.
func (g *gitea) raw(method, path string) (string, error) {
	_, data, err := g.send(method, path, nil)
	return string(data), err
}

func (g *gitea) send(method, path string, in any) (http.Header, []byte, error) {
	tok, err := g.credential()
	if err != nil {
		return nil, nil, err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, nil, err
		}
		body = bytes.NewReader(b)
	}
	u := g.api + path
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "token "+tok)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := g.client.Do(req)
	if err != nil {
		// net/http's errors name the URL, which holds no secret.
		return nil, nil, fmt.Errorf("gitea: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("gitea: reading the answer to %s %s: %w", method, u, err)
	}
	if rl := rateLimit(resp, data); rl != nil {
		return nil, nil, rl
	}
	if resp.StatusCode/100 != 2 {
		var m struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(data, &m)
		if m.Message == "" {
			m.Message = strings.TrimSpace(string(data))
			if len(m.Message) > 200 {
				m.Message = m.Message[:200] + "…"
			}
		}
		return nil, nil, &HTTPError{Forge: "gitea", Method: method, URL: u, Status: resp.StatusCode, Message: m.Message}
	}
	return resp.Header, data, nil
}

// rateLimit recognises 429, and a 403 that says it is a rate limit.
func rateLimit(resp *http.Response, data []byte) *forge.RateLimited {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusForbidden {
		return nil
	}
	retry := resp.Header.Get("Retry-After")
	if resp.StatusCode == http.StatusForbidden && retry == "" && !strings.Contains(strings.ToLower(string(data)), "rate limit") {
		return nil
	}
	rl := &forge.RateLimited{Forge: "gitea"}
	if s, err := strconv.Atoi(retry); err == nil {
		rl.Retry = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(retry); err == nil {
		rl.Retry = time.Until(t)
	}
	return rl
}

// credential is BURL_FORGE_TOKEN, or the password git's credential helper
// holds for the API's host (asked without a terminal prompt: an unattended
// watch must not hang on one).
func (g *gitea) credential() (string, error) {
	if t := os.Getenv("BURL_FORGE_TOKEN"); t != "" {
		return t, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.asked {
		return g.token, g.tokenErr
	}
	g.asked = true
	u, err := url.Parse(g.api)
	if err != nil {
		g.tokenErr = err
		return "", err
	}
	git := g.git
	git.Env = append(git.Env[:len(git.Env):len(git.Env)], "GIT_ASKPASS=", "SSH_ASKPASS=")
	out, err := git.RunInput([]byte("protocol="+u.Scheme+"\nhost="+u.Host+"\n\n"), "credential", "fill")
	if err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(line, "password="); ok && v != "" {
				g.token = v
				return v, nil
			}
		}
	}
	g.tokenErr = fmt.Errorf("no token for the Gitea API at %s: set BURL_FORGE_TOKEN, or store one in git's credential helper for %s", g.api, u.Host)
	return "", g.tokenErr
}
