package forge

// A stacked task's request (DESIGN §26) through the CLIs' recorded
// answers: approve opens it onto its parent's branch, and once the parent
// merged opens it again onto main, which updates the same request and
// moves its base (gh pr edit --base; GitLab's target_branch, the field
// glab mr update --target-branch sets). Nothing is merged on the way.

import (
	"encoding/json"
	"testing"
)

const parentBranch = "task-001-parent"

func TestGitHubStackedRequestIsRetargetedToMain(t *testing.T) {
	f := newFakeCLI(t)
	f.answerNth("pr-list", 1, "gh_pr_list_head_none.json")
	f.answerNth("pr-list", 2, "gh_pr_list_head_one.json")
	f.answer("pr-create", "gh_pr_create.txt")
	f.answer("pr-view", "gh_pr_view_open.json")
	p := newTestGitHub(t)
	onParent := ghRequest
	onParent.Base = parentBranch
	if _, err := p.Open(onParent); err != nil {
		t.Fatal(err)
	}
	pr, err := p.Open(ghRequest)
	if err != nil {
		t.Fatal(err)
	}
	f.expectCalls(
		[]string{"gh", "pr", "list", "--repo", "OWNER/REPO", "--state", "open", "--head", "burl/t7-fix-login",
			"--json", "number,url,headRefName,headRefOid,updatedAt"},
		[]string{"gh", "pr", "create", "--repo", "OWNER/REPO", "--base", parentBranch, "--head", "burl/t7-fix-login",
			"--title", "Fix login", "--body-file", "-", "--label", "burl"},
		[]string{"gh", "pr", "view", "12", "--repo", "OWNER/REPO",
			"--json", "number,url,state,headRefName,headRefOid,mergeCommit,updatedAt"},
		[]string{"gh", "pr", "list", "--repo", "OWNER/REPO", "--state", "open", "--head", "burl/t7-fix-login",
			"--json", "number,url,headRefName,headRefOid,updatedAt"},
		[]string{"gh", "pr", "edit", "12", "--repo", "OWNER/REPO", "--title", "Fix login", "--base", "main", "--body-file", "-"},
		[]string{"gh", "pr", "view", "12", "--repo", "OWNER/REPO",
			"--json", "number,url,state,headRefName,headRefOid,mergeCommit,updatedAt"},
	)
	if pr.Number != 12 || !pr.WasOpen || pr.State != "open" {
		t.Errorf("pr = %+v, want #12 updated and still open", pr)
	}
}

func TestGitLabStackedRequestIsRetargetedToMain(t *testing.T) {
	f := newFakeCLI(t)
	f.answerNth("mr-list", 1, "gl_mr_list_branch_none.json")
	f.answerNth("mr-list", 2, "gl_mr_list_branch_one.json")
	f.answer("api", "gl_api_mr_created.json")
	p := newTestGitLab(t)
	onParent := glRequest
	onParent.Base = parentBranch
	if _, err := p.Open(onParent); err != nil {
		t.Fatal(err)
	}
	pr, err := p.Open(glRequest)
	if err != nil {
		t.Fatal(err)
	}
	list := []string{"glab", "mr", "list", "--repo", "platform/web/app", "--source-branch", "burl/t7-fix-login", "--output", "json"}
	calls := f.expectCalls(list, glAPIWrite("POST", glMRs), list, glAPIWrite("PUT", glMRs+"/7"))
	for i, want := range map[int]string{1: parentBranch, 3: "main"} {
		var body map[string]string
		if err := json.Unmarshal([]byte(calls[i].Stdin), &body); err != nil {
			t.Fatalf("stdin %q: %v", calls[i].Stdin, err)
		}
		if body["target_branch"] != want {
			t.Errorf("call %d: target_branch = %q, want %q (body %v)", i, body["target_branch"], want, body)
		}
	}
	if pr.Number != 7 || !pr.WasOpen {
		t.Errorf("pr = %+v, want !7 updated", pr)
	}
}
