package forge

// The recorded gh answers under testdata/ are gh's `--json` output as
// cli/cli (commit 44ee177, Oct 2024) prints it, written for these tests
// from these documents:
//   - gh_pr_list_*.json, gh_pr_view_{open,closed,merged}.json: the field
//     names of api/query_builder.go (PullRequestFields: number, url, state,
//     headRefName, headRefOid, mergeCommit, updatedAt, reviewDecision,
//     statusCheckRollup); mergeCommit as {"oid"} (query_builder.go
//     `mergeCommit{oid}`); state OPEN/CLOSED/MERGED as in
//     pkg/cmd/pr/view/fixtures/prViewPreviewMergedState.json and
//     prViewPreviewClosedState.json; statusCheckRollup flattened to a list
//     of CheckRun {status, conclusion} and StatusContext {state} as
//     api/export_pr.go does and api/export_pr_test.go ("status checks")
//     expects; null when a head has no checks (export_pr.go).
//   - gh_pr_view_feedback_*.json: reviews and comments as api/export_pr.go
//     exports them (the nodes of api/queries_pr_review.go PullRequestReview:
//     author.login, body, state, submittedAt, commit.oid; and of
//     api/queries_comments.go Comment: author.login, body, createdAt), the
//     review states of pkg/cmd/pr/view/fixtures/prViewPreviewReviews.json.
//   - gh_pr_create.txt: what `gh pr create` prints on success, the pull
//     request's URL (pkg/cmd/pr/create/create_test.go expectedOut).
// The failing answers' stderr is gh's own text: "could not add label: %w"
// (pkg/cmd/pr/shared/params.go) with "'%s' not found"
// (api/queries_repo.go); "a pull request for branch %q into branch %q
// already exists:\n%s" (pkg/cmd/pr/create/create.go); GitHub's "API rate
// limit exceeded" message as gh prints an HTTP error ("HTTP 403: ...").

import (
	"errors"
	"strings"
	"testing"
)

const ghHead = "6a6872b918c601a0e730710ad8473938a7516d30"

func ghRemote() Remote {
	return Remote{Scheme: "https", Host: "github.com", Owner: "OWNER", Name: "REPO"}
}

func newTestGitHub(t *testing.T) Provider {
	t.Helper()
	p, err := newGitHub(ghRemote(), "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var ghRequest = Request{
	Branch: "burl/t7-fix-login", Base: "main", Head: ghHead,
	Title: "Fix login",
	Body:  "## Task\nThe login form accepts an empty password.\n\n## QA\nall gates passed\n",
}

func TestGitHubOpenCreates(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("pr-list", "gh_pr_list_head_none.json")
	f.answer("pr-create", "gh_pr_create.txt")
	f.answer("pr-view", "gh_pr_view_open.json")
	pr, err := newTestGitHub(t).Open(ghRequest)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.expectCalls(
		[]string{"gh", "pr", "list", "--repo", "OWNER/REPO", "--state", "open", "--head", "burl/t7-fix-login",
			"--json", "number,url,headRefName,headRefOid,updatedAt"},
		[]string{"gh", "pr", "create", "--repo", "OWNER/REPO", "--base", "main", "--head", "burl/t7-fix-login",
			"--title", "Fix login", "--body-file", "-", "--label", "burl"},
		[]string{"gh", "pr", "view", "12", "--repo", "OWNER/REPO",
			"--json", "number,url,state,headRefName,headRefOid,mergeCommit,updatedAt"},
	)
	if calls[1].Stdin != ghRequest.Body {
		t.Errorf("create's stdin = %q, want the body", calls[1].Stdin)
	}
	if calls[0].Stdin != "" || calls[2].Stdin != "" {
		t.Errorf("list/view were given stdin")
	}
	if calls[1].Env["GH_HOST"] != "" {
		t.Errorf("GH_HOST = %q on github.com", calls[1].Env["GH_HOST"])
	}
	want := PR{Number: 12, URL: "https://github.com/OWNER/REPO/pull/12", Branch: "burl/t7-fix-login",
		Head: ghHead, State: "open", Updated: "2020-01-26T19:06:38Z"}
	if pr != want {
		t.Errorf("pr = %+v\nwant %+v", pr, want)
	}
}

func TestGitHubOpenCreatesWithoutAMissingLabel(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("pr-list", "gh_pr_list_head_none.json")
	f.fail("pr-create", 1, 1, "could not add label: 'burl' not found\n")
	f.answerNth("pr-create", 2, "gh_pr_create.txt")
	f.answer("pr-view", "gh_pr_view_open.json")
	pr, err := newTestGitHub(t).Open(ghRequest)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.calls()
	if len(calls) != 4 {
		t.Fatalf("%d calls, want list, create, create, view", len(calls))
	}
	first, second := strings.Join(calls[1].Args, " "), strings.Join(calls[2].Args, " ")
	if !strings.HasSuffix(first, "--body-file - --label burl") || strings.Contains(second, "--label") {
		t.Errorf("creates: %q then %q; want with the label, then without", first, second)
	}
	if calls[2].Stdin != ghRequest.Body {
		t.Errorf("second create's stdin = %q", calls[2].Stdin)
	}
	if pr.Number != 12 {
		t.Errorf("pr = %+v", pr)
	}
}

func TestGitHubOpenEditsTheOpenOne(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("pr-list", "gh_pr_list_head_one.json")
	f.answer("pr-view", "gh_pr_view_open.json")
	pr, err := newTestGitHub(t).Open(ghRequest)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.expectCalls(
		[]string{"gh", "pr", "list", "--repo", "OWNER/REPO", "--state", "open", "--head", "burl/t7-fix-login",
			"--json", "number,url,headRefName,headRefOid,updatedAt"},
		[]string{"gh", "pr", "edit", "12", "--repo", "OWNER/REPO", "--title", "Fix login", "--base", "main", "--body-file", "-"},
		[]string{"gh", "pr", "view", "12", "--repo", "OWNER/REPO",
			"--json", "number,url,state,headRefName,headRefOid,mergeCommit,updatedAt"},
	)
	if calls[1].Stdin != ghRequest.Body {
		t.Errorf("edit's stdin = %q, want the body", calls[1].Stdin)
	}
	if pr.Number != 12 || pr.State != "open" || pr.Head != ghHead || !pr.WasOpen {
		t.Errorf("pr = %+v (WasOpen: it was open already)", pr)
	}
}

func TestGitHubOpenRaceAlreadyExists(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("pr-list", "gh_pr_list_head_none.json")
	f.fail("pr-create", 0, 1, "a pull request for branch \"burl/t7-fix-login\" into branch \"main\" already exists:\nhttps://github.com/OWNER/REPO/pull/12\n")
	f.answer("pr-view", "gh_pr_view_open.json")
	pr, err := newTestGitHub(t).Open(ghRequest)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.calls()
	if n := len(calls); n != 4 || calls[2].Args[1] != "edit" || calls[2].Args[2] != "12" {
		t.Fatalf("calls = %+v; want list, create, edit 12, view", calls)
	}
	if pr.Number != 12 {
		t.Errorf("pr = %+v", pr)
	}
}

func TestGitHubEnterprise(t *testing.T) {
	for _, tc := range []struct {
		remote   Remote
		forgeURL string
		repo     string
		host     string
	}{
		{Remote{Scheme: "ssh", Host: "git.corp.example", Owner: "team", Name: "app"}, "", "git.corp.example/team/app", "git.corp.example"},
		{Remote{Scheme: "ssh", Host: "ssh.corp.example", Owner: "team", Name: "app"}, "https://GHE.corp.example/api/v3", "ghe.corp.example/team/app", "ghe.corp.example"},
		{Remote{Scheme: "ssh", Host: "github.com", Owner: "team", Name: "app"}, "", "team/app", ""},
	} {
		f := newFakeCLI(t)
		f.answer("pr-list", "gh_pr_list_head_none.json")
		p, err := newGitHub(tc.remote, tc.forgeURL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.ListOpen(); err != nil {
			t.Fatal(err)
		}
		c := f.calls()[0]
		if c.Args[3] != tc.repo || c.Env["GH_HOST"] != tc.host {
			t.Errorf("%+v %q: --repo %q GH_HOST %q; want %q, %q", tc.remote, tc.forgeURL, c.Args[3], c.Env["GH_HOST"], tc.repo, tc.host)
		}
	}
	if _, err := newGitHub(Remote{Host: "github.com", Owner: "o", Name: "n"}, "::bad"); err == nil {
		t.Error("a forge_url without a host was taken")
	}
}

func TestGitHubListOpen(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("pr-list", "gh_pr_list_open.json")
	prs, err := newTestGitHub(t).ListOpen()
	if err != nil {
		t.Fatal(err)
	}
	f.expectCalls([]string{"gh", "pr", "list", "--repo", "OWNER/REPO", "--state", "open", "--limit", "1000",
		"--json", "number,url,headRefName,headRefOid,updatedAt,reviewDecision,statusCheckRollup"})
	want := []PR{
		{Number: 12, URL: "https://github.com/OWNER/REPO/pull/12", Branch: "burl/t7-fix-login", Head: ghHead,
			State: "open", Updated: "2020-01-26T19:06:38Z", Checks: "failure", ChangesRequested: true},
		{Number: 13, URL: "https://github.com/OWNER/REPO/pull/13", Branch: "burl/t8-add-logout",
			Head: "3a9b2c8e7f1d4a5b6c7d8e9f0a1b2c3d4e5f6a7b", State: "open", Updated: "2020-01-27T10:00:00Z", Checks: "pending"},
		{Number: 14, URL: "https://github.com/OWNER/REPO/pull/14", Branch: "burl/t9-docs",
			Head: "c0ffee0000000000000000000000000000000009", State: "open", Updated: "2020-01-28T10:00:00Z", Checks: "success"},
		{Number: 15, URL: "https://github.com/OWNER/REPO/pull/15", Branch: "hubot/unrelated",
			Head: "c0ffee0000000000000000000000000000000010", State: "open", Updated: "2020-01-29T10:00:00Z"},
	}
	if len(prs) != len(want) {
		t.Fatalf("%d pull requests, want %d: %+v", len(prs), len(want), prs)
	}
	// Every check's name, state and times are in the stamp: a round reads
	// a request's checks again only when one of them moved.
	stamps := map[string]bool{}
	if !strings.Contains(prs[0].ChecksStamp, "deploy-preview||QUEUED") {
		t.Errorf("stamp of #12 %q lacks its queued check", prs[0].ChecksStamp)
	}
	for i := range want {
		if s := prs[i].ChecksStamp; (s == "") != (i == 3) || stamps[s] {
			t.Errorf("pr %d: stamp %q", i, s)
		}
		stamps[prs[i].ChecksStamp] = true
		prs[i].ChecksStamp = ""
		if prs[i] != want[i] {
			t.Errorf("pr %d = %+v\nwant %+v", i, prs[i], want[i])
		}
	}
}

func TestGitHubGet(t *testing.T) {
	for file, want := range map[string]PR{
		"gh_pr_view_merged.json": {State: "merged", MergedSHA: "9f2b1e0c4d3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c"},
		"gh_pr_view_closed.json": {State: "closed"},
		"gh_pr_view_open.json":   {State: "open"},
	} {
		f := newFakeCLI(t)
		f.answer("pr-view", file)
		pr, err := newTestGitHub(t).Get(12)
		if err != nil {
			t.Fatal(err)
		}
		f.expectCalls([]string{"gh", "pr", "view", "12", "--repo", "OWNER/REPO",
			"--json", "number,url,state,headRefName,headRefOid,mergeCommit,updatedAt"})
		want.Number, want.URL, want.Branch, want.Head, want.Updated = 12, "https://github.com/OWNER/REPO/pull/12", "burl/t7-fix-login", ghHead, "2020-01-26T19:06:38Z"
		if pr != want {
			t.Errorf("%s: pr = %+v\nwant %+v", file, pr, want)
		}
	}
}

func TestGitHubFeedback(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Feedback
	}{
		// matt's deciding review asks for changes on the head (his later
		// comment decides nothing); amy's old ask was followed by her
		// approval.
		{"gh_pr_view_feedback_changes.json", Feedback{ChangesRequested: true, Text: "Please handle the empty password."}},
		// The ask is on an older commit, the other one dismissed: the
		// last thing said is the comment.
		{"gh_pr_view_feedback_stale.json", Feedback{Text: "Closing: superseded by #20."}},
	} {
		f := newFakeCLI(t)
		f.answer("pr-view", tc.file)
		fb, err := newTestGitHub(t).Feedback(PR{Number: 12, Head: ghHead})
		if err != nil {
			t.Fatal(err)
		}
		f.expectCalls([]string{"gh", "pr", "view", "12", "--repo", "OWNER/REPO", "--json", "reviews,comments,headRefOid"})
		if fb != tc.want {
			t.Errorf("%s: feedback = %+v\nwant %+v", tc.file, fb, tc.want)
		}
	}
}

func TestGitHubMerge(t *testing.T) {
	for _, style := range []string{"rebase", "squash", "merge"} {
		f := newFakeCLI(t)
		if err := newTestGitHub(t).Merge(PR{Number: 12, Head: ghHead}, style); err != nil {
			t.Fatal(err)
		}
		f.expectCalls([]string{"gh", "pr", "merge", "12", "--repo", "OWNER/REPO", "--auto", "--" + style,
			"--match-head-commit", ghHead})
	}
	f := newFakeCLI(t)
	if err := newTestGitHub(t).Merge(PR{Number: 12, Head: ghHead}, "octopus"); err == nil {
		t.Error("style octopus was taken")
	}
	if err := newTestGitHub(t).Merge(PR{Number: 12}, "rebase"); err == nil {
		t.Error("a merge without a head commit was asked")
	}
	f.expectCalls()
}

func TestGitHubMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := newTestGitHub(t).ListOpen()
	want := "gh is not on PATH: landing: pr with forge: github uses the GitHub CLI, logged in with `gh auth login`"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestGitHubFailingExitCarriesStderr(t *testing.T) {
	f := newFakeCLI(t)
	f.fail("pr-view", 0, 1, "\nGraphQL: Could not resolve to a PullRequest with the number of 99. (repository.pullRequest)\n\n")
	_, err := newTestGitHub(t).Get(99)
	want := "gh pr view: GraphQL: Could not resolve to a PullRequest with the number of 99. (repository.pullRequest)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	var rl *RateLimited
	if errors.As(err, &rl) {
		t.Error("taken for a rate limit")
	}
}

func TestGitHubRateLimited(t *testing.T) {
	f := newFakeCLI(t)
	f.fail("pr-list", 0, 1, "HTTP 403: API rate limit exceeded for user ID 1. (https://api.github.com/graphql)\n")
	_, err := newTestGitHub(t).ListOpen()
	var rl *RateLimited
	if !errors.As(err, &rl) || rl.Forge != "github" || rl.Retry != 0 {
		t.Fatalf("err = %#v, want *RateLimited from github", err)
	}
}
