// Package forge lands tasks through a forge's pull requests (DESIGN §17):
// the providers (GitHub, GitLab) behind one interface, and their checks.
package forge

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// PR is one pull (merge) request as a provider reports it.
type PR struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
	Branch string `json:"branch"` // the head branch's name
	Head   string `json:"head"`   // the head commit
	// State is open, closed (without merge) or merged.
	State string `json:"state"`
	// MergedSHA is the commit on the base branch the forge says holds the
	// work, when it says (empty for open and closed pull requests).
	MergedSHA string `json:"merged_sha,omitempty"`
	// Updated changes whenever anything on the pull request does (a
	// review, a comment, a push): settle asks for the reviews of a pull
	// request only when it moved since the last round.
	Updated string `json:"updated,omitempty"`
	// Checks is the state of the forge's checks on the head where the
	// listing gives it: pending, success, failure, or empty.
	Checks string `json:"checks,omitempty"`
	// ChecksStamp changes whenever a check on the head does, where the
	// listing carries the checks (GitHub): a round reads the checks of a
	// pull request whose stamp did not move from memory. Empty where the
	// listing does not carry them.
	ChecksStamp string `json:"-"`
	// ChangesRequested is set where the listing itself says a review asks
	// for changes (GitHub's reviewDecision); other providers leave it to
	// Feedback.
	ChangesRequested bool `json:"changes_requested,omitempty"`
	// WasOpen is set by Open when the pull request was open already for
	// the branch and was updated, not opened (say so: "updated").
	WasOpen bool `json:"-"`
	// KeepBranch is the caller's, for Merge: the head branch stays after
	// the merge (requests stacked on it target it until burl has
	// retargeted them; a forge that closes the requests of a deleted base
	// would close them).
	KeepBranch bool `json:"-"`
}

// Request is what approve opens a pull request with.
type Request struct {
	Branch string // head branch, already pushed
	// Base is the branch it targets: main, or the parent's branch for a
	// task stacked on a parent whose request is open (DESIGN §26).
	Base  string
	Head  string // the commit pushed to Branch (merge only that one)
	Title string
	Body  string
}

// Feedback is what reviewers said on a pull request.
type Feedback struct {
	// ChangesRequested: a review on the current head (not dismissed, not
	// made stale by a later push) asks for changes.
	ChangesRequested bool
	// Text is the reason a task goes back with: the bodies of the reviews
	// asking for changes, or else the last review or comment.
	Text string
}

// Provider is one forge's pull requests. One value serves one repository.
type Provider interface {
	// Name is github, gitlab or gitea.
	Name() string
	// Open opens a pull request for r.Branch onto r.Base, or updates the
	// one already open for that branch (title, body, and its base: a
	// stacked task's request is retargeted to main so), and returns it
	// (with WasOpen set when it updated one).
	Open(r Request) (PR, error)
	// ListOpen lists the repository's open pull requests in one request.
	ListOpen() ([]PR, error)
	// Get reads one pull request, for those that left the open list.
	Get(number int) (PR, error)
	// Feedback reads the reviews and comments of an open or closed pull
	// request. For an open one without changes requested, Text may be left
	// empty: nothing is sent back, and a provider may save the request.
	Feedback(pr PR) (Feedback, error)
	// Merge asks the forge to merge pr (only at pr.Head) in style rebase,
	// squash or merge once its checks pass.
	Merge(pr PR, style string) error
}

// Ready reports whether p can work at all (its command-line tool is
// installed), so approve can say so before it pushes anything.
func Ready(p Provider) error {
	if r, ok := p.(interface{ Ready() error }); ok {
		return r.Ready()
	}
	return nil
}

// RateLimited is a forge's answer that too many requests were made
// (HTTP 403/429 with Retry-After or an exhausted rate limit).
type RateLimited struct {
	Forge string
	Retry time.Duration // how long the forge asked to wait; 0 if it did not say
}

func (e *RateLimited) Error() string {
	if e.Retry > 0 {
		return fmt.Sprintf("%s: rate limited; retry after %s", e.Forge, e.Retry.Round(time.Second))
	}
	return e.Forge + ": rate limited"
}

// Remote is a git remote's URL taken apart: the forge's host and the
// repository's path on it.
type Remote struct {
	Scheme string // https, http, or ssh
	Host   string // with its port, if any
	Prefix string // a path before owner/name (a forge served under a subpath)
	Owner  string // owner, or for GitLab the group path
	Name   string
}

// Slug is owner/name.
func (r Remote) Slug() string { return r.Owner + "/" + r.Name }

// ParseRemote understands https://host[/prefix]/owner/name(.git),
// ssh://[user@]host[:port]/owner/name(.git) and scp-like user@host:owner/name(.git).
func ParseRemote(raw string) (Remote, error) {
	s := strings.TrimSpace(raw)
	bad := fmt.Errorf("cannot tell the forge's repository from the remote URL %q: expected https://HOST/OWNER/NAME or git@HOST:OWNER/NAME", raw)
	var r Remote
	var path string
	if i := strings.Index(s, "://"); i >= 0 {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return Remote{}, bad
		}
		r.Scheme, r.Host, path = u.Scheme, u.Host, u.Path
		if r.Scheme == "ssh" || r.Scheme == "git+ssh" {
			r.Scheme, r.Host = "ssh", u.Hostname()
		}
	} else if at := strings.Index(s, ":"); at > 0 && !strings.Contains(s[:at], "/") {
		host := s[:at]
		if j := strings.LastIndex(host, "@"); j >= 0 {
			host = host[j+1:]
		}
		r.Scheme, r.Host, path = "ssh", host, s[at+1:]
	} else {
		return Remote{}, bad
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	parts := strings.Split(path, "/")
	if len(parts) < 2 || parts[len(parts)-1] == "" || parts[len(parts)-2] == "" {
		return Remote{}, bad
	}
	r.Name = parts[len(parts)-1]
	r.Owner = parts[len(parts)-2]
	if len(parts) > 2 {
		r.Prefix = strings.Join(parts[:len(parts)-2], "/")
	}
	return r, nil
}

// Detect names the forge a remote is on when config.yaml does not: GitHub
// and GitLab by their host names, everything else is taken for Gitea or
// Forgejo (self-hosted, Codeberg).
func Detect(r Remote) string {
	h := strings.ToLower(r.Host)
	switch {
	case strings.Contains(h, "github"):
		return "github"
	case strings.Contains(h, "gitlab"):
		return "gitlab"
	}
	return "gitea"
}
