package forge

// GitLab's checks through glab: the latest pipeline on the head (GitLab's
// pipelines API filtered by sha: a merge request pipeline and a branch
// pipeline alike) and its jobs. A job that may not fail (allow_failure
// false) is required: it is what "Pipelines must succeed" waits for. A
// failed job's log is its trace.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
)

type glPipeline struct {
	ID     int    `json:"id"`
	SHA    string `json:"sha"`
	Status string `json:"status"`
	WebURL string `json:"web_url"`
}

type glJob struct {
	ID           int    `json:"id"`
	Name         string `json:"name"`
	Stage        string `json:"stage"`
	Status       string `json:"status"`
	AllowFailure bool   `json:"allow_failure"`
	WebURL       string `json:"web_url"`
	Reason       string `json:"failure_reason"`
}

// glState is burl's state for a pipeline's or a job's status; "" for one
// GitLab's documentation does not list.
func glState(s string) string {
	switch s {
	case "success", "skipped":
		return CheckSuccess
	case "failed", "canceled", "canceling":
		return CheckFailure
	case "created", "waiting_for_resource", "preparing", "pending", "running", "manual", "scheduled", "waiting_for_callback":
		return CheckPending
	}
	return ""
}

func (g *gitLab) Checks(t Target, required bool) ([]Check, error) {
	if t.Head == "" {
		return nil, fmt.Errorf("gitlab: no head commit to read the checks of")
	}
	out, err := g.cli.run("", "api", "--hostname", g.host,
		g.api()+"/pipelines?sha="+url.QueryEscape(t.Head)+"&order_by=id&sort=desc&per_page=1")
	if err != nil {
		return nil, err
	}
	var ps []glPipeline
	if err := json.Unmarshal(out, &ps); err != nil {
		return nil, fmt.Errorf("glab api pipelines: unexpected answer: %v", err)
	}
	if len(ps) == 0 {
		return []Check{{Name: "pipeline", State: CheckPending, Required: true, Description: "no pipeline on this head yet"}}, nil
	}
	p := ps[0]
	if p.SHA != "" && p.SHA != t.Head {
		return nil, fmt.Errorf("glab api pipelines: asked for the pipeline of %s, the answer is about %s", t.Head, p.SHA)
	}
	out, err = g.cli.run("", "api", "--hostname", g.host,
		g.api()+"/pipelines/"+strconv.Itoa(p.ID)+"/jobs?per_page=100")
	if err != nil {
		return nil, err
	}
	var jobs []glJob
	if err := json.Unmarshal(out, &jobs); err != nil {
		return nil, fmt.Errorf("glab api jobs: unexpected answer: %v", err)
	}
	if len(jobs) == 0 {
		// A pipeline whose jobs are not listed (a child pipeline's bridge):
		// the pipeline is the check.
		return []Check{{Name: "pipeline", State: orRaw(glState(p.Status), p.Status), URL: p.WebURL, Required: true}}, nil
	}
	cs := make([]Check, 0, len(jobs))
	for _, j := range jobs {
		c := Check{Name: j.Stage + " / " + j.Name, State: orRaw(glState(j.Status), j.Status), URL: j.WebURL,
			Required: !j.AllowFailure, Description: j.Reason, Log: strconv.Itoa(j.ID)}
		if required && !c.Required {
			continue
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// CheckStamps is forge.Stamper's: the project's latest pipelines (one
// page of 100, newest first), each head's newest one as "ID STATUS
// UPDATED".
func (g *gitLab) CheckStamps() (map[string]string, error) {
	out, err := g.cli.run("", "api", "--hostname", g.host, g.api()+"/pipelines?order_by=id&sort=desc&per_page=100")
	if err != nil {
		return nil, err
	}
	var ps []struct {
		glPipeline
		Updated string `json:"updated_at"`
	}
	if err := json.Unmarshal(out, &ps); err != nil {
		return nil, fmt.Errorf("glab api pipelines: unexpected answer: %v", err)
	}
	stamps := map[string]string{}
	for _, p := range ps {
		if _, seen := stamps[p.SHA]; !seen && p.SHA != "" {
			stamps[p.SHA] = fmt.Sprintf("%d %s %s", p.ID, p.Status, p.Updated)
		}
	}
	return stamps, nil
}

// orRaw keeps a state burl does not know as the forge gave it, so that
// Judge names it.
func orRaw(state, raw string) string {
	if state != "" {
		return state
	}
	if raw == "" {
		return "(none)"
	}
	return raw
}

// FailedLog is the job's trace, its tail.
func (g *gitLab) FailedLog(_ Target, c Check) (string, error) {
	if c.Log == "" {
		return "", nil
	}
	out, err := g.cli.run("", "api", "--hostname", g.host, g.api()+"/jobs/"+c.Log+"/trace")
	if err != nil {
		return "", err
	}
	return Tail(string(out)), nil
}

// PinsAutoMerge is forge.PinsAutoMerge's: the merge is asked only at the
// gated head, and waits for the forge's required checks.
func (g *gitLab) PinsAutoMerge() bool { return true }
