package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/suggest"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/authoring"
	"github.com/burl-dev/burl/pkg/verb/gates"
	"github.com/burl-dev/burl/pkg/verb/views"
)

// The one tool. Its definition is all a client puts in its model's context
// for burl, on every turn: a stock tracker's server spends ~17,000 tokens on
// tool definitions where one tool with an action does the same. The tests
// keep the whole tools/list answer under 600 tokens.
const (
	toolName = "burl"
	toolDesc = "The task workflow of the repository you work in: claim a task, commit in its worktree, submit it to the gates. " +
		"action: status (every task and its next command; open:true leaves DONE out), show, " +
		"why (what happens next to a task, and why), claim (id, or the next by priority; answers the worktree to work in), " +
		"submit, validate (run the gates), log (events; id, since), " +
		"scope_request (ask a human to widen the scope: paths, globs, reason), " +
		"propose (a task your work shows is needed: title, reason, paths, globs; it waits for a human to accept it). " +
		"id defaults to the task whose worktree cwd is in; cwd to the client's roots. A refusal is an error with Reason and Fix."
	toolSchema = `{"type":"object","properties":{` +
		`"action":{"type":"string","enum":["status","show","why","claim","submit","validate","log","scope_request","propose"]},` +
		`"title":{"type":"string"},` +
		`"id":{"type":"string","description":"task ID, e.g. TASK-001"},` +
		`"cwd":{"type":"string","description":"absolute path to act in"},` +
		`"open":{"type":"boolean"},` +
		`"since":{"type":"string","description":"RFC 3339 time, date or age (90m)"},` +
		`"paths":{"type":"array","items":{"type":"string"}},` +
		`"globs":{"type":"array","items":{"type":"string"}},` +
		`"reason":{"type":"string"}},` +
		`"required":["action"],"additionalProperties":false}`
)

// args are a call's arguments, as toolSchema declares them.
type args struct {
	Action string   `json:"action"`
	ID     string   `json:"id"`
	Cwd    string   `json:"cwd"`
	Open   bool     `json:"open"`
	Since  string   `json:"since"`
	Paths  []string `json:"paths"`
	Globs  []string `json:"globs"`
	Reason string   `json:"reason"`
	Title  string   `json:"title"`
}

// action is what one value of the action argument runs: a verb, with the
// command line that verb's binary would get.
type action struct {
	verb string
	cmd  func() cli.Command
	// takes are the arguments it reads besides action and cwd.
	takes []string
	argv  func(a *args) []string
}

// actions are the tool's actions. Each runs the verb's own code (pkg/verb),
// never a copy of it: every rule of the command line holds here as well.
var actions = map[string]action{
	"status": {"status", views.Status, []string{"open", "since"}, func(a *args) []string {
		argv := []string{"--json"}
		if a.Open {
			argv = append(argv, "--open")
		}
		return withFlag(argv, "--since", a.Since)
	}},
	"show": {"show", views.Show, []string{"id"}, idArgv},
	// why composes show and status (server.go); "show" heads its errors.
	"why":      {"show", views.Show, []string{"id"}, nil},
	"claim":    {"claim", verb.ClaimAsAgent, []string{"id"}, idArgv},
	"submit":   {"submit", verb.Submit, []string{"id"}, idArgv},
	"validate": {"validate", gates.Validate, []string{"id"}, idArgv},
	"log": {"log", views.Log, []string{"id", "since"}, func(a *args) []string {
		return withFlag(withFlag([]string{"--json"}, "--task", a.ID), "--since", a.Since)
	}},
	"scope_request": {"scope", verb.ScopeRequest, []string{"id", "paths", "globs", "reason"}, func(a *args) []string {
		argv := []string{"--json"}
		for _, p := range a.Paths {
			argv = append(argv, "--affects="+p)
		}
		for _, g := range a.Globs {
			argv = append(argv, "--affects-glob="+g)
		}
		return append(withFlag(argv, "--reason", a.Reason), "--", a.ID)
	}},
	// propose is add inside a run: the task waits in PROPOSED, discovered
	// from id (by default the task whose worktree cwd is in).
	"propose": {"add", authoring.Add, []string{"id", "title", "paths", "globs", "reason"}, func(a *args) []string {
		argv := []string{"--json", "--propose"}
		for _, p := range a.Paths {
			argv = append(argv, "--affects="+p)
		}
		for _, g := range a.Globs {
			argv = append(argv, "--affects-glob="+g)
		}
		argv = withFlag(withFlag(argv, "--description", a.Reason), "--discovered-from", a.ID)
		return append(argv, "--", a.Title)
	}},
}

// idArgv passes the task ID after "--": an ID is never read as an option.
func idArgv(a *args) []string {
	if a.ID == "" {
		return []string{"--json"}
	}
	return []string{"--json", "--", a.ID}
}

// withFlag adds --name=value when value is set; joined with "=", a value
// that starts with "-" is still a value.
func withFlag(argv []string, name, value string) []string {
	if value == "" {
		return argv
	}
	return append(argv, name+"="+value)
}

func actionNames() []string {
	names := make([]string, 0, len(actions))
	for n := range actions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// parseArgs reads a call's arguments: what the schema does not allow, or
// what the action does not read, is an error naming it, so that a model
// corrects its call instead of being silently half-obeyed.
func parseArgs(raw json.RawMessage) (*args, action, error) {
	bad := func(format string, v ...any) *errs.Error {
		return errs.New(errs.User, format, v...).WithTitle("Bad arguments for the burl tool").
			WithFix(`call burl with {"action": ONE_OF(%s), ...}; the tool's input schema lists the arguments`, strings.Join(actionNames(), ", "))
	}
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = []byte("{}")
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, action{}, bad("the arguments are not a JSON object: %v", err)
	}
	var a args
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, action{}, bad("argument %q must be %s, not a JSON %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return nil, action{}, bad("%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if a.Action == "" {
		return nil, action{}, bad("the action argument is missing")
	}
	act, ok := actions[a.Action]
	if !ok {
		e := bad("unknown action %q", a.Action)
		if near := suggest.Nearest(a.Action, actionNames(), 3); near != "" {
			e = e.WithFix(`did you mean "action": %q? (actions: %s)`, near, strings.Join(actionNames(), ", "))
		}
		return nil, action{}, e
	}
	for k := range keys {
		if k != "action" && k != "cwd" && !slices.Contains(act.takes, k) {
			return nil, action{}, errs.New(errs.User, "action %s does not take %q (it takes: %s)", a.Action, k, strings.Join(append([]string{"cwd"}, act.takes...), ", ")).
				WithTitle("Bad arguments for the burl tool").WithFix("call it again without %q", k)
		}
	}
	return &a, act, nil
}

// jsonKind names a Go kind as JSON calls it.
func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice":
		return "an array of strings"
	}
	return k
}

// result is a successful call's answer: the JSON document the verb prints
// with --json, and what it warned about on stderr.
func (s *server) result(doc []byte, warnings string) *sdk.CallToolResult {
	doc = bytes.TrimSuffix(doc, []byte("\n"))
	var text string
	if s.large != nil && len(doc) >= largeAnswer && utf8.Valid(doc) {
		text = s.large.put(doc)
	} else {
		text = string(doc)
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
	if w := strings.TrimSpace(warnings); w != "" {
		res.Content = append(res.Content, &sdk.TextContent{Text: w})
	}
	return res
}

// toolError is a refusal as a tool error: the text the command line
// prints (headline, Reason, Fix; verbName heads an error that has none), so that the model reads what a person at
// the terminal would, and the --json error document as structured content.
func toolError(err error, verbName string) *sdk.CallToolResult {
	var human, doc bytes.Buffer
	cli.Fail(&cli.Context{Stdout: &bytes.Buffer{}, Stderr: &human, Verb: verbName}, err)
	cli.Fail(&cli.Context{Stdout: &doc, Stderr: &bytes.Buffer{}, JSON: true, Verb: verbName}, err)
	res := &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: strings.TrimSpace(human.String())}}}
	if json.Valid(doc.Bytes()) {
		res.StructuredContent = json.RawMessage(bytes.TrimSpace(doc.Bytes()))
	}
	return res
}

// rpcError is a refusal where the protocol has no tool error to carry it
// (listing and reading resources): the same text, as the error's message.
func rpcError(err error) error {
	var human bytes.Buffer
	cli.Fail(&cli.Context{Stdout: &bytes.Buffer{}, Stderr: &human}, err)
	return errors.New(strings.TrimSpace(human.String()))
}

// stopping is the answer to a call that arrives while the server stops.
var stopping = errs.New(errs.User, "the burl MCP server is stopping: the client closed its input or the server got a signal").
	WithFix("start the server again (your client restarts it) and repeat the call")
