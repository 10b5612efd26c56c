// Package trust is the trust store of DESIGN §16: burl runs a command whose
// text came from the workflow branch (config build_command, worktree_setup
// and notify commands, agents.yaml command and env, a task's verify, and
// the forge settings as they come) only when the user of this machine
// trusted that exact text, at that place, in that repository. Check is the
// one question every verb asks before it runs one; `git burl trust` and the
// verbs that write a command the user typed (init, add --verify) record
// trust.
package trust

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/task"
)

// ConfigName is config.yaml in the workflow folder (as pkg/workflow names it).
const ConfigName = "config.yaml"

// Command is one text burl would execute, and where it is used: a key of a
// file of the workflow folder, or a key of a task (by ID, which stays the
// same as the task file moves between buckets).
type Command struct {
	File string `json:"file"` // "config.yaml", "agents.yaml", or a task ID
	Key  string `json:"key"`  // "build_command", "agents.NAME.command", "verify", ...
	Text string `json:"text"` // exactly what runs; an argv or env as JSON
	// Path is the file holding it now (absolute), for the commit that
	// last changed it; not part of what is trusted.
	Path string `json:"-"`
	// Gate marks a gate's input (DESIGN §19): weakening a gate needs trust
	// like a new command, judged against the text last trusted at its
	// place.
	Gate Gate `json:"-"`
	// Base is what a list gate is judged against where nothing was trusted
	// at its place yet: the list init writes.
	Base string `json:"-"`
}

// Gate is how a gate's input is judged.
type Gate int

const (
	// NoGate: a command; an empty text runs nothing and needs no trust.
	NoGate Gate = iota
	// GateText is a command that is a gate (build_command, verify): a new
	// text needs trust as any command, and so does an empty one where a
	// command was last trusted (the gate switched off).
	GateText
	// GateList is a list a gate checks against (stub_patterns,
	// stub_check_extensions), as JSON: adding entries needs nothing,
	// removing any of those last trusted (or of Base) needs trust.
	GateList
)

// Where is the place the trust of a text is bound to.
func (c Command) Where() string { return c.File + ":" + c.Key }

// Describe names the command for people: "build_command in config.yaml".
func (c Command) Describe() string {
	if strings.HasSuffix(c.File, ".yaml") {
		return c.Key + " in " + c.File
	}
	return c.Key + " of " + c.File
}

// Config is a shell command of config.yaml (build_command) in the workflow
// folder dir.
func Config(dir, key, text string) Command {
	return Command{File: ConfigName, Key: key, Text: text, Path: filepath.Join(dir, ConfigName)}
}

// ConfigGate is a gate command of config.yaml (build_command), empty
// included.
func ConfigGate(dir, key, text string) Command {
	c := Config(dir, key, text)
	c.Gate = GateText
	return c
}

// ConfigList is a list of config.yaml a gate checks against, with the
// list init writes as what it is judged by until one is trusted.
func ConfigList(dir, key string, list, base []string) Command {
	c := Config(dir, key, jsonText(list))
	c.Gate, c.Base = GateList, jsonText(base)
	return c
}

// ConfigArgv is an argv of config.yaml (worktree_setup.command,
// notify.command), as its JSON text; nil for an empty argv.
func ConfigArgv(dir, key string, argv []string) []Command {
	if len(argv) == 0 {
		return nil
	}
	return []Command{Config(dir, key, jsonText(argv))}
}

// Agent is what watch runs for an agent of agents.yaml in the workflow
// folder dir: its argv (before the {placeholders} are filled in, which burl
// itself supplies), when it has one its env, sandbox: none and
// sandbox_hide.
func Agent(dir string, a agents.Agent) []Command {
	p := filepath.Join(dir, agents.FileName)
	out := []Command{{File: agents.FileName, Key: "agents." + a.Name + ".command", Text: jsonText(a.Command), Path: p}}
	if len(a.Env) > 0 {
		// Keys sorted: the same env is the same text.
		out = append(out, Command{File: agents.FileName, Key: "agents." + a.Name + ".env", Text: jsonText(a.Env), Path: p})
	}
	if a.Sandbox == agents.SandboxNone {
		// Turning the sandbox off decides what every agent may do to the
		// repository: whoever pushed it needs this user's consent too.
		out = append(out, Command{File: agents.FileName, Key: "sandbox", Text: agents.SandboxNone, Path: p})
	}
	if a.Hide != nil {
		// What agents may read of the user's credentials: a list that
		// hides less than the default is the user's decision.
		out = append(out, Command{File: agents.FileName, Key: "sandbox_hide", Text: jsonText(a.Hide), Path: p})
	}
	if len(a.Write) > 0 {
		// What its box may write outside its worktree (DESIGN §24): a
		// path there is one no later program of the user's may trust.
		out = append(out, Command{File: agents.FileName, Key: "agents." + a.Name + ".sandbox_write", Text: jsonText(a.Write), Path: p})
	}
	return out
}

// GateBox is what of agents.yaml widens the gate box (DESIGN §24):
// gate_network: true, and the file's sandbox_write, each trusted like a
// command.
func GateBox(dir string, f *agents.File) []Command {
	p := filepath.Join(dir, agents.FileName)
	var out []Command
	if f.GateNetwork {
		out = append(out, Command{File: agents.FileName, Key: "gate_network", Text: "true", Path: p})
	}
	if len(f.Write) > 0 {
		out = append(out, Command{File: agents.FileName, Key: "sandbox_write", Text: jsonText(f.Write), Path: p})
	}
	return out
}

// Review is agents.yaml's review: (DESIGN §21) as a gate: who reviews
// and how many rounds is trusted like a command, and removing it (r nil
// where a review was trusted) switches a gate off and needs trust too.
func Review(dir string, r *agents.Review) Command {
	text := ""
	if r != nil {
		text = jsonText(map[string]any{"agent": r.Agent, "rounds": r.Rounds})
	}
	return Command{File: agents.FileName, Key: "review", Text: text, Path: filepath.Join(dir, agents.FileName), Gate: GateText}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Verify is a task's verify command, a gate: an empty one is asked about
// where a verify was trusted before. path is the task's file ("" when not
// at hand: the message then finds the task's history by its ID).
func Verify(t *task.Task, path string) []Command {
	if t == nil {
		return nil
	}
	return []Command{{File: t.ID(), Key: task.KeyVerify, Text: t.Str(task.KeyVerify), Path: path, Gate: GateText}}
}

// Repository is the identity trust is bound to: the absolute path of the
// clone's git common directory, symbolic links resolved. Every worktree of
// a clone shares it; another clone, even of the same remote, is another
// repository that needs its own trust.
func Repository(r *repo.Repo) string {
	if p, err := filepath.EvalSymlinks(r.CommonDir); err == nil {
		return p
	}
	return r.CommonDir
}

// Pending is a command that is not trusted here, with what people need to
// decide: the text trusted at the same place before, and the commit that
// last changed it.
type Pending struct {
	Command
	Previous *string `json:"previous"` // nil: nothing was trusted there before
	Change   *Change `json:"changed_in,omitempty"`
}

// Missing returns those of cmds not trusted in repository r, with nothing
// more (Untrusted adds what people need to decide). Empty texts run
// nothing and need no trust, but for gates (Command.Gate).
func Missing(r *repo.Repo, cmds ...Command) ([]Command, *Set, error) {
	if len(cmds) == 0 {
		return nil, nil, nil
	}
	st, err := DefaultStore()
	if err != nil {
		return nil, nil, err
	}
	id := Repository(r)
	var hashes, places []string
	for _, c := range cmds {
		switch {
		case c.Gate == NoGate || c.Gate == GateText && !empty(c.Text):
			if !empty(c.Text) {
				hashes = append(hashes, Hash(id, c.Where(), c.Text))
			}
		default:
			places = append(places, c.Where())
		}
	}
	// The common answer, everything trusted, costs one read and a scan:
	// every hash there, no gate judged by a text trusted at its place.
	if all, err := st.Probe(hashes, places); err != nil || all && basesHold(cmds) {
		return nil, nil, err
	}
	set, err := st.Load()
	if err != nil {
		return nil, nil, err
	}
	var out []Command
	seen := map[[2]string]bool{}
	for _, c := range cmds {
		k := [2]string{c.Where(), c.Text}
		if c.trustedIn(set, id) || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, c)
	}
	return out, set, nil
}

func empty(s string) bool { return strings.TrimSpace(s) == "" }

// trustedIn reports whether set trusts c in repository id.
func (c Command) trustedIn(set *Set, id string) bool {
	switch {
	case c.Gate == GateList:
		base := c.Base
		if rec, ok := set.Previous(id, c.Where()); ok {
			base = rec.Text
		}
		return len(Removed(base, c.Text)) == 0
	case empty(c.Text):
		if c.Gate == NoGate {
			return true
		}
		rec, ok := set.Previous(id, c.Where())
		return !ok || empty(rec.Text)
	}
	return set.Trusted(id, c.Where(), c.Text)
}

// basesHold reports whether each list gate keeps everything of its Base:
// what decides where nothing was trusted at its place.
func basesHold(cmds []Command) bool {
	for _, c := range cmds {
		if c.Gate == GateList && len(Removed(c.Base, c.Text)) > 0 {
			return false
		}
	}
	return true
}

// Removed are the entries of the JSON list was that the JSON list is
// lacks (a text that is no list counts as holding nothing).
func Removed(was, is string) []string {
	var a, b []string
	_ = json.Unmarshal([]byte(was), &a)
	_ = json.Unmarshal([]byte(is), &b)
	have := map[string]bool{}
	for _, x := range b {
		have[x] = true
	}
	var out []string
	for _, x := range a {
		if !have[x] {
			out = append(out, x)
		}
	}
	return out
}

// Untrusted returns those of cmds not trusted in repository r, each with
// the text trusted at its place before and the commit that last changed it.
func Untrusted(r *repo.Repo, cmds ...Command) ([]Pending, error) {
	missing, set, err := Missing(r, cmds...)
	if err != nil || len(missing) == 0 {
		return nil, err
	}
	id := Repository(r)
	out := make([]Pending, 0, len(missing))
	for _, c := range missing {
		p := Pending{Command: c, Change: lastChange(r, c)}
		if rec, ok := set.Previous(id, c.Where()); ok {
			p.Previous = &rec.Text
		} else if c.Gate == GateList {
			base := c.Base
			p.Previous = &base
		}
		out = append(out, p)
	}
	return out, nil
}

// Check is the question every verb asks before it runs commands from the
// workflow branch: nil when each was trusted here, else an exit-1 error
// that shows what changed, who changed it, and the one command to run.
func Check(r *repo.Repo, cmds ...Command) error {
	ps, err := Untrusted(r, cmds...)
	if err != nil || len(ps) == 0 {
		return err
	}
	return Refusal(r, ps).WithFix("git burl trust")
}

// Refusal is the error for pending commands: each with what changed and
// who changed it.
func Refusal(r *repo.Repo, ps []Pending) *errs.Error {
	title := "Not trusted on this machine: " + ps[0].Describe()
	if len(ps) > 1 {
		title = fmt.Sprintf("%d commands from the workflow branch are not trusted on this machine", len(ps))
	}
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.Explain(r))
	}
	return errs.New(errs.User, "%s", strings.TrimRight(b.String(), "\n")).WithTitle("%s", title)
}

// Explain is a pending command as the error and `git burl trust` show it:
// where, who changed it last, and the text against the one trusted before.
func (p Pending) Explain(r *repo.Repo) string {
	var b strings.Builder
	where := p.Describe()
	if p.Path != "" {
		where = p.Key + " in " + r.Rel(p.Path)
	}
	b.WriteString(where)
	if p.Change != nil {
		fmt.Fprintf(&b, ", last changed in %s by %s (%s)", p.Change.Commit, p.Change.Author, p.Change.Date)
		if p.Change.Uncommitted {
			b.WriteString(" and since changed without a commit")
		}
	}
	b.WriteString(":\n")
	switch {
	case p.Gate == GateList && p.Previous != nil:
		fmt.Fprintf(&b, "  removes %s: a gate checks less\n", strings.Join(Removed(*p.Previous, p.Text), ", "))
	case p.Gate == GateText && empty(p.Text):
		b.WriteString("  empty: the gate no longer runs\n")
	}
	if p.Previous == nil {
		b.WriteString("  (nothing was trusted here before)\n")
	} else {
		for _, l := range strings.Split(*p.Previous, "\n") {
			fmt.Fprintf(&b, "  - %s\n", l)
		}
	}
	for _, l := range strings.Split(p.Text, "\n") {
		fmt.Fprintf(&b, "  + %s\n", l)
	}
	return b.String()
}

// Grant trusts cmds in repository r.
func Grant(r *repo.Repo, cmds ...Command) error {
	st, err := DefaultStore()
	if err != nil {
		return err
	}
	id := Repository(r)
	var recs []Record
	for _, c := range cmds {
		// A gate's text is recorded empty too: it is the one its place
		// is judged by from now on.
		if !empty(c.Text) || c.Gate != NoGate {
			recs = append(recs, NewRecord(id, c.Where(), c.Text))
		}
	}
	return st.Add(recs...)
}

// Implicit trusts what the user wrote on burl's own command line (add
// --verify) or what init wrote, except inside a watch run, where the
// "user" may be an agent: there nothing is trusted implicitly, and
// granted is false.
func Implicit(r *repo.Repo, cmds ...Command) (granted bool, err error) {
	if r.InWatchRun() {
		return false, nil
	}
	// An empty text typed or written by init weakens nothing: recorded,
	// it would only make the store bigger.
	var keep []Command
	for _, c := range cmds {
		if !empty(c.Text) {
			keep = append(keep, c)
		}
	}
	return true, Grant(r, keep...)
}
