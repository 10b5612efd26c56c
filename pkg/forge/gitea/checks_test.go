package gitea

import (
	"net/http"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/forge"
)

// statusRoutes answers a branch's protection and a head's combined
// status as Gitea 1.27 does (modules/structs: Branch, CombinedStatus with
// CommitStatus "status" per context).
func statusRoutes(t *testing.T, contexts []string, combined map[string]any) *fakeGitea {
	return newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, _ string) {
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v1/repos/owner/repo/branches/main":
			writeJSON(w, 200, map[string]any{"name": "main", "protected": true, "enable_status_check": contexts != nil, "status_check_contexts": contexts})
		case "GET /api/v1/repos/owner/repo/commits/" + giteaHead + "/status":
			writeJSON(w, 200, combined)
		default:
			http.Error(w, "unexpected", http.StatusTeapot)
		}
	})
}

func status(ctx, state, url, desc string) map[string]any {
	return map[string]any{"id": 1, "context": ctx, "status": state, "target_url": url, "description": desc}
}

var giteaTarget = forge.Target{Number: 4, Branch: "task-007-fix-login", Head: giteaHead, Base: "main"}

func TestGiteaChecksRequiredFromProtection(t *testing.T) {
	f := statusRoutes(t, []string{"ci/*", "lint"}, map[string]any{
		"state": "pending", "sha": giteaHead, "total_count": 3,
		"statuses": []any{
			status("ci/test", "failure", "http://ci.invalid/1", "2 tests failed"),
			status("ci/build", "success", "", ""),
			status("coverage", "pending", "", "not required"),
		},
	})
	p := f.provider()
	got, err := p.Checks(giteaTarget, true)
	if err != nil {
		t.Fatal(err)
	}
	// ci/* matched two contexts; lint never reported: pending, named.
	want := []forge.Check{
		{Name: "ci/test", State: "failure", Description: "2 tests failed", URL: "http://ci.invalid/1", Required: true},
		{Name: "ci/build", State: "success", Required: true},
		{Name: "lint", State: "pending", Required: true, Description: "required by main's protection, not reported on this head yet"},
	}
	if len(got) != len(want) {
		t.Fatalf("Checks = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("check %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	v, err := forge.Judge(got, true)
	if err != nil || v.State != forge.CheckFailure || forge.Names(v.Failed) != "ci/test" || forge.Names(v.Pending) != "lint" {
		t.Errorf("Judge = %+v %v", v, err)
	}
	// All of them: the one not required too. The protection is read once.
	all, err := p.Checks(giteaTarget, false)
	if err != nil || len(all) != 4 || all[2].Name != "coverage" || all[2].Required {
		t.Fatalf("all checks = %+v %v", all, err)
	}
	var paths []string
	for _, r := range f.requests() {
		paths = append(paths, strings.TrimPrefix(r.Path, "/api/v1/repos/owner/repo"))
		if r.Header.Get("Authorization") != "token "+giteaToken {
			t.Errorf("%s without the token", r.Path)
		}
	}
	if strings.Join(paths, " ") != "/branches/main /commits/"+giteaHead+"/status /commits/"+giteaHead+"/status" {
		t.Errorf("requests %q", paths)
	}
}

func TestGiteaChecksNothingRequired(t *testing.T) {
	f := statusRoutes(t, nil, map[string]any{"state": "", "sha": giteaHead, "statuses": []any{}})
	got, err := f.provider().Checks(giteaTarget, true)
	if err != nil || len(got) != 0 {
		t.Fatalf("Checks = %+v %v", got, err)
	}
	if v, _ := forge.Judge(got, true); v.State != forge.CheckSuccess {
		t.Errorf("nothing required, nothing reported: %s", v.State)
	}
}

func TestGiteaChecksBadAnswers(t *testing.T) {
	// An unknown state is kept as given: Judge refuses it by name.
	f := statusRoutes(t, []string{"ci"}, map[string]any{"sha": giteaHead, "statuses": []any{status("ci", "exploded", "", "")}})
	got, err := f.provider().Checks(giteaTarget, true)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := forge.Judge(got, true); err == nil || v.State == forge.CheckSuccess || !strings.Contains(err.Error(), `check "ci" has the state "exploded"`) {
		t.Errorf("unknown state: %+v %v", v, err)
	}
	// An answer about another commit.
	f = statusRoutes(t, []string{"ci"}, map[string]any{"sha": giteaOther, "statuses": []any{status("ci", "success", "", "")}})
	if _, err := f.provider().Checks(giteaTarget, true); err == nil || !strings.Contains(err.Error(), "the answer is about "+giteaOther) {
		t.Errorf("another head: %v", err)
	}
	// Not JSON at all.
	f = newFakeGitea(t, func(w http.ResponseWriter, r *http.Request, _ string) {
		w.WriteHeader(200)
		_, _ = w.Write([]byte("<html>proxy error</html>"))
	})
	if _, err := f.provider().Checks(giteaTarget, true); err == nil || !strings.Contains(err.Error(), "not the JSON expected") {
		t.Errorf("garbage: %v", err)
	}
}

func TestGlobMatchAsGitea(t *testing.T) {
	for _, c := range []struct {
		p, s string
		ok   bool
	}{{"ci/*", "ci/test", true}, {"*", "a/b/c", true}, {"ci/?", "ci/x", true}, {"ci", "ci/test", false}, {"a.b", "axb", false}, {"lint", "lint", true}} {
		if globMatch(c.p, c.s) != c.ok {
			t.Errorf("globMatch(%q, %q) != %v", c.p, c.s, c.ok)
		}
	}
}
