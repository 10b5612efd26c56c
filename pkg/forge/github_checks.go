package forge

// GitHub's checks through gh. A pull request's: `gh pr checks --json`
// (--required for the required ones, which gh asks GitHub for with the
// pull request: isRequired), whose buckets are gh's own sum of a check run's
// status and conclusion or a status context's state (cli/cli
// pkg/cmd/pr/checks/aggregate.go). A branch's without a pull request (a
// merge queue candidate): one GraphQL query for the commit's
// statusCheckRollup and the base branch's required contexts. A failed
// check's log: `gh run view --job ID --log-failed`.

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ghPRCheck is one check as `gh pr checks --json` prints it.
type ghPRCheck struct {
	Name        string `json:"name"`
	State       string `json:"state"`
	Bucket      string `json:"bucket"` // pass, fail, pending, skipping, cancel
	Link        string `json:"link"`
	Description string `json:"description"`
	Workflow    string `json:"workflow"`
}

const ghCheckFields = "name,state,bucket,link,description,workflow"

// ghBucket is burl's state for gh's bucket; "" for one gh does not print.
func ghBucket(b string) string {
	switch b {
	case "pass", "skipping":
		return CheckSuccess
	case "fail", "cancel":
		return CheckFailure
	case "pending":
		return CheckPending
	}
	return ""
}

// ghNoChecks is gh's answer for a head without (required) checks: "no
// checks reported on the 'B' branch", "no required checks reported on the
// 'B' branch" (pkg/cmd/pr/checks/checks.go).
var ghNoChecks = regexp.MustCompile(`no (required )?checks reported on the`)

// ghJobRe is a check run's link: .../actions/runs/{run}/job/{job}.
var ghJobRe = regexp.MustCompile(`/actions/runs/\d+/job/(\d+)`)

func (g *gitHub) Checks(t Target, required bool) ([]Check, error) {
	if t.Number <= 0 {
		return g.headChecks(t, required)
	}
	args := []string{"pr", "checks", strconv.Itoa(t.Number), "--repo", g.repo}
	if required {
		args = append(args, "--required")
	}
	out, err := g.cli.run("", append(args, "--json", ghCheckFields)...)
	var ce *cliError
	if errors.As(err, &ce) {
		switch {
		case ghNoChecks.MatchString(ce.Stderr):
			return []Check{}, nil
		case len(ce.Stdout) > 0:
			// Exit 8: checks pending; the list is printed all the same.
			out, err = ce.Stdout, nil
		}
	}
	if err != nil {
		return nil, err
	}
	var list []ghPRCheck
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("gh pr checks: unexpected answer: %v", err)
	}
	cs := make([]Check, 0, len(list))
	for _, c := range list {
		name := c.Name
		if c.Workflow != "" && !strings.HasPrefix(name, c.Workflow+" / ") {
			name = c.Workflow + " / " + name
		}
		state := ghBucket(c.Bucket)
		if state == "" {
			state = orRaw("", c.Bucket) // Judge names what it does not know
		}
		ch := Check{Name: name, State: state, Description: c.Description, URL: c.Link, Required: required}
		if m := ghJobRe.FindStringSubmatch(c.Link); m != nil {
			ch.Log = m[1]
		}
		cs = append(cs, ch)
	}
	return cs, nil
}

// ghHeadQuery reads a commit's checks and the base branch's required
// contexts in one request (GitHub's GraphQL: Commit.statusCheckRollup, the
// fields of cli/cli api/query_builder.go's statusCheckRollup;
// Ref.branchProtectionRule.requiredStatusCheckContexts).
const ghHeadQuery = `query($owner: String!, $name: String!, $oid: GitObjectID!, $base: String!) { repository(owner: $owner, name: $name) { object(oid: $oid) { ... on Commit { statusCheckRollup { contexts(first: 100) { nodes { __typename ... on StatusContext { context state targetUrl description } ... on CheckRun { name status conclusion detailsUrl title } } } } } } ref(qualifiedName: $base) { branchProtectionRule { requiredStatusCheckContexts } } } }`

type ghRollupNode struct {
	Typename    string `json:"__typename"`
	Context     string `json:"context"`
	State       string `json:"state"`
	TargetURL   string `json:"targetUrl"`
	Description string `json:"description"`
	Name        string `json:"name"`
	Status      string `json:"status"`
	Conclusion  string `json:"conclusion"`
	DetailsURL  string `json:"detailsUrl"`
	Title       string `json:"title"`
}

// ghState sums a check run's status and conclusion, or a status context's
// state, as gh's aggregate.go buckets them; "" for one not known.
func ghState(n ghRollupNode) string {
	s := n.State
	if s == "" {
		s = n.Conclusion
		if n.Status != "COMPLETED" {
			s = n.Status
		}
	}
	switch s {
	case "SUCCESS", "SKIPPED", "NEUTRAL":
		return CheckSuccess
	case "ERROR", "FAILURE", "TIMED_OUT", "ACTION_REQUIRED", "CANCELLED", "STARTUP_FAILURE":
		return CheckFailure
	case "EXPECTED", "REQUESTED", "WAITING", "QUEUED", "PENDING", "IN_PROGRESS", "STALE":
		return CheckPending
	}
	return ""
}

func (g *gitHub) headChecks(t Target, required bool) ([]Check, error) {
	owner, name, _ := strings.Cut(g.slug(), "/")
	out, err := g.cli.run("", "api", "graphql", "-f", "query="+ghHeadQuery,
		"-f", "owner="+owner, "-f", "name="+name, "-f", "oid="+t.Head, "-f", "base=refs/heads/"+t.Base)
	if err != nil {
		return nil, err
	}
	var v struct {
		Data struct {
			Repository struct {
				Object *struct {
					StatusCheckRollup *struct {
						Contexts struct {
							Nodes []ghRollupNode `json:"nodes"`
						} `json:"contexts"`
					} `json:"statusCheckRollup"`
				} `json:"object"`
				Ref *struct {
					Rule *struct {
						Contexts []string `json:"requiredStatusCheckContexts"`
					} `json:"branchProtectionRule"`
				} `json:"ref"`
			} `json:"repository"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("gh api graphql: unexpected answer: %v", err)
	}
	if len(v.Errors) > 0 {
		return nil, fmt.Errorf("gh api graphql: %s", v.Errors[0].Message)
	}
	repo := v.Data.Repository
	if repo.Object == nil {
		return nil, fmt.Errorf("gh api graphql: GitHub does not have the commit %s", t.Head)
	}
	reqd := map[string]bool{}
	if repo.Ref != nil && repo.Ref.Rule != nil {
		for _, c := range repo.Ref.Rule.Contexts {
			reqd[c] = false
		}
	}
	var cs []Check
	if r := repo.Object.StatusCheckRollup; r != nil {
		for _, n := range r.Contexts.Nodes {
			c := Check{Name: firstOf(n.Name, n.Context), State: ghState(n), URL: firstOf(n.DetailsURL, n.TargetURL), Description: firstOf(n.Description, n.Title)}
			if c.State == "" {
				c.State = orRaw("", firstOf(n.State, n.Conclusion, n.Status))
			}
			if _, ok := reqd[c.Name]; ok {
				c.Required, reqd[c.Name] = true, true
			}
			if required && !c.Required {
				continue
			}
			if m := ghJobRe.FindStringSubmatch(c.URL); m != nil {
				c.Log = m[1]
			}
			cs = append(cs, c)
		}
	}
	names := make([]string, 0, len(reqd))
	for name := range reqd {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !reqd[name] {
			cs = append(cs, Check{Name: name, State: CheckPending, Required: true,
				Description: "required by " + t.Base + "'s protection, not reported on this head yet"})
		}
	}
	return cs, nil
}

// slug is OWNER/NAME of --repo, without an Enterprise host.
func (g *gitHub) slug() string {
	parts := strings.Split(g.repo, "/")
	return strings.Join(parts[len(parts)-2:], "/")
}

// FailedLog is `gh run view --job ID --log-failed`: the failed steps' log
// lines (JOB<TAB>STEP<TAB>LINE), their tail.
func (g *gitHub) FailedLog(_ Target, c Check) (string, error) {
	if c.Log == "" {
		return "", nil
	}
	out, err := g.cli.run("", "run", "view", "--repo", g.repo, "--job", c.Log, "--log-failed")
	if err != nil {
		return "", err
	}
	return Tail(string(out)), nil
}

// PinsAutoMerge is forge.PinsAutoMerge's: the merge is asked only at the
// gated head, and waits for the forge's required checks.
func (g *gitHub) PinsAutoMerge() bool { return true }
