package forge

// The recorded answers of the checks under testdata/, and where each
// comes from (cli/cli at 44ee177, gl-cli/glab at 45aa37b):
//   - gh_pr_checks_*.json: `gh pr checks --json name,state,bucket,link,
//     description,workflow` prints pkg/cmd/pr/checks/aggregate.go's check
//     objects; their contents are the contexts of
//     pkg/cmd/pr/checks/fixtures/someFailing.json (cool/sad/slow tests),
//     withStatuses.json (the status context "a status") and
//     onlyRequired.json (--required keeps "cool tests"), bucketed as
//     aggregate.go does, with links of the form a check run's detailsUrl
//     has on GitHub (…/actions/runs/RUN/job/JOB) for three of them.
//   - gh_run_view_log_failed.txt: `gh run view --log-failed` prints
//     JOB<TAB>STEP<TAB>LINE (pkg/cmd/run/view/view.go).
//   - gh_api_graphql_head.json: the GraphQL answer, its contexts nodes
//     those of withStatuses.json.
//   - gl_api_pipelines.json: GitLab's pipelines list as glab's
//     internal/commands/ci/list/testdata/ciList.json has it;
//     gl_api_pipeline_jobs.json: a pipeline's jobs as
//     internal/commands/ci/get/testdata/ci_get-1.json has them
//     (allow_failure, stage, status, web_url); the job states are those of
//     GitLab's jobs API documentation.

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	req := func(name, state string) Check { return Check{Name: name, State: state, Required: true} }
	for _, c := range []struct {
		name     string
		cs       []Check
		required bool
		state    string
		err      string
	}{
		{"nothing reported, nothing required", nil, true, CheckSuccess, ""},
		{"all: nothing reported yet waits", nil, false, CheckPending, ""},
		{"all passed", []Check{req("a", "success"), req("b", "success")}, true, CheckSuccess, ""},
		{"pending never passes", []Check{req("a", "success"), req("b", "pending")}, true, CheckPending, ""},
		{"a failure wins over pending", []Check{req("a", "failure"), req("b", "pending")}, true, CheckFailure, ""},
		{"not required: not counted", []Check{req("a", "success"), {Name: "b", State: "failure"}}, true, CheckSuccess, ""},
		{"all: counted", []Check{req("a", "success"), {Name: "b", State: "failure"}}, false, CheckFailure, ""},
		{"unknown state", []Check{req("a", "success"), req("b", "neutral-ish")}, true, CheckPending, `check "b" has the state "neutral-ish"`},
		{"flips in one answer", []Check{req("a", "success"), req("a", "failure")}, true, CheckPending, `check "a" is reported both success and failure`},
		{"no name", []Check{req("", "success")}, true, CheckPending, "a check without a name"},
	} {
		v, err := Judge(c.cs, c.required)
		if v.State != c.state || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: Judge = %s, %v; want %s, %q", c.name, v.State, err, c.state, c.err)
		}
	}
}

func TestTail(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	got := Tail(b.String() + "the reason\n")
	lines := strings.Split(got, "\n")
	if len(lines) != logTailLines || lines[len(lines)-1] != "the reason" {
		t.Errorf("Tail kept %d lines ending %q", len(lines), lines[len(lines)-1])
	}
	long := strings.Repeat("y", 3*logTailBytes) + "\nend"
	if got := Tail(long); got != "end" {
		t.Errorf("Tail of a huge line = %d bytes", len(got))
	}
}

var ghTarget = Target{Number: 12, Branch: "burl/t7-fix-login", Head: ghHead, Base: "main"}

func TestGitHubChecksOfAPullRequest(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("pr-checks", "gh_pr_checks_failing.json")
	f.fail("pr-checks", 0, 8, "") // gh exits 8 while checks are pending, its JSON printed all the same
	f.answer("run-view", "gh_run_view_log_failed.txt")
	p := newTestGitHub(t).(Checker)
	cs, err := p.Checks(ghTarget, false)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Judge(cs, false)
	if err != nil || v.State != CheckFailure || Names(v.Failed) != "CI / sad tests, a status" || Names(v.Pending) != "CI / slow tests" {
		t.Fatalf("Judge = %+v %v", v, err)
	}
	var sad Check
	for _, c := range cs {
		if c.Name == "CI / sad tests" {
			sad = c
		}
	}
	if sad.URL != "https://github.com/OWNER/REPO/actions/runs/1001/job/2002" || sad.Description != "Process completed with exit code 1." || sad.Log != "2002" {
		t.Errorf("sad tests = %+v", sad)
	}
	log, err := p.FailedLog(ghTarget, sad)
	if err != nil || !strings.HasSuffix(log, "FAIL") || !strings.Contains(log, "empty password accepted") {
		t.Errorf("FailedLog = %q %v", log, err)
	}
	// A status context has no log gh can show: nothing is asked.
	if log, err := p.FailedLog(ghTarget, Check{Name: "a status", State: CheckFailure, URL: "sweet link"}); log != "" || err != nil {
		t.Errorf("a status's log = %q %v", log, err)
	}
	f.expectCalls(
		[]string{"gh", "pr", "checks", "12", "--repo", "OWNER/REPO", "--json", "name,state,bucket,link,description,workflow"},
		[]string{"gh", "run", "view", "--repo", "OWNER/REPO", "--job", "2002", "--log-failed"},
	)
}

func TestGitHubRequiredChecks(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("pr-checks", "gh_pr_checks_required.json")
	cs, err := newTestGitHub(t).(Checker).Checks(ghTarget, true)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := Judge(cs, true); err != nil || v.State != CheckSuccess || Names(v.Passed) != "cool tests" {
		t.Fatalf("Judge = %+v %v", v, err)
	}
	f.expectCalls([]string{"gh", "pr", "checks", "12", "--repo", "OWNER/REPO", "--required", "--json", "name,state,bucket,link,description,workflow"})
}

func TestGitHubChecksBadAnswers(t *testing.T) {
	// No required checks: gh says so on stderr and exits 1; nothing is required.
	f := newFakeCLI(t)
	f.fail("pr-checks", 0, 1, "no required checks reported on the 'burl/t7-fix-login' branch\n")
	cs, err := newTestGitHub(t).(Checker).Checks(ghTarget, true)
	if err != nil || len(cs) != 0 {
		t.Fatalf("no required checks = %+v %v", cs, err)
	}
	// A bucket gh never printed: named, never passed.
	f = newFakeCLI(t)
	f.answer("pr-checks", "gh_pr_checks_unknown.json")
	cs, err = newTestGitHub(t).(Checker).Checks(ghTarget, true)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := Judge(cs, true); err == nil || v.State == CheckSuccess || !strings.Contains(err.Error(), `"exploded"`) {
		t.Errorf("unknown bucket = %+v %v", v, err)
	}
	// Garbage, and any other failure of gh.
	f = newFakeCLI(t)
	f.set("pr-checks.out", "<html>")
	if _, err := newTestGitHub(t).(Checker).Checks(ghTarget, true); err == nil || !strings.Contains(err.Error(), "gh pr checks: unexpected answer") {
		t.Errorf("garbage = %v", err)
	}
	f = newFakeCLI(t)
	f.fail("pr-checks", 0, 1, "HTTP 401: Bad credentials\n")
	if _, err := newTestGitHub(t).(Checker).Checks(ghTarget, true); err == nil || !strings.Contains(err.Error(), "Bad credentials") {
		t.Errorf("gh failing = %v", err)
	}
}

func TestGitHubChecksOfABranch(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("api", "gh_api_graphql_head.json")
	p := newTestGitHub(t).(Checker)
	target := Target{Branch: "burl/queue/1", Head: ghHead, Base: "main"}
	cs, err := p.Checks(target, true)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Judge(cs, true)
	if err != nil || v.State != CheckFailure || Names(v.Failed) != "a status" || Names(v.Passed) != "cool tests" || Names(v.Pending) != "deploy preview" {
		t.Fatalf("Judge = %+v %v", v, err)
	}
	calls := f.calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls", len(calls))
	}
	args := calls[0].Args
	want := []string{"api", "graphql", "-f", "query=" + ghHeadQuery, "-f", "owner=OWNER", "-f", "name=REPO", "-f", "oid=" + ghHead, "-f", "base=refs/heads/main"}
	if strings.Join(args, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("argv %q", args)
	}
	f.set("api.out", `{"data":{"repository":{"object":null,"ref":null}}}`)
	if _, err := p.Checks(target, true); err == nil || !strings.Contains(err.Error(), "does not have the commit") {
		t.Errorf("unknown commit = %v", err)
	}
	f.set("api.out", `{"errors":[{"message":"Could not resolve to a Repository"}]}`)
	if _, err := p.Checks(target, true); err == nil || !strings.Contains(err.Error(), "Could not resolve") {
		t.Errorf("graphql error = %v", err)
	}
}

func TestGitLabChecks(t *testing.T) {
	f := newFakeCLI(t)
	f.answerNth("api", 1, "gl_api_pipelines.json")
	f.answerNth("api", 2, "gl_api_pipeline_jobs.json")
	f.answerNth("api", 3, "gl_api_job_trace.txt")
	p := newTestGitLab(t).(Checker)
	target := Target{Number: 7, Branch: "burl/t7-fix-login", Head: glHead, Base: "main"}
	cs, err := p.Checks(target, true)
	if err != nil {
		t.Fatal(err)
	}
	// docs may fail (allow_failure): not required.
	v, err := Judge(cs, true)
	if err != nil || v.State != CheckFailure || Names(v.Failed) != "test / unit" || Names(v.Passed) != "test / test_vars" || len(cs) != 2 {
		t.Fatalf("Judge = %+v %v (%+v)", v, err, cs)
	}
	unit := v.Failed[0]
	if unit.URL != "https://gitlab.example.com/platform/web/app/-/jobs/1999017705" || unit.Description != "script_failure" {
		t.Errorf("unit = %+v", unit)
	}
	log, err := p.FailedLog(target, unit)
	if err != nil || !strings.HasSuffix(log, "ERROR: Job failed: exit code 1") {
		t.Errorf("trace = %q %v", log, err)
	}
	f.expectCalls(
		[]string{"glab", "api", "--hostname", "gitlab.example.com", "projects/platform%2Fweb%2Fapp/pipelines?sha=" + glHead + "&order_by=id&sort=desc&per_page=1"},
		[]string{"glab", "api", "--hostname", "gitlab.example.com", "projects/platform%2Fweb%2Fapp/pipelines/1172622998/jobs?per_page=100"},
		[]string{"glab", "api", "--hostname", "gitlab.example.com", "projects/platform%2Fweb%2Fapp/jobs/1999017705/trace"},
	)
}

func TestGitLabChecksBadAnswers(t *testing.T) {
	target := Target{Number: 7, Head: glHead, Base: "main"}
	// No pipeline yet: pending, named.
	f := newFakeCLI(t)
	f.set("api.out", "[]")
	cs, err := newTestGitLab(t).(Checker).Checks(target, true)
	if v, _ := Judge(cs, true); err != nil || v.State != CheckPending || Names(v.Pending) != "pipeline" {
		t.Errorf("no pipeline = %+v %v", cs, err)
	}
	// A job state GitLab does not document.
	f = newFakeCLI(t)
	f.answerNth("api", 1, "gl_api_pipelines.json")
	f.set("api.2.out", `[{"id":1,"name":"unit","stage":"test","status":"teleported","allow_failure":false}]`)
	cs, err = newTestGitLab(t).(Checker).Checks(target, true)
	if v, jerr := Judge(cs, true); err != nil || jerr == nil || v.State == CheckSuccess || !strings.Contains(jerr.Error(), `"teleported"`) {
		t.Errorf("unknown job state = %+v %v %v", cs, err, jerr)
	}
	// Another head's pipeline, and garbage.
	f = newFakeCLI(t)
	f.set("api.out", `[{"id":1,"sha":"0000000000000000000000000000000000000000","status":"success"}]`)
	if _, err := newTestGitLab(t).(Checker).Checks(target, true); err == nil || !strings.Contains(err.Error(), "the answer is about 0000") {
		t.Errorf("another head = %v", err)
	}
	f.set("api.out", `{"message":"404 Project Not Found"`)
	if _, err := newTestGitLab(t).(Checker).Checks(target, true); err == nil || !strings.Contains(err.Error(), "unexpected answer") {
		t.Errorf("garbage = %v", err)
	}
}

func TestGitLabCheckStamps(t *testing.T) {
	f := newFakeCLI(t)
	f.answer("api", "gl_api_pipelines.json")
	stamps, err := newTestGitLab(t).(Stamper).CheckStamps()
	if err != nil {
		t.Fatal(err)
	}
	if len(stamps) != 1 || stamps[glHead] != "1172622998 failed 2024-02-11T18:56:07.777Z" {
		t.Errorf("stamps = %q", stamps)
	}
	f.expectCalls([]string{"glab", "api", "--hostname", "gitlab.example.com", "projects/platform%2Fweb%2Fapp/pipelines?order_by=id&sort=desc&per_page=100"})
	f.set("api.out", "not json")
	if _, err := newTestGitLab(t).(Stamper).CheckStamps(); err == nil {
		t.Error("garbage: no error")
	}
}
