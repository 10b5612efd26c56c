package gitea

// The gitea provider against httptest servers: its HTTP boundary, answered
// the way Gitea 1.27 answers (the real server that bats/forge_gitea.bats
// and contrib/bench/forge.sh run against): 405 "Please try again later"
// while a pull request is re-checked, 201 for an edit, X-Total-Count on
// lists, the PullReview fields stale, dismissed, commit_id, comments_count.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/gitx"
)

const giteaToken = "s3cret-gitea-token-0123456789"

// seen is one request the fake forge received.
type seen struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
}

// fakeGitea is a Gitea API on loopback: route answers "METHOD /path" (the
// path under /api/v1, without the query); every request is recorded.
type fakeGitea struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []seen
	route func(w http.ResponseWriter, r *http.Request, body string)
}

func newFakeGitea(t *testing.T, route func(w http.ResponseWriter, r *http.Request, body string)) *fakeGitea {
	t.Helper()
	f := &fakeGitea{t: t, route: route}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(b)})
		f.mu.Unlock()
		if !strings.HasPrefix(r.URL.Path, "/api/v1/") {
			http.Error(w, "not the API", http.StatusNotFound)
			return
		}
		f.route(w, r, string(b))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitea) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

// provider is the gitea provider for owner/repo on f, with BURL_FORGE_TOKEN set.
func (f *fakeGitea) provider() *gitea {
	f.t.Helper()
	f.t.Setenv("BURL_FORGE_TOKEN", giteaToken)
	u, _ := url.Parse(f.srv.URL)
	p, err := newGitea(forge.Remote{Scheme: "http", Host: u.Host, Owner: "owner", Name: "repo"}, "", gitx.Git{})
	if err != nil {
		f.t.Fatal(err)
	}
	return p.(*gitea)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// pr is a PullRequest object as Gitea returns it (the fields burl reads,
// and a few it does not).
func pr(n int, branch, head string) map[string]any {
	return map[string]any{
		"number":     n,
		"html_url":   fmt.Sprintf("http://forge.invalid/owner/repo/pulls/%d", n),
		"state":      "open",
		"merged":     false,
		"updated_at": "2026-11-24T10:00:00Z",
		"title":      fmt.Sprintf("PR %d", n),
		"head":       map[string]any{"ref": branch, "sha": head, "label": branch},
		"base":       map[string]any{"ref": "main"},
	}
}

const (
	giteaHead  = "1111111111111111111111111111111111111111"
	giteaOther = "2222222222222222222222222222222222222222"
)

var giteaRequest = forge.Request{Branch: "task-007-fix-login", Base: "main", Head: giteaHead, Title: "TASK-007: Fix login", Body: "## Objective\nlogin\n"}

func TestGiteaOpenCreatesWhenNoOpenPRHasTheBranch(t *testing.T) {
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v1/repos/owner/repo/pulls":
			w.Header().Set("X-Total-Count", "1")
			writeJSON(w, 200, []any{pr(3, "task-003-other", giteaOther)})
		case "GET /api/v1/repos/owner/repo/labels":
			writeJSON(w, 200, []any{map[string]any{"id": 2, "name": "bug"}})
		case "POST /api/v1/repos/owner/repo/labels":
			writeJSON(w, 201, map[string]any{"id": 5, "name": "burl"})
		case "POST /api/v1/repos/owner/repo/pulls":
			writeJSON(w, 201, pr(4, giteaRequest.Branch, giteaHead))
		default:
			http.Error(w, "unexpected", http.StatusTeapot)
		}
	})
	got, err := f.provider().Open(giteaRequest)
	if err != nil {
		t.Fatal(err)
	}
	if got.Number != 4 || got.Branch != giteaRequest.Branch || got.Head != giteaHead || got.State != "open" {
		t.Errorf("Open = %+v, want #4 on %s at %s", got, giteaRequest.Branch, giteaHead)
	}
	reqs := f.requests()
	var paths []string
	for _, r := range reqs {
		paths = append(paths, r.Method+" "+strings.TrimPrefix(r.Path, "/api/v1/repos/owner/repo"))
	}
	if strings.Join(paths, ", ") != "GET /pulls, GET /labels, POST /labels, POST /pulls" {
		t.Fatalf("requests = %v, want the open list, the labels, the burl label made, then the pull request", paths)
	}
	var body struct {
		Title, Body, Head, Base string
		Labels                  []int64
	}
	if err := json.Unmarshal([]byte(reqs[3].Body), &body); err != nil {
		t.Fatal(err)
	}
	if body.Title != giteaRequest.Title || body.Body != giteaRequest.Body || body.Head != giteaRequest.Branch || body.Base != "main" || len(body.Labels) != 1 || body.Labels[0] != 5 {
		t.Errorf("POST body = %+v", body)
	}
	if reqs[3].Header.Get("Content-Type") != "application/json" {
		t.Errorf("POST Content-Type = %q", reqs[3].Header.Get("Content-Type"))
	}
}

func TestGiteaOpenWithoutLabelsStillOpens(t *testing.T) {
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v1/repos/owner/repo/pulls":
			writeJSON(w, 200, []any{})
		case "POST /api/v1/repos/owner/repo/pulls":
			writeJSON(w, 201, pr(1, giteaRequest.Branch, giteaHead))
		default:
			http.Error(w, "forbidden", http.StatusForbidden)
		}
	})
	if got, err := f.provider().Open(giteaRequest); err != nil || got.Number != 1 || got.WasOpen {
		t.Fatalf("Open = %+v, %v", got, err)
	}
	reqs := f.requests()
	if last := reqs[len(reqs)-1]; last.Method != "POST" || strings.Contains(last.Body, "labels") {
		t.Errorf("last request %s %s %s, want the pull request without labels", last.Method, last.Path, last.Body)
	}
}

func TestGiteaOpenUpdatesTheOpenPRForTheBranch(t *testing.T) {
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v1/repos/owner/repo/pulls":
			w.Header().Set("X-Total-Count", "2")
			writeJSON(w, 200, []any{pr(3, "task-003-other", giteaOther), pr(7, giteaRequest.Branch, giteaOther)})
		case "PATCH /api/v1/repos/owner/repo/pulls/7":
			// Gitea answers an edit with 201.
			writeJSON(w, 201, pr(7, giteaRequest.Branch, giteaHead))
		default:
			http.Error(w, "unexpected", http.StatusTeapot)
		}
	})
	got, err := f.provider().Open(giteaRequest)
	if err != nil {
		t.Fatal(err)
	}
	if got.Number != 7 || got.Head != giteaHead || !got.WasOpen {
		t.Errorf("Open = %+v, want #7 at the pushed head, WasOpen", got)
	}
	reqs := f.requests()
	if len(reqs) != 2 || reqs[1].Method != "PATCH" || reqs[1].Path != "/api/v1/repos/owner/repo/pulls/7" {
		t.Fatalf("requests = %v, want the open list then PATCH #7 (no second pull request)", reqs)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(reqs[1].Body), &body); err != nil {
		t.Fatal(err)
	}
	if body["title"] != giteaRequest.Title || body["body"] != giteaRequest.Body {
		t.Errorf("PATCH body = %v, want the title and body", body)
	}
	if _, ok := body["head"]; ok {
		t.Errorf("PATCH body = %v: an edit does not name the head", body)
	}
}

func TestGiteaOpenRetargetsAStackedRequestToMain(t *testing.T) {
	// A stacked task's request targets its parent's branch; once the
	// parent merged, approve opens it again onto main: the same request,
	// its base changed (DESIGN §26).
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v1/repos/owner/repo/pulls":
			stacked := pr(8, giteaRequest.Branch, giteaOther)
			stacked["base"] = map[string]any{"ref": "task-001-parent"}
			writeJSON(w, 200, []any{stacked})
		case "PATCH /api/v1/repos/owner/repo/pulls/8":
			writeJSON(w, 201, pr(8, giteaRequest.Branch, giteaHead))
		default:
			http.Error(w, "unexpected", http.StatusTeapot)
		}
	})
	got, err := f.provider().Open(giteaRequest)
	if err != nil {
		t.Fatal(err)
	}
	if got.Number != 8 || !got.WasOpen {
		t.Errorf("Open = %+v, want #8 updated, onto main", got)
	}
	reqs := f.requests()
	if len(reqs) != 2 || reqs[1].Method != "PATCH" {
		t.Fatalf("requests = %v, want the open list then PATCH #8", reqs)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(reqs[1].Body), &body); err != nil {
		t.Fatal(err)
	}
	if body["base"] != "main" {
		t.Errorf("PATCH body = %v, want base main", body)
	}
}

func TestGiteaMergeKeepsABranchOthersAreStackedOn(t *testing.T) {
	for _, keep := range []bool{false, true} {
		f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
			w.WriteHeader(200)
		})
		if err := f.provider().Merge(forge.PR{Number: 9, Head: giteaHead, KeepBranch: keep}, "squash"); err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(f.requests()[0].Body), &body); err != nil {
			t.Fatal(err)
		}
		if body["delete_branch_after_merge"] != !keep {
			t.Errorf("KeepBranch %v: merge body = %v, want delete_branch_after_merge %v", keep, body, !keep)
		}
	}
}

// listing is a forge with total open pull requests, answering pages by
// limit and page; total < 0 leaves X-Total-Count out.
func listing(total int, header bool) func(w http.ResponseWriter, r *http.Request, body string) {
	return func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method != "GET" || r.URL.Path != "/api/v1/repos/owner/repo/pulls" || r.URL.Query().Get("state") != "open" {
			http.Error(w, "unexpected", http.StatusTeapot)
			return
		}
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if limit <= 0 || limit > 50 {
			limit = 50 // Gitea's MAX_RESPONSE_ITEMS
		}
		if page <= 0 {
			page = 1
		}
		out := []any{}
		for n := (page-1)*limit + 1; n <= total && n <= page*limit; n++ {
			out = append(out, pr(n, fmt.Sprintf("task-%03d", n), giteaHead))
		}
		if header {
			w.Header().Set("X-Total-Count", strconv.Itoa(total))
		}
		writeJSON(w, 200, out)
	}
}

func TestGiteaListOpenPages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		total  int
		header bool
		pages  int
	}{
		{"none", 0, true, 1},
		{"a few", 3, true, 1},
		{"exactly one page, counted", 50, true, 1},
		{"exactly one page, no count", 50, false, 2},
		{"three pages", 120, true, 3},
		{"two full pages, counted", 100, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitea(t, listing(tc.total, tc.header))
			got, err := f.provider().ListOpen()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.total {
				t.Fatalf("ListOpen gave %d pull requests, want %d", len(got), tc.total)
			}
			for i, p := range got {
				if p.Number != i+1 || p.Branch != fmt.Sprintf("task-%03d", i+1) || p.Updated == "" {
					t.Fatalf("ListOpen[%d] = %+v", i, p)
				}
			}
			reqs := f.requests()
			if len(reqs) != tc.pages {
				t.Fatalf("%d requests, want %d: %v", len(reqs), tc.pages, reqs)
			}
			for i, r := range reqs {
				q, _ := url.ParseQuery(r.Query)
				if q.Get("limit") != "50" || q.Get("page") != strconv.Itoa(i+1) || q.Get("state") != "open" {
					t.Errorf("request %d query = %q, want state=open limit=50 page=%d", i, r.Query, i+1)
				}
			}
		})
	}
}

func TestGiteaRateLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		header string
		body   string
		// limited: a *forge.RateLimited with this Retry; else an *HTTPError.
		limited bool
		retry   time.Duration
	}{
		{"429 with Retry-After seconds", 429, "30", `{"message":"too many requests"}`, true, 30 * time.Second},
		{"429 without Retry-After", 429, "", ``, true, 0},
		{"403 saying rate limit", 403, "", `{"message":"API rate limit exceeded for 127.0.0.1"}`, true, 0},
		{"403 with Retry-After", 403, "12", `{"message":"slow down"}`, true, 12 * time.Second},
		{"403 without either", 403, "", `{"message":"token does not have at least one of required scope(s): [write:repository]"}`, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
				if tc.header != "" {
					w.Header().Set("Retry-After", tc.header)
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			_, err := f.provider().ListOpen()
			var rl *forge.RateLimited
			var he *HTTPError
			switch {
			case tc.limited:
				if !errors.As(err, &rl) {
					t.Fatalf("err = %T %v, want *forge.RateLimited", err, err)
				}
				if rl.Retry != tc.retry {
					t.Errorf("Retry = %s, want %s", rl.Retry, tc.retry)
				}
				if rl.Forge != "gitea" {
					t.Errorf("Forge = %q", rl.Forge)
				}
			default:
				if !errors.As(err, &he) {
					t.Fatalf("err = %T %v, want *HTTPError", err, err)
				}
				if he.Status != 403 || !strings.Contains(he.Message, "required scope") {
					t.Errorf("HTTPError = %+v, want 403 with the forge's message", he)
				}
				if errors.As(err, &rl) {
					t.Errorf("a 403 that is no rate limit was taken for one")
				}
			}
		})
	}
}

func TestGiteaRetryAfterDate(t *testing.T) {
	at := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.Header().Set("Retry-After", at)
		w.WriteHeader(429)
	})
	_, err := f.provider().ListOpen()
	var rl *forge.RateLimited
	if !errors.As(err, &rl) {
		t.Fatalf("err = %v, want *forge.RateLimited", err)
	}
	if rl.Retry < 80*time.Second || rl.Retry > 91*time.Second {
		t.Errorf("Retry = %s, want about 90s", rl.Retry)
	}
}

func TestGiteaMergeRetriesTryAgainLater(t *testing.T) {
	var n int
	var mu sync.Mutex
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method != "POST" || r.URL.Path != "/api/v1/repos/owner/repo/pulls/9/merge" {
			http.Error(w, "unexpected", http.StatusTeapot)
			return
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k <= 2 {
			writeJSON(w, 405, map[string]string{"message": "Please try again later", "url": "http://forge.invalid/api/swagger"})
			return
		}
		w.WriteHeader(200) // Gitea's merge answers 200 with an empty body
	})
	g := f.provider()
	g.wait = 5 * time.Second
	if err := g.Merge(forge.PR{Number: 9, Head: giteaHead}, "rebase"); err != nil {
		t.Fatalf("Merge = %v, want success after two 405s", err)
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d merge requests, want 3", len(reqs))
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(reqs[2].Body), &body); err != nil {
		t.Fatal(err)
	}
	if body["Do"] != "rebase" || body["head_commit_id"] != giteaHead || body["merge_when_checks_succeed"] != true {
		t.Errorf("merge body = %v, want Do=rebase at the reviewed head when checks succeed", body)
	}
}

func TestGiteaMergeGivesUpOnOther405s(t *testing.T) {
	for _, tc := range []struct {
		status  int
		message string
	}{
		{405, "Not allowed to merge: the pull request has conflicts"},
		{405, "pull request is not mergeable: head commit does not match"},
		// Only the 405 Gitea answers while it re-checks is retried.
		{409, "Please try again later"},
	} {
		t.Run(fmt.Sprintf("%d %s", tc.status, tc.message), func(t *testing.T) {
			f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
				writeJSON(w, tc.status, map[string]string{"message": tc.message})
			})
			g := f.provider()
			g.wait = 5 * time.Second
			err := g.Merge(forge.PR{Number: 9, Head: giteaHead}, "merge")
			var he *HTTPError
			if !errors.As(err, &he) || he.Status != tc.status || he.Message != tc.message {
				t.Fatalf("Merge = %v, want the %d with its message", err, tc.status)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("%d merge requests, want 1: only 405 'try again later' is retried", n)
			}
		})
	}
}

func TestGiteaMergeTryAgainLaterHasADeadline(t *testing.T) {
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		writeJSON(w, 405, map[string]string{"message": "Please try again later"})
	})
	g := f.provider()
	g.wait = 700 * time.Millisecond
	start := time.Now()
	err := g.Merge(forge.PR{Number: 9, Head: giteaHead}, "merge")
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 405 {
		t.Fatalf("Merge = %v, want the last 405 once the wait is over", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Merge retried for %s past a %s wait", d, g.wait)
	}
	if n := len(f.requests()); n < 2 {
		t.Errorf("%d merge requests, want retries", n)
	}
}

func TestGiteaUnauthorizedNeverShowsTheToken(t *testing.T) {
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		writeJSON(w, 401, map[string]string{"message": "token is required"})
	})
	_, err := f.provider().ListOpen()
	if err == nil {
		t.Fatal("401 gave no error")
	}
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 401 {
		t.Fatalf("err = %T %v, want *HTTPError 401", err, err)
	}
	msg := err.Error()
	if strings.Contains(msg, giteaToken) {
		t.Errorf("error text holds the token: %s", msg)
	}
	if !strings.Contains(msg, "BURL_FORGE_TOKEN") {
		t.Errorf("error text does not say BURL_FORGE_TOKEN: %s", msg)
	}
}

func TestGiteaTokenOnlyInTheAuthorizationHeader(t *testing.T) {
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v1/repos/owner/repo/pulls":
			writeJSON(w, 200, []any{})
		case "POST /api/v1/repos/owner/repo/pulls":
			writeJSON(w, 201, pr(1, giteaRequest.Branch, giteaHead))
		case "GET /api/v1/repos/owner/repo/pulls/1":
			writeJSON(w, 200, pr(1, giteaRequest.Branch, giteaHead))
		case "POST /api/v1/repos/owner/repo/pulls/1/merge":
			w.WriteHeader(200)
		default:
			http.Error(w, "unexpected", http.StatusTeapot)
		}
	})
	g := f.provider()
	if _, err := g.Open(giteaRequest); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Get(1); err != nil {
		t.Fatal(err)
	}
	if err := g.Merge(forge.PR{Number: 1, Head: giteaHead}, "squash"); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	// The list, the labels (refused here), the pull request, the Get, the merge.
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	for _, r := range reqs {
		if got := r.Header.Get("Authorization"); got != "token "+giteaToken {
			t.Errorf("%s %s: Authorization = %q, want %q", r.Method, r.Path, got, "token "+giteaToken)
		}
		if strings.Contains(r.Path+"?"+r.Query, giteaToken) || strings.Contains(r.Body, giteaToken) {
			t.Errorf("%s %s: the token is in the URL or body", r.Method, r.Path)
		}
		for k, vs := range r.Header {
			if k == "Authorization" {
				continue
			}
			for _, v := range vs {
				if strings.Contains(v, giteaToken) {
					t.Errorf("%s %s: the token is in header %s", r.Method, r.Path, k)
				}
			}
		}
	}
}

// review is a PullReview object as Gitea returns it.
func review(id int, user, state, body, commit, at string) map[string]any {
	return map[string]any{
		"id": id, "user": map[string]any{"login": user}, "state": state, "body": body,
		"commit_id": commit, "stale": false, "dismissed": false, "official": true,
		"submitted_at": at, "comments_count": 0,
	}
}

func comment(user, body, at string) map[string]any {
	return map[string]any{"user": map[string]any{"login": user}, "body": body, "created_at": at, "updated_at": at}
}

// feedbackForge answers the reviews of pull request 5, their line
// comments, and its issue comments.
func feedbackForge(t *testing.T, reviews []map[string]any, lineComments map[int][]any, comments []any) *fakeGitea {
	return newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		p := strings.TrimPrefix(r.URL.Path, "/api/v1/repos/owner/repo")
		switch {
		case r.Method == "GET" && p == "/pulls/5/reviews":
			writeJSON(w, 200, reviews)
		case r.Method == "GET" && strings.HasPrefix(p, "/pulls/5/reviews/") && strings.HasSuffix(p, "/comments"):
			id, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/pulls/5/reviews/"), "/comments"))
			cs, ok := lineComments[id]
			if !ok {
				http.Error(w, `{"message":"no such review"}`, 404)
				return
			}
			writeJSON(w, 200, cs)
		case r.Method == "GET" && p == "/issues/5/comments":
			writeJSON(w, 200, comments)
		default:
			http.Error(w, "unexpected", http.StatusTeapot)
		}
	})
}

func TestGiteaFeedbackChangesRequested(t *testing.T) {
	stale := review(2, "bob", "REQUEST_CHANGES", "bob: old head", giteaHead, "2026-11-24T10:02:00Z")
	stale["stale"] = true
	dismissed := review(3, "carol", "REQUEST_CHANGES", "carol: dismissed", giteaHead, "2026-11-24T10:03:00Z")
	dismissed["dismissed"] = true
	withLines := review(5, "erin", "REQUEST_CHANGES", "Please handle the empty password.", giteaHead, "2026-11-24T10:05:00Z")
	withLines["comments_count"] = 2
	reviews := []map[string]any{
		// alice asked for changes, then approved: her last verdict wins.
		review(1, "alice", "REQUEST_CHANGES", "alice: withdrawn", giteaHead, "2026-11-24T10:01:00Z"),
		stale,
		dismissed,
		// dave's request is on another commit than the head approved.
		review(4, "dave", "REQUEST_CHANGES", "dave: other commit", giteaOther, "2026-11-24T10:04:00Z"),
		withLines,
		review(6, "alice", "APPROVED", "", giteaHead, "2026-11-24T10:06:00Z"),
		// A plain comment review after erin's verdict does not replace it.
		review(7, "erin", "COMMENT", "erin: just a note", giteaHead, "2026-11-24T10:07:00Z"),
	}
	lines := map[int][]any{5: {
		map[string]any{"body": "check len(pw) == 0", "path": "src/login.go", "position": 12, "created_at": "2026-11-24T10:05:00Z", "user": map[string]any{"login": "erin"}},
		map[string]any{"body": "and a test", "path": "src/login_test.go", "position": 3, "created_at": "2026-11-24T10:05:00Z", "user": map[string]any{"login": "erin"}},
	}}
	f := feedbackForge(t, reviews, lines, []any{comment("zed", "a later comment", "2026-11-24T11:00:00Z")})
	fb, err := f.provider().Feedback(forge.PR{Number: 5, Head: giteaHead})
	if err != nil {
		t.Fatal(err)
	}
	if !fb.ChangesRequested {
		t.Fatalf("forge.Feedback = %+v, want changes requested (erin)", fb)
	}
	for _, want := range []string{"erin: Please handle the empty password.", "src/login.go: check len(pw) == 0", "src/login_test.go: and a test"} {
		if !strings.Contains(fb.Text, want) {
			t.Errorf("Text = %q, want it to hold %q", fb.Text, want)
		}
	}
	for _, not := range []string{"alice", "bob", "carol", "dave", "just a note", "a later comment"} {
		if strings.Contains(fb.Text, not) {
			t.Errorf("Text = %q holds %q, which asks for nothing on this head", fb.Text, not)
		}
	}
}

func TestGiteaFeedbackLatestVerdictPerReviewer(t *testing.T) {
	// Listed out of order: the verdict submitted last is the one that
	// counts, whatever the order of the list.
	for _, tc := range []struct {
		name    string
		reviews []map[string]any
		want    bool
	}{
		{"approved after asking", []map[string]any{
			review(2, "alice", "APPROVED", "fine now", giteaHead, "2026-11-24T10:09:00Z"),
			review(1, "alice", "REQUEST_CHANGES", "not yet", giteaHead, "2026-11-24T10:01:00Z"),
		}, false},
		{"asked after approving", []map[string]any{
			review(1, "alice", "REQUEST_CHANGES", "on second thought, no", giteaHead, "2026-11-24T10:09:00Z"),
			review(2, "alice", "APPROVED", "ok", giteaHead, "2026-11-24T10:01:00Z"),
		}, true},
		{"another reviewer's approval does not withdraw it", []map[string]any{
			review(1, "alice", "REQUEST_CHANGES", "no", giteaHead, "2026-11-24T10:01:00Z"),
			review(2, "bob", "APPROVED", "yes", giteaHead, "2026-11-24T10:09:00Z"),
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := feedbackForge(t, tc.reviews, nil, []any{})
			fb, err := f.provider().Feedback(forge.PR{Number: 5, Head: giteaHead})
			if err != nil {
				t.Fatal(err)
			}
			if fb.ChangesRequested != tc.want {
				t.Errorf("ChangesRequested = %v, want %v (%+v)", fb.ChangesRequested, tc.want, fb)
			}
		})
	}
}

func TestGiteaFeedbackLastWordWhenNoChangesAreRequested(t *testing.T) {
	stale := review(2, "bob", "REQUEST_CHANGES", "bob: on the old head", giteaOther, "2026-11-24T10:02:00Z")
	stale["stale"] = true
	reviews := []map[string]any{
		review(1, "alice", "APPROVED", "alice: looks good", giteaHead, "2026-11-24T10:01:00Z"),
		stale,
	}
	comments := []any{
		comment("carol", "first comment", "2026-11-24T10:00:00Z"),
		comment("reviewer", "We do not jump on Mondays.", "2026-11-24T10:30:00Z"),
		comment("dave", "   ", "2026-11-24T10:40:00Z"), // blank: said nothing
	}
	f := feedbackForge(t, reviews, nil, comments)
	fb, err := f.provider().Feedback(forge.PR{Number: 5, Head: giteaHead})
	if err != nil {
		t.Fatal(err)
	}
	if fb.ChangesRequested {
		t.Errorf("ChangesRequested with only an approval and a stale request: %+v", fb)
	}
	if fb.Text != "reviewer: We do not jump on Mondays." {
		t.Errorf("Text = %q, want the last comment", fb.Text)
	}

	// A review body said after every comment is the last word.
	reviews = append(reviews, review(3, "erin", "COMMENT", "erin: closing, superseded", giteaHead, "2026-11-24T11:00:00Z"))
	f = feedbackForge(t, reviews, nil, comments)
	fb, err = f.provider().Feedback(forge.PR{Number: 5, Head: giteaHead})
	if err != nil {
		t.Fatal(err)
	}
	if fb.Text != "erin: erin: closing, superseded" {
		t.Errorf("Text = %q, want erin's review, the last word", fb.Text)
	}
}

// credentialRepo is a real repository whose git config names a `store`
// credential helper holding token for the forge at hostport; git reads no
// user or system config.
func credentialRepo(t *testing.T, hostport, token string) gitx.Git {
	t.Helper()
	dir := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	g := gitx.In(dir)
	g.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull}
	if _, err := g.Run("init", "-q"); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(store, []byte("http://burl:"+token+"@"+hostport+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Run("config", "credential.helper", "store --file="+store); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGiteaCredential(t *testing.T) {
	var auth []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		writeJSON(w, 200, []any{})
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	g := credentialRepo(t, u.Host, "helper-token")
	provider := func() forge.Provider {
		p, err := newGitea(forge.Remote{Scheme: "http", Host: u.Host, Owner: "owner", Name: "repo"}, "", g)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	last := func() string { mu.Lock(); defer mu.Unlock(); return auth[len(auth)-1] }

	t.Run("BURL_FORGE_TOKEN wins", func(t *testing.T) {
		t.Setenv("BURL_FORGE_TOKEN", "env-token")
		if _, err := provider().ListOpen(); err != nil {
			t.Fatal(err)
		}
		if got := last(); got != "token env-token" {
			t.Errorf("Authorization = %q, want the environment's token", got)
		}
	})
	t.Run("git's credential helper for the host", func(t *testing.T) {
		t.Setenv("BURL_FORGE_TOKEN", "")
		if _, err := provider().ListOpen(); err != nil {
			t.Fatal(err)
		}
		if got := last(); got != "token helper-token" {
			t.Errorf("Authorization = %q, want the helper's token", got)
		}
	})
	t.Run("no token anywhere: asked once, and the error says how", func(t *testing.T) {
		t.Setenv("BURL_FORGE_TOKEN", "")
		// A helper that counts how often it is asked and knows nothing.
		count := filepath.Join(t.TempDir(), "asked")
		other := gitx.In(t.TempDir())
		other.Env = g.Env
		if _, err := other.Run("init", "-q"); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Run("config", "credential.helper", "!f() { echo asked >>'"+count+"'; }; f"); err != nil {
			t.Fatal(err)
		}
		p, err := newGitea(forge.Remote{Scheme: "http", Host: u.Host, Owner: "owner", Name: "repo"}, "", other)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		before := len(auth)
		mu.Unlock()
		for i := 0; i < 3; i++ {
			_, err = p.ListOpen()
			if err == nil || !strings.Contains(err.Error(), "BURL_FORGE_TOKEN") {
				t.Fatalf("ListOpen = %v, want an error naming BURL_FORGE_TOKEN", err)
			}
		}
		mu.Lock()
		after := len(auth)
		mu.Unlock()
		if after != before {
			t.Errorf("%d requests were sent without a token", after-before)
		}
		b, _ := os.ReadFile(count)
		if n := strings.Count(string(b), "asked"); n != 1 {
			t.Errorf("the credential helper was asked %d times, want once per provider", n)
		}
	})
}

func TestGiteaAPIBase(t *testing.T) {
	for _, tc := range []struct {
		r        forge.Remote
		forgeURL string
		want     string
	}{
		{forge.Remote{Scheme: "https", Host: "codeberg.org", Owner: "o", Name: "n"}, "", "https://codeberg.org/api/v1"},
		{forge.Remote{Scheme: "ssh", Host: "git.example.com", Owner: "o", Name: "n"}, "", "https://git.example.com/api/v1"},
		{forge.Remote{Scheme: "http", Host: "127.0.0.1:3000", Prefix: "gitea", Owner: "o", Name: "n"}, "", "http://127.0.0.1:3000/gitea/api/v1"},
		{forge.Remote{Scheme: "ssh", Host: "git.example.com", Owner: "o", Name: "n"}, "https://forge.example.com/", "https://forge.example.com/api/v1"},
		{forge.Remote{Scheme: "ssh", Host: "git.example.com", Owner: "o", Name: "n"}, "https://forge.example.com/api/v1", "https://forge.example.com/api/v1"},
	} {
		p, err := newGitea(tc.r, tc.forgeURL, gitx.Git{})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.(*gitea).api; got != tc.want {
			t.Errorf("newGitea(%+v, %q).api = %q, want %q", tc.r, tc.forgeURL, got, tc.want)
		}
	}
}

// A pull request opened right after the repository's first push: Gitea
// answers 404 to pull request calls until it has taken the push in (its
// repository says "empty": true); Open waits for that, then opens.
func TestGiteaOpenWaitsForTheFirstPushToBeTakenIn(t *testing.T) {
	defer func(p time.Duration) { emptyPoll = p }(emptyPoll)
	emptyPoll = time.Millisecond
	var mu sync.Mutex
	empty := 3 // the repository reads empty this many more times
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		mu.Lock()
		defer mu.Unlock()
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v1/repos/owner/repo":
			writeJSON(w, 200, map[string]any{"name": "repo", "empty": empty > 0})
			empty--
		case "GET /api/v1/repos/owner/repo/pulls":
			if empty >= 0 {
				writeJSON(w, 404, map[string]any{"message": "not found"})
				return
			}
			writeJSON(w, 200, []any{})
		case "GET /api/v1/repos/owner/repo/labels":
			writeJSON(w, 200, []any{map[string]any{"id": 5, "name": "burl"}})
		case "POST /api/v1/repos/owner/repo/pulls":
			writeJSON(w, 201, pr(1, giteaRequest.Branch, giteaHead))
		default:
			http.Error(w, "unexpected", http.StatusTeapot)
		}
	})
	got, err := f.provider().Open(giteaRequest)
	if err != nil {
		t.Fatalf("Open right after the first push: %v", err)
	}
	if got.Number != 1 {
		t.Errorf("Open = %+v, want #1", got)
	}
}

// A repository Gitea does not know is the 404 it is: Open says so after
// one look at the repository, without waiting.
func TestGiteaOpenOnAMissingRepositoryFails(t *testing.T) {
	f := newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, body string) {
		writeJSON(w, 404, map[string]any{"message": "not found"})
	})
	start := time.Now()
	_, err := f.provider().Open(giteaRequest)
	if err == nil || !strings.Contains(err.Error(), "answered 404") {
		t.Fatalf("Open = %v, want the 404", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Open took %s on a missing repository", d)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want the list and one look at the repository", n)
	}
}
