package gitea

// Checks on Gitea and Forgejo: the combined commit status of a head (the
// latest status of each context, as Gitea sums them), and what is
// required from the base branch's protection (enable_status_check,
// status_check_contexts: glob patterns, as Gitea matches them).

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/forge"
)

type giteaStatus struct {
	Context     string `json:"context"`
	State       string `json:"status"`
	TargetURL   string `json:"target_url"`
	Description string `json:"description"`
}

type giteaCombined struct {
	State    string        `json:"state"`
	SHA      string        `json:"sha"`
	Statuses []giteaStatus `json:"statuses"`
}

// required is the base branch's required status contexts (nil when it
// requires none), read once per command: a round asks for it once, not
// once per pull request.
func (g *gitea) required(base string) ([]string, error) {
	g.mu.Lock()
	ctx, ok := g.requiredBy[base]
	g.mu.Unlock()
	if ok {
		return ctx, nil
	}
	var b struct {
		EnableStatusCheck   bool     `json:"enable_status_check"`
		StatusCheckContexts []string `json:"status_check_contexts"`
	}
	if err := g.do("GET", g.repo+"/branches/"+url.PathEscape(base), nil, &b); err != nil {
		return nil, err
	}
	if b.EnableStatusCheck {
		ctx = b.StatusCheckContexts
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.requiredBy == nil {
		g.requiredBy = map[string][]string{}
	}
	g.requiredBy[base] = ctx
	return ctx, nil
}

// Checks is forge.Checker's: one request for the head's statuses, and one
// per command for the base branch's protection.
func (g *gitea) Checks(t forge.Target, required bool) ([]forge.Check, error) {
	if t.Head == "" {
		return nil, fmt.Errorf("gitea: no head commit to read the checks of")
	}
	patterns, err := g.required(t.Base)
	if err != nil {
		return nil, err
	}
	var st giteaCombined
	if err := g.do("GET", g.repo+"/commits/"+url.PathEscape(t.Head)+"/status?limit=100", nil, &st); err != nil {
		return nil, err
	}
	if st.SHA != "" && st.SHA != t.Head {
		return nil, fmt.Errorf("gitea: asked for the checks of %s, the answer is about %s", t.Head, st.SHA)
	}
	var out []forge.Check
	matched := make([]bool, len(patterns))
	for _, s := range st.Statuses {
		c := forge.Check{Name: s.Context, State: giteaState(s.State), Description: s.Description, URL: s.TargetURL}
		for i, p := range patterns {
			if globMatch(p, s.Context) {
				c.Required, matched[i] = true, true
			}
		}
		if c.State == "" {
			c.State = s.State // not known: forge.Judge refuses it by name
		}
		if required && !c.Required {
			continue
		}
		c.Log = actionsJob(s.TargetURL)
		out = append(out, c)
	}
	for i, p := range patterns {
		if !matched[i] {
			out = append(out, forge.Check{Name: p, State: forge.CheckPending, Required: true,
				Description: "required by " + t.Base + "'s protection, not reported on this head yet"})
		}
	}
	return out, nil
}

// giteaState is a commit status state as burl sums it: warning counts as
// passed, as Gitea's own sum does; "" for a state not known.
func giteaState(s string) string {
	switch s {
	case "success", "warning", "skipped":
		return forge.CheckSuccess
	case "failure", "error":
		return forge.CheckFailure
	case "pending":
		return forge.CheckPending
	}
	return ""
}

// actionsJobRe is the target URL Gitea Actions gives its statuses:
// .../{owner}/{repo}/actions/runs/{run}/jobs/{job index in the run}.
var actionsJobRe = regexp.MustCompile(`/actions/runs/(\d+)/jobs/(\d+)/?$`)

func actionsJob(target string) string {
	if m := actionsJobRe.FindStringSubmatch(target); m != nil {
		return m[1] + "/" + m[2]
	}
	return ""
}

// FailedLog is the tail of a Gitea Actions job's log, for a status Gitea
// Actions posted; "" for any other status (an outside CI's logs are not
// the forge's to serve).
func (g *gitea) FailedLog(_ forge.Target, c forge.Check) (string, error) {
	run, job, ok := strings.Cut(c.Log, "/")
	if !ok {
		return "", nil
	}
	var jobs struct {
		Jobs []struct {
			ID int64 `json:"id"`
		} `json:"jobs"`
	}
	if err := g.do("GET", g.repo+"/actions/runs/"+run+"/jobs", nil, &jobs); err != nil {
		return "", err
	}
	i, _ := strconv.Atoi(job)
	if i < 0 || i >= len(jobs.Jobs) {
		return "", nil
	}
	text, err := g.raw("GET", fmt.Sprintf("%s/actions/jobs/%d/logs", g.repo, jobs.Jobs[i].ID))
	if err != nil {
		return "", err
	}
	return forge.Tail(text), nil
}

// globMatch matches a context against a status_check_contexts pattern as
// Gitea does (modules/glob without separators: * is any run of
// characters, / included; ? one character).
func globMatch(pattern, s string) bool {
	var b strings.Builder
	b.WriteString("^")
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}
