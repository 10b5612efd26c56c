// Package agents parses .burl/.workflow/agents.yaml, the list of agents
// `git burl watch` runs. The file lives on the workflow branch so every
// machine runs the same agents; it is parsed strictly (unknown keys and
// wrong types are errors naming the file, key and line) because a typo in a
// supervisor's configuration must not silently run something else.
package agents

import (
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/burl-dev/burl/pkg/errs"
)

// FileName is agents.yaml inside the .workflow folder.
const FileName = "agents.yaml"

// Defaults for keys an agent does not set.
const (
	DefaultMaxParallel = 1
	DefaultTimeout     = 30 * time.Minute
	DefaultRetries     = 1
)

// File is a parsed agents.yaml.
type File struct {
	AutoApprove bool
	// Sandbox is how agents are confined (DESIGN §16): SandboxAuto (the
	// default), SandboxBwrap or SandboxNone.
	Sandbox string
	// Hide is sandbox_hide: what of the user's agents must not reach
	// (~/path, /path or an environment variable); nil means the default.
	Hide []string
	// Write is sandbox_write: paths (~/path or /path) every agent's and
	// gate's box may write besides its task's (DESIGN §24).
	Write []string
	// GateNetwork is gate_network: build_command, verify and
	// worktree_setup.command keep the network in their gate box.
	GateNetwork bool
	Agents      []Agent
	// Review is review: the agent that reviews every task before it lands
	// (DESIGN §21); nil when no review is configured.
	Review *Review
}

// Review is agents.yaml's review: key.
type Review struct {
	// Agent names the entry of agents: that reviews; it never claims a
	// task, so it is always another entry than the task's author.
	Agent string
	// Rounds is how many times the reviewer may request changes: the
	// round that reaches it leaves the task BLOCKED for a human.
	Rounds int
	// Line is where review.agent is, for messages.
	Line int
}

// DefaultReviewRounds is review.rounds when it is not set.
const DefaultReviewRounds = 2

// The values of sandbox:.
const (
	SandboxAuto  = "auto"
	SandboxBwrap = "bwrap"
	SandboxNone  = "none"
)

// Agent is one entry of agents:.
type Agent struct {
	Name        string
	Command     []string // argv with {placeholders}; never a shell string
	MaxParallel int
	Timeout     time.Duration
	Retries     int
	Tags        []string
	Env         map[string]string
	// Preset names the tool whose documented command line Command was
	// made from ("" when command was written out).
	Preset string
	// MaxCostUSD blocks a task whose runs spent more (0: no limit).
	MaxCostUSD float64
	// Sandbox is the file's sandbox:, which confines this agent's runs.
	Sandbox string
	// Hide is the file's sandbox_hide: (nil: the default).
	Hide []string
	// Write is the agent's own sandbox_write:; OwnWrite with the file's
	// (Write) before it is what its box may write.
	OwnWrite []string
	// Write is the file's sandbox_write: and then the agent's own.
	Write []string
	// Reviewer: review: names this agent; it runs only reviews, read-only,
	// and never claims a task.
	Reviewer bool
	// Author is author: "Name <email>", who a squash landing names as
	// the author of the agent's work ("" : its name with the approver's
	// email).
	Author string
}

// Error is a problem in agents.yaml at a line.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
}

// ErrKind makes a bad agents.yaml a user error (exit 1).
func (e *Error) ErrKind() errs.Kind { return errs.User }

// Load reads and parses path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errs.New(errs.User, "%s does not exist", path).
			WithFix("write it on the workflow branch (see burl-agents(5)), commit it with git -C .burl commit")
	}
	if err != nil {
		return nil, errs.Wrap(err, errs.User, "Cannot read "+path)
	}
	return Parse(path, data)
}

// validName is ^[A-Za-z0-9][A-Za-z0-9._-]*$, without a package-level
// regexp: the commit hook links this package (through pkg/trust) and must
// not pay for compiling one at every start.
func validName(s string) bool {
	for i, r := range s {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && (i == 0 || r != '.' && r != '_' && r != '-') {
			return false
		}
	}
	return s != ""
}

// Parse parses data read from file.
func Parse(file string, data []byte) (*File, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 1
		if m := regexp.MustCompile(`line (\d+)`).FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, &Error{File: file, Line: line, Msg: "not valid YAML: " + err.Error()}
	}
	bad := func(n *yaml.Node, key, format string, args ...any) error {
		return &Error{File: file, Line: n.Line, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if len(doc.Content) == 0 {
		return nil, &Error{File: file, Line: 1, Msg: "is empty; it needs an agents: list"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, bad(root, "", "must be a mapping with an agents: list")
	}
	f := &File{}
	seenAgents := false
	var presets []presetUse
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "auto_approve":
			b, err := boolOf(v)
			if err != nil {
				return nil, bad(v, "auto_approve", "%v", err)
			}
			f.AutoApprove = b
		case "sandbox":
			if v.Kind != yaml.ScalarNode || (v.Value != SandboxAuto && v.Value != SandboxBwrap && v.Value != SandboxNone) {
				return nil, bad(v, "sandbox", "must be auto, bwrap or none, not %q", v.Value)
			}
			f.Sandbox = v.Value
		case "sandbox_hide":
			if v.Kind != yaml.SequenceNode {
				return nil, bad(v, "sandbox_hide", "must be a list of ~/path, /path or ENV_NAME entries")
			}
			hide, err := stringList(v)
			if err != nil {
				return nil, bad(v, "sandbox_hide", "%v", err)
			}
			for i, e := range hide {
				if why := ValidHideEntry(e); why != "" {
					return nil, bad(v.Content[i], "sandbox_hide", "%s", why)
				}
			}
			f.Hide = append([]string{}, hide...)
		case "gate_network":
			b, err := boolOf(v)
			if err != nil {
				return nil, bad(v, "gate_network", "%v", err)
			}
			f.GateNetwork = b
		case "sandbox_write":
			w, err := writeList(v, "sandbox_write", bad)
			if err != nil {
				return nil, err
			}
			f.Write = w
		case "review":
			r, err := parseReview(v, bad)
			if err != nil {
				return nil, err
			}
			f.Review = r
		case "agents":
			seenAgents = true
			if v.Kind != yaml.SequenceNode {
				return nil, bad(v, "agents", "must be a list of agents")
			}
			names := map[string]int{}
			for _, n := range v.Content {
				a, use, err := parseAgent(n, bad)
				if err != nil {
					return nil, err
				}
				presets = append(presets, use)
				if prev, ok := names[a.Name]; ok {
					return nil, bad(n, "agents.name", "%q is already the name of the agent at line %d; names must be unique", a.Name, prev)
				}
				names[a.Name] = n.Line
				f.Agents = append(f.Agents, a)
			}
		default:
			return nil, bad(k, k.Value, "unknown key (known: auto_approve, sandbox, sandbox_hide, sandbox_write, gate_network, review, agents)")
		}
	}
	if !seenAgents || len(f.Agents) == 0 {
		return nil, bad(root, "agents", "lists no agent")
	}
	if err := f.markReviewer(file); err != nil {
		return nil, err
	}
	// A preset expands once the file says who reviews: the reviewer's
	// command line is the tool's read-only one.
	for i, use := range presets {
		a := &f.Agents[i]
		if use.node == nil {
			continue
		}
		var ok bool
		if a.Command, ok = expand(a.Preset, use.args, a.Reviewer); !ok {
			return nil, bad(use.node, "agents.preset", "%q has no reviewer's command line (presets that review: %s); give the reviewer %q a command", a.Preset, strings.Join(ReviewPresets(), ", "), a.Name)
		}
	}
	if f.Sandbox == "" {
		f.Sandbox = SandboxAuto
	}
	for i := range f.Agents {
		f.Agents[i].Sandbox = f.Sandbox
		f.Agents[i].Hide = f.Hide
		f.Agents[i].Write = append(append([]string{}, f.Write...), f.Agents[i].OwnWrite...)
	}
	return f, nil
}

// presetUse is an agent's preset and args, expanded once the whole file
// is read.
type presetUse struct {
	node *yaml.Node // the preset's value; nil: the agent has a command
	args []string
}

func parseAgent(n *yaml.Node, bad func(*yaml.Node, string, string, ...any) error) (Agent, presetUse, error) {
	a := Agent{MaxParallel: DefaultMaxParallel, Timeout: DefaultTimeout, Retries: DefaultRetries}
	var use presetUse
	var args []string
	var presetNode, argsNode *yaml.Node
	if n.Kind != yaml.MappingNode {
		return a, use, bad(n, "agents", "each agent must be a mapping with name and command")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := "agents." + k.Value
		var err error
		switch k.Value {
		case "name":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || !validName(v.Value) {
				return a, use, bad(v, key, "must be a name of letters, digits, '.', '_' or '-', not %q", v.Value)
			}
			a.Name = v.Value
		case "command":
			if v.Kind != yaml.SequenceNode {
				return a, use, bad(v, key, "must be an argv list such as [\"claude\", \"-p\", \"@{prompt_file}\"], not a shell string")
			}
			a.Command, err = stringList(v)
			if err == nil && len(a.Command) == 0 {
				err = errors.New("must not be empty")
			}
		case "max_parallel":
			a.MaxParallel, err = intOf(v, 1)
		case "timeout":
			d, perr := time.ParseDuration(v.Value)
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || perr != nil || d <= 0 {
				err = fmt.Errorf("must be a positive duration such as 30m or 90s, not %q", v.Value)
			}
			a.Timeout = d
		case "retries":
			a.Retries, err = intOf(v, 0)
		case "tags":
			if v.Kind != yaml.SequenceNode {
				err = errors.New("must be a list of tags")
			} else {
				a.Tags, err = stringList(v)
			}
		case "env":
			a.Env, err = envOf(v)
		case "preset":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
				err = errors.New("must be the name of a preset")
			} else if _, ok := presets()[v.Value]; !ok {
				err = fmt.Errorf("%q is not a preset (known: %s)", v.Value, knownPresets())
			}
			a.Preset, presetNode = v.Value, v
		case "args":
			if v.Kind != yaml.SequenceNode {
				err = errors.New("must be an argv list added to the preset's command line")
			} else {
				args, err = stringList(v)
			}
			argsNode = v
		case "max_cost_usd":
			a.MaxCostUSD, err = dollarsOf(v)
		case "author":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || !authorLine.MatchString(v.Value) {
				err = fmt.Errorf("must be a git identity such as \"Claude <claude@example.com>\", not %q", v.Value)
			}
			a.Author = v.Value
		case "sandbox_write":
			if a.OwnWrite, err = writeList(v, key, bad); err != nil {
				return a, use, err
			}
		default:
			return a, use, bad(k, key, "unknown key (known: name, command, preset, args, max_parallel, timeout, retries, tags, env, max_cost_usd, author, sandbox_write)")
		}
		if err != nil {
			return a, use, bad(v, key, "%v", err)
		}
	}
	if a.Name == "" {
		return a, use, bad(n, "agents.name", "missing: every agent needs a unique name")
	}
	switch {
	case a.Preset != "" && a.Command != nil:
		return a, use, bad(presetNode, "agents.preset", "agent %q has both preset and command: keep one (args adds flags to a preset)", a.Name)
	case a.Preset != "":
		use = presetUse{node: presetNode, args: args}
	case argsNode != nil:
		return a, use, bad(argsNode, "agents.args", "adds to a preset's command line; agent %q has no preset (put the flags in its command)", a.Name)
	case a.Command == nil:
		return a, use, bad(n, "agents.command", "missing for agent %q (or name a preset: %s)", a.Name, knownPresets())
	}
	return a, use, nil
}

// authorLine is an identity git takes as it is: a name and an email in
// angle brackets, nothing git would trim or refuse.
var authorLine = regexp.MustCompile(`^[^<>\s.,:;"'\\][^<>\n]*[^<>\s.,:;"'\\] <[^<>\s]+>$|^[^<>\s.,:;"'\\] <[^<>\s]+>$`)

func parseReview(v *yaml.Node, bad func(*yaml.Node, string, string, ...any) error) (*Review, error) {
	if v.Kind != yaml.MappingNode {
		return nil, bad(v, "review", "must be a mapping such as {agent: reviewer, rounds: 2}")
	}
	r := &Review{Rounds: DefaultReviewRounds, Line: v.Line}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, e := v.Content[i], v.Content[i+1]
		key := "review." + k.Value
		switch k.Value {
		case "agent":
			if e.Kind != yaml.ScalarNode || e.Tag != "!!str" || !validName(e.Value) {
				return nil, bad(e, key, "must be the name of an agent of this file, not %q", e.Value)
			}
			r.Agent, r.Line = e.Value, e.Line
		case "rounds":
			n, err := intOf(e, 1)
			if err != nil {
				return nil, bad(e, key, "%v", err)
			}
			r.Rounds = n
		default:
			return nil, bad(k, key, "unknown key (known: agent, rounds)")
		}
	}
	if r.Agent == "" {
		return nil, bad(v, "review.agent", "missing: name the agent of this file that reviews")
	}
	return r, nil
}

// markReviewer checks review: against the agents and marks the reviewer:
// it must be one of them, and another one must be left to write the work
// it reviews (an agent never reviews its own work).
func (f *File) markReviewer(file string) error {
	if f.Review == nil {
		return nil
	}
	r := f.Review
	var names []string
	found := -1
	for i, a := range f.Agents {
		names = append(names, a.Name)
		if a.Name == r.Agent {
			found = i
		}
	}
	switch {
	case found < 0:
		return &Error{File: file, Line: r.Line, Key: "review.agent", Msg: fmt.Sprintf("%q is not an agent of this file (agents: %s)", r.Agent, strings.Join(names, ", "))}
	case len(f.Agents) == 1:
		return &Error{File: file, Line: r.Line, Key: "review.agent", Msg: fmt.Sprintf("%q is the only agent, so it would review its own work: the reviewer must be another agents.yaml entry than the author (add the agent that writes the work)", r.Agent)}
	}
	f.Agents[found].Reviewer = true
	return nil
}

// Workers are the agents that claim tasks: every agent but the reviewer.
func (f *File) Workers() []Agent {
	out := make([]Agent, 0, len(f.Agents))
	for _, a := range f.Agents {
		if !a.Reviewer {
			out = append(out, a)
		}
	}
	return out
}

// Reviewer is the agent review: names, nil without review.
func (f *File) Reviewer() *Agent {
	for i := range f.Agents {
		if f.Agents[i].Reviewer {
			return &f.Agents[i]
		}
	}
	return nil
}

func stringList(v *yaml.Node) ([]string, error) {
	out := make([]string, 0, len(v.Content))
	for _, e := range v.Content {
		if e.Kind != yaml.ScalarNode || e.Tag == "!!null" {
			return nil, fmt.Errorf("line %d: each element must be a string", e.Line)
		}
		out = append(out, e.Value)
	}
	return out, nil
}

func boolOf(v *yaml.Node) (bool, error) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
		var b bool
		if err := v.Decode(&b); err == nil {
			return b, nil
		}
	}
	return false, fmt.Errorf("must be true or false, not %q", v.Value)
}

func intOf(v *yaml.Node, min int) (int, error) {
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || n < min {
		return 0, fmt.Errorf("must be a whole number >= %d, not %q", min, v.Value)
	}
	return n, nil
}

func dollarsOf(v *yaml.Node) (float64, error) {
	f, err := strconv.ParseFloat(v.Value, 64)
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") || err != nil || f <= 0 || math.IsInf(f, 0) {
		return 0, fmt.Errorf("must be a positive amount of US dollars such as 5 or 2.50, not %q", v.Value)
	}
	return f, nil
}

func envOf(v *yaml.Node) (map[string]string, error) {
	if v.Kind != yaml.MappingNode {
		return nil, errors.New("must be a mapping of NAME: value")
	}
	env := map[string]string{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, e := v.Content[i], v.Content[i+1]
		if e.Kind != yaml.ScalarNode || e.Tag == "!!null" {
			return nil, fmt.Errorf("line %d: %s must be a string", e.Line, k.Value)
		}
		env[k.Value] = e.Value
	}
	return env, nil
}

// ValidHideEntry is why a sandbox_hide entry is not one, "" when it is:
// ~/path, /path (no ..) or an environment variable's name.
func ValidHideEntry(e string) string {
	switch {
	case strings.HasPrefix(e, "~/") && strings.Trim(e[2:], "/") != "", strings.HasPrefix(e, "/") && strings.Trim(e, "/") != "":
		if strings.Contains(e+"/", "/../") {
			return fmt.Sprintf("%q must not contain ..", e)
		}
		return ""
	case EnvName(e):
		return ""
	}
	return fmt.Sprintf("%q is neither ~/path, /path nor the name of an environment variable", e)
}

// ValidWriteEntry is why a sandbox_write entry is not one, "" when it
// is: ~/path or /path, without .., and never / or HOME itself.
func ValidWriteEntry(e string) string {
	if v := ValidHideEntry(e); v != "" || EnvName(e) {
		return fmt.Sprintf("%q is neither ~/path nor /path (without ..)", e)
	}
	return ""
}

// writeList parses a sandbox_write: list.
func writeList(v *yaml.Node, key string, bad func(*yaml.Node, string, string, ...any) error) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, bad(v, key, "must be a list of ~/path or /path entries")
	}
	list, err := stringList(v)
	if err != nil {
		return nil, bad(v, key, "%v", err)
	}
	for i, e := range list {
		if why := ValidWriteEntry(e); why != "" {
			return nil, bad(v.Content[i], key, "%s", why)
		}
	}
	return list, nil
}

// EnvName reports whether s is an environment variable's name.
func EnvName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}
