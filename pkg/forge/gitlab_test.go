package forge

// The recorded glab answers under testdata/ are GitLab REST API objects as
// glab prints them, written for these tests from these documents:
//   - gl_mr_list_*.json (`glab mr list --output json`): a JSON array of
//     merge requests, the shape of gitlab-org/cli (mirror gl-cli/glab,
//     commit 45aa37b, Dec 2025) internal/commands/mr/list/testdata/mrList.json
//     (iid, state "opened", source_branch, sha, merge_commit_sha "",
//     squash_commit_sha "", detailed_merge_status, updated_at, web_url,
//     author.username); mr_list.go json.Marshal of the API's list.
//   - gl_mr_view_*.json (`glab mr view N --output json`): one merge
//     request, the shape of internal/commands/mr/merge/testdata/mergedMr.json
//     and mergeableMr.json (state merged/opened, merge_commit_sha,
//     squash_commit_sha null, head_pipeline.status); mr_view.go
//     printJSONMR. detailed_merge_status "requested_changes" and state
//     "closed" are values of GitLab's merge requests API documentation.
//   - gl_api_mr_created*.json: the merge request the API answers a POST or
//     PUT to projects/:id/merge_requests[/:iid] with (same object); sha
//     null as a new merge request can answer before GitLab computed it.
//   - gl_api_notes_*.json (`glab api projects/:id/merge_requests/:iid/notes
//     ?sort=desc&order_by=created_at`): GitLab's notes API list, newest
//     first, fields of internal/commands/mr/note/mr_note_create_test.go's
//     recorded note (id, created_at, system, noteable_type, noteable_iid)
//     with body and author.username.
// Flags are glab's docs/source/mr/{list,view,merge}.md and
// docs/source/api/_index.md (--hostname, --method, --header, --input -).
// The rate-limit stderr is the API client's error text for an HTTP 429
// ("METHOD URL: 429 {message: ...}").

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

const glHead = "b7e3c1d2a4f5061728394a5b6c7d8e9f00112233"

func glRemote() Remote {
	// https://gitlab.example.com/platform/web/app.git: a nested group.
	return Remote{Scheme: "https", Host: "gitlab.example.com", Prefix: "platform", Owner: "web", Name: "app"}
}

func newTestGitLab(t *testing.T) Provider {
	t.Helper()
	p, err := newGitLab(glRemote(), "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var glRequest = Request{
	Branch: "burl/t7-fix-login", Base: "main", Head: glHead,
	Title: "[ui] Fix login: true",
	Body:  "## Task\nThe login form accepts an empty password.\n\n@- not a file\n",
}

const glMRs = "projects/platform%2Fweb%2Fapp/merge_requests"

func glAPIWrite(method, endpoint string) []string {
	return []string{"glab", "api", "--hostname", "gitlab.example.com", "--method", method,
		"--header", "Content-Type: application/json", "--input", "-", endpoint}
}

func TestGitLabOpenCreates(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("mr-list", "gl_mr_list_branch_none.json")
	f.answer("api", "gl_api_mr_created.json")
	pr, err := newTestGitLab(t).Open(glRequest)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.expectCalls(
		[]string{"glab", "mr", "list", "--repo", "platform/web/app", "--source-branch", "burl/t7-fix-login", "--output", "json"},
		glAPIWrite("POST", glMRs),
	)
	var body map[string]string
	if err := json.Unmarshal([]byte(calls[1].Stdin), &body); err != nil {
		t.Fatalf("stdin %q: %v", calls[1].Stdin, err)
	}
	want := map[string]string{"source_branch": "burl/t7-fix-login", "target_branch": "main",
		"title": glRequest.Title, "description": glRequest.Body, "labels": "burl"}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("request body = %q\nwant %q", body, want)
	}
	for _, c := range calls {
		if c.Env["GITLAB_HOST"] != "gitlab.example.com" {
			t.Errorf("GITLAB_HOST = %q", c.Env["GITLAB_HOST"])
		}
	}
	wantPR := PR{Number: 7, URL: "https://gitlab.example.com/platform/web/app/-/merge_requests/7",
		Branch: "burl/t7-fix-login", Head: glHead, State: "open", Updated: "2025-03-02T10:30:00.000Z"}
	if pr != wantPR {
		t.Errorf("pr = %+v\nwant %+v", pr, wantPR)
	}
}

func TestGitLabOpenUpdatesTheOpenOne(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("mr-list", "gl_mr_list_branch_one.json")
	f.answer("api", "gl_api_mr_created_nosha.json")
	pr, err := newTestGitLab(t).Open(glRequest)
	if err != nil {
		t.Fatal(err)
	}
	calls := f.expectCalls(
		[]string{"glab", "mr", "list", "--repo", "platform/web/app", "--source-branch", "burl/t7-fix-login", "--output", "json"},
		glAPIWrite("PUT", glMRs+"/7"),
	)
	var body map[string]string
	if err := json.Unmarshal([]byte(calls[1].Stdin), &body); err != nil {
		t.Fatalf("stdin %q: %v", calls[1].Stdin, err)
	}
	if want := map[string]string{"title": glRequest.Title, "description": glRequest.Body, "target_branch": "main"}; !reflect.DeepEqual(body, want) {
		t.Errorf("request body = %q\nwant %q", body, want)
	}
	// GitLab had not filled sha in yet: the head pushed stands.
	if pr.Number != 7 || pr.Head != glHead || pr.State != "open" || !pr.WasOpen {
		t.Errorf("pr = %+v (WasOpen: it was open already)", pr)
	}
}

func TestGitLabHosts(t *testing.T) {
	for _, tc := range []struct {
		remote   Remote
		forgeURL string
		project  string
		hostname string
		env      string
	}{
		{Remote{Scheme: "ssh", Host: "gitlab.com", Owner: "group", Name: "proj"}, "", "group/proj", "gitlab.com", ""},
		{Remote{Scheme: "https", Host: "code.example.org", Prefix: "gitlab/a/b", Owner: "c", Name: "proj"}, "https://code.example.org/gitlab/api/v4",
			"a/b/c/proj", "code.example.org", "https://code.example.org/gitlab"},
		{Remote{Scheme: "ssh", Host: "ssh.example.org", Owner: "group", Name: "proj"}, "https://GitLab.example.org", "group/proj", "gitlab.example.org", "gitlab.example.org"},
	} {
		f := newFakeCLI(t)
		f.answer("mr-list", "gl_mr_list_branch_none.json")
		f.answer("api", "gl_api_mr_created.json")
		p, err := newGitLab(tc.remote, tc.forgeURL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Open(glRequest); err != nil {
			t.Fatal(err)
		}
		calls := f.calls()
		if calls[0].Args[3] != tc.project || calls[1].Args[2] != tc.hostname || calls[0].Env["GITLAB_HOST"] != tc.env {
			t.Errorf("%+v %q: --repo %q --hostname %q GITLAB_HOST %q; want %q %q %q", tc.remote, tc.forgeURL,
				calls[0].Args[3], calls[1].Args[2], calls[0].Env["GITLAB_HOST"], tc.project, tc.hostname, tc.env)
		}
	}
}

func TestGitLabListOpen(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("mr-list", "gl_mr_list_open.json")
	prs, err := newTestGitLab(t).ListOpen()
	if err != nil {
		t.Fatal(err)
	}
	f.expectCalls([]string{"glab", "mr", "list", "--repo", "platform/web/app", "--output", "json", "--per-page", "100"})
	u := "https://gitlab.example.com/platform/web/app/-/merge_requests/"
	want := []PR{
		{Number: 7, URL: u + "7", Branch: "burl/t7-fix-login", Head: glHead, State: "open",
			Updated: "2025-03-02T10:30:00.000Z", ChangesRequested: true},
		{Number: 8, URL: u + "8", Branch: "burl/t8-add-logout", Head: "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1", State: "open",
			Updated: "2025-03-02T10:30:00.000Z"},
		{Number: 9, URL: u + "9", Branch: "someone/else", Head: "c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3", State: "open",
			Updated: "2025-03-02T10:30:00.000Z"},
	}
	if !reflect.DeepEqual(prs, want) {
		t.Errorf("prs = %+v\nwant %+v", prs, want)
	}
}

func TestGitLabGet(t *testing.T) {
	for file, want := range map[string]PR{
		"gl_mr_view_merged.json":      {State: "merged", MergedSHA: "e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1", Checks: "success"},
		"gl_mr_view_squashed.json":    {State: "merged", MergedSHA: "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"},
		"gl_mr_view_fastforward.json": {State: "merged", MergedSHA: glHead},
		"gl_mr_view_closed.json":      {State: "closed", Checks: "failure"},
		"gl_mr_view_open.json":        {State: "open", Checks: "pending"},
	} {
		f := newFakeCLI(t)
		f.answer("mr-view", file)
		pr, err := newTestGitLab(t).Get(7)
		if err != nil {
			t.Fatal(err)
		}
		f.expectCalls([]string{"glab", "mr", "view", "7", "--repo", "platform/web/app", "--output", "json"})
		want.Number, want.URL, want.Branch, want.Head, want.Updated = 7,
			"https://gitlab.example.com/platform/web/app/-/merge_requests/7", "burl/t7-fix-login", glHead, "2025-03-02T10:30:00.000Z"
		if pr != want {
			t.Errorf("%s: pr = %+v\nwant %+v", file, pr, want)
		}
	}
}

func TestGitLabFeedback(t *testing.T) {
	for _, tc := range []struct {
		view, notes string
		want        Feedback
	}{
		// The latest comment of someone other than the author carries
		// /request_changes (a GitLab without the quick action kept it).
		{"gl_mr_view_open.json", "gl_api_notes_marker.json",
			Feedback{ChangesRequested: true, Text: "/request_changes\nThe session cookie must be HttpOnly."}},
		// The author answered since: the reviewer's ask stands, and is
		// the reason.
		{"gl_mr_view_open.json", "gl_api_notes_author_replied.json",
			Feedback{ChangesRequested: true, Text: "/request_changes\nThe session cookie must be HttpOnly."}},
		// A later comment from the reviewer: no longer an ask.
		{"gl_mr_view_open.json", "gl_api_notes_plain.json", Feedback{Text: "Nice, thanks."}},
		// GitLab's own state; the reason is the reviewer's comment, not
		// the system note.
		{"gl_mr_view_requested_changes.json", "gl_api_notes_review.json",
			Feedback{ChangesRequested: true, Text: "Please add a test for the expired session."}},
	} {
		f := newFakeCLI(t)
		f.answer("mr-view", tc.view)
		f.answer("api", tc.notes)
		fb, err := newTestGitLab(t).Feedback(PR{Number: 7, Head: glHead})
		if err != nil {
			t.Fatal(err)
		}
		f.expectCalls(
			[]string{"glab", "mr", "view", "7", "--repo", "platform/web/app", "--output", "json"},
			[]string{"glab", "api", "--hostname", "gitlab.example.com",
				glMRs + "/7/notes?sort=desc&order_by=created_at&per_page=100"},
		)
		if fb != tc.want {
			t.Errorf("%s + %s: feedback = %+v\nwant %+v", tc.view, tc.notes, fb, tc.want)
		}
	}
}

func TestGitLabMerge(t *testing.T) {
	for style, flags := range map[string][]string{
		"squash": {"--squash"},
		"rebase": nil,
		"merge":  nil,
	} {
		f := newFakeCLI(t)
		if err := newTestGitLab(t).Merge(PR{Number: 7, Head: glHead}, style); err != nil {
			t.Fatal(err)
		}
		want := append([]string{"glab", "mr", "merge", "7", "--repo", "platform/web/app", "--yes"}, flags...)
		f.expectCalls(append(want, "--sha", glHead))
	}
	f := newFakeCLI(t)
	if err := newTestGitLab(t).Merge(PR{Number: 7, Head: glHead}, "fast-forward"); err == nil {
		t.Error("an unknown style was taken")
	}
	if err := newTestGitLab(t).Merge(PR{Number: 7}, "squash"); err == nil {
		t.Error("a merge without a head commit was asked")
	}
	f.expectCalls()
}

func TestGitLabMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := newTestGitLab(t).Get(7)
	want := "glab is not on PATH: landing: pr with forge: gitlab uses the GitLab CLI, logged in with `glab auth login`"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestGitLabFailingExitCarriesStderr(t *testing.T) {
	f := newFakeCLI(t)
	f.fail("mr-merge", 0, 1, "  ERROR: 405 Method Not Allowed  \n")
	err := newTestGitLab(t).Merge(PR{Number: 7, Head: glHead}, "merge")
	if err == nil || err.Error() != "glab mr merge: ERROR: 405 Method Not Allowed" {
		t.Fatalf("err = %v", err)
	}
	var rl *RateLimited
	if errors.As(err, &rl) {
		t.Error("taken for a rate limit")
	}
}

func TestGitLabRateLimited(t *testing.T) {
	f := newFakeCLI(t)
	f.fail("mr-list", 0, 1, "GET https://gitlab.example.com/api/v4/projects/platform%2Fweb%2Fapp/merge_requests: 429 {message: Retry later} Retry-After: 42\n")
	_, err := newTestGitLab(t).ListOpen()
	var rl *RateLimited
	if !errors.As(err, &rl) || rl.Forge != "gitlab" || rl.Retry.Seconds() != 42 {
		t.Fatalf("err = %#v, want *RateLimited from gitlab, retry 42s", err)
	}
}
