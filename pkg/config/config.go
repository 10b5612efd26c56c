// Package config reads .burl/.workflow/config.yaml: the PRD 8.2 settings
// with their defaults. An invalid value is an error naming the key, the
// file and the line; an unknown key is a warning (a newer burl may have
// written it), with the nearest known key suggested.
package config

import (
	"bytes"
	"fmt"
	"math"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/suggest"
)

// Config is the parsed workflow configuration.
type Config struct {
	MaxParallel            int
	WorkflowBranch         string
	WorkflowWorktree       string
	WorkflowAutoCommit     bool
	WorkflowAutoPush       bool
	MainBranch             string
	Remote                 string
	MergeStrategy          string
	PushMainOnApprove      bool
	PushTaskBranchOnSubmit bool
	LockStaleMinutes       int
	UseGlobalClaimLock     bool
	QAMaxAttempts          int
	AutoPriorityBoost      bool
	BuildCommand           string
	BuildTimeout           time.Duration
	StubPatterns           []string
	StubCheckExtensions    []string
	ConflictPolicy         string
	// LeaseSeconds is how long a task claimed by watch stays its own without
	// a renewal; past it any watcher may take the task over.
	LeaseSeconds int
	// LeaseGrace is how long past lease_expires a takeover waits: the
	// clocks of two machines disagree (DESIGN §15).
	LeaseGrace time.Duration
	// RetryBackoff is how long watch waits before a task's next run after
	// a failed one or a rejection, doubled with each further failed round
	// up to 10m (DESIGN §20); 0 runs again at once.
	RetryBackoff time.Duration
	// LogMaxBytes caps each run log of watch (DESIGN §16): past it, the
	// first and last halves are kept with a marker between.
	LogMaxBytes int
	// QueueBatch is how many tasks approve --all stacks under one build.
	QueueBatch int
	// MaxCostUSDPerDay is the project's budget (DESIGN §27): once the
	// day's runs (UTC) cost this much, no watch claims; 0 is no cap.
	MaxCostUSDPerDay float64
	// WorktreeSetup, PortRange and Notify are a team's day (DESIGN §18).
	WorktreeSetup WorktreeSetup
	PortRange     PortRange
	Notify        []Notifier
	// Landing through the forge (DESIGN §17): Landing is local or pr;
	// Forge empty means detected from the remote's URL, ForgeURL empty
	// means derived from the remote.
	Landing      string
	Forge        string
	ForgeURL     string
	PRMerge      string
	PRMergeStyle string
	// PRClosed is where a task goes when its pull request is closed
	// without merge (DESIGN §20): blocked (a human said no) or ready
	// (Part III: back to the agent, as a QA rejection).
	PRClosed string
	// The forge's CI as a gate (DESIGN §21): see ci.go.
	CI CI
	// Stack: a task whose one unfinished dependency is submitted can be
	// claimed on that parent's submitted head (DESIGN §26).
	Stack bool
	// Gate is what config.yaml says of the gate box (gatebox.go).
	Gate GateBox

	// Warnings are unknown keys and other things worth telling the user.
	Warnings []string
}

// DefaultStubPatterns is the PRD 8.2 list.
var DefaultStubPatterns = []string{
	"TODO", "FIXME", "XXX", "HACK", "unimplemented!", "todo!",
	`panic!\s*\(\s*"not implemented`, "NotImplementedError", "raise NotImplemented",
	`^\s*pass\s*$`, `^\s*\.\.\.\s*$`,
}

// DefaultStubExtensions is the PRD list plus common source extensions.
var DefaultStubExtensions = []string{
	"rs", "py", "ts", "js", "tsx", "jsx", "go", "java", "kt", "rb", "c", "h", "cc", "cpp", "cs", "swift", "sh",
}

// Default is the configuration used for keys a file does not set.
func Default() *Config {
	return &Config{
		MaxParallel:         3,
		WorkflowBranch:      "burl",
		WorkflowWorktree:    ".burl",
		WorkflowAutoCommit:  true,
		MainBranch:          "main",
		Remote:              "origin",
		MergeStrategy:       "rebase_ff_only",
		LockStaleMinutes:    120,
		LeaseSeconds:        900,
		LeaseGrace:          60 * time.Second,
		RetryBackoff:        30 * time.Second,
		LogMaxBytes:         64 << 20,
		QueueBatch:          4,
		UseGlobalClaimLock:  true,
		QAMaxAttempts:       3,
		AutoPriorityBoost:   true,
		BuildTimeout:        30 * time.Minute,
		StubPatterns:        append([]string(nil), DefaultStubPatterns...),
		StubCheckExtensions: append([]string(nil), DefaultStubExtensions...),
		ConflictPolicy:      "fail",
		PortRange:           DefaultPortRange,
		Landing:             "local",
		PRMerge:             "auto",
		PRMergeStyle:        "rebase",
		PRClosed:            "blocked",
		CI:                  DefaultCI(),
	}
}

// Error is an invalid config value.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
}

type field struct {
	set func(c *Config, v *yaml.Node) error
}

func boolField(get func(*Config) *bool) field {
	return field{func(c *Config, v *yaml.Node) error {
		var b bool
		if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
			return fmt.Errorf("must be true or false, not %q", v.Value)
		}
		*get(c) = b
		return nil
	}}
}

func intField(min int, get func(*Config) *int) field {
	return field{func(c *Config, v *yaml.Node) error {
		n, err := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil || n < min {
			return fmt.Errorf("must be a whole number >= %d, not %q", min, v.Value)
		}
		*get(c) = n
		return nil
	}}
}

func strField(allowed []string, get func(*Config) *string) field {
	return field{func(c *Config, v *yaml.Node) error {
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("must be a string")
		}
		s := v.Value
		if v.Tag == "!!null" {
			s = ""
		}
		if allowed != nil {
			ok := false
			for _, a := range allowed {
				ok = ok || a == s
			}
			if !ok {
				return fmt.Errorf("must be one of %s, not %q", strings.Join(allowed, ", "), s)
			}
		}
		*get(c) = s
		return nil
	}}
}

func listField(get func(*Config) *[]string) field {
	return field{func(c *Config, v *yaml.Node) error {
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			*get(c) = nil
			return nil
		}
		if v.Kind != yaml.SequenceNode {
			return fmt.Errorf("must be a list")
		}
		var out []string
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode {
				return fmt.Errorf("entries must be strings")
			}
			out = append(out, it.Value)
		}
		*get(c) = out
		return nil
	}}
}

var refName = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)

var yamlLineRe = regexp.MustCompile(`^line (\d+): `)

// ValidName reports whether s is acceptable as main_branch, remote or
// workflow_branch, so that init can refuse a flag before writing anything.
func ValidName(s string) bool {
	return refName.MatchString(s) && !strings.Contains(s, "..") && !strings.HasPrefix(s, "-")
}

func nameField(get func(*Config) *string) field {
	return field{func(c *Config, v *yaml.Node) error {
		if v.Kind != yaml.ScalarNode || !ValidName(v.Value) {
			return fmt.Errorf("must be a branch or remote name, not %q", v.Value)
		}
		*get(c) = v.Value
		return nil
	}}
}

// branchField is a branch name: the config lives on the shared workflow
// branch, and the value reaches git's argv (see gitx.ValidBranch).
func branchField(get func(*Config) *string) field {
	return field{func(c *Config, v *yaml.Node) error {
		if v.Kind != yaml.ScalarNode || !gitx.ValidBranch(v.Value) {
			return fmt.Errorf("must be a branch or remote name, not %q (a short branch name: no refs/ prefix, no leading -, no spaces, .. or ~^:?*[\\)", v.Value)
		}
		*get(c) = v.Value
		return nil
	}}
}

var fields = map[string]field{
	"max_parallel":                 intField(0, func(c *Config) *int { return &c.MaxParallel }),
	"workflow_branch":              branchField(func(c *Config) *string { return &c.WorkflowBranch }),
	"workflow_worktree":            strField(nil, func(c *Config) *string { return &c.WorkflowWorktree }),
	"workflow_auto_commit":         boolField(func(c *Config) *bool { return &c.WorkflowAutoCommit }),
	"workflow_auto_push":           boolField(func(c *Config) *bool { return &c.WorkflowAutoPush }),
	"main_branch":                  branchField(func(c *Config) *string { return &c.MainBranch }),
	"remote":                       nameField(func(c *Config) *string { return &c.Remote }),
	"merge_strategy":               strField([]string{"rebase_ff_only", "ff_only", "squash", "manual"}, func(c *Config) *string { return &c.MergeStrategy }),
	"stack":                        boolField(func(c *Config) *bool { return &c.Stack }),
	"push_main_on_approve":         boolField(func(c *Config) *bool { return &c.PushMainOnApprove }),
	"push_task_branch_on_submit":   boolField(func(c *Config) *bool { return &c.PushTaskBranchOnSubmit }),
	"lock_stale_minutes":           intField(1, func(c *Config) *int { return &c.LockStaleMinutes }),
	"use_global_claim_lock":        boolField(func(c *Config) *bool { return &c.UseGlobalClaimLock }),
	"qa_max_attempts":              intField(1, func(c *Config) *int { return &c.QAMaxAttempts }),
	"auto_priority_boost_on_retry": boolField(func(c *Config) *bool { return &c.AutoPriorityBoost }),
	"build_command":                strField(nil, func(c *Config) *string { return &c.BuildCommand }),
	"build_timeout": {func(c *Config, v *yaml.Node) error {
		d, err := time.ParseDuration(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil || d <= 0 {
			return fmt.Errorf("must be a positive duration such as 30m or 90s, not %q", v.Value)
		}
		c.BuildTimeout = d
		return nil
	}},
	"stub_patterns":         listField(func(c *Config) *[]string { return &c.StubPatterns }),
	"stub_check_extensions": listField(func(c *Config) *[]string { return &c.StubCheckExtensions }),
	"lease_seconds":         intField(1, func(c *Config) *int { return &c.LeaseSeconds }),
	"lease_grace":           waitField("60s or 0s", func(c *Config) *time.Duration { return &c.LeaseGrace }),
	"retry_backoff":         waitField("30s, 2m or 0s", func(c *Config) *time.Duration { return &c.RetryBackoff }),

	"log_max_bytes":   intField(4096, func(c *Config) *int { return &c.LogMaxBytes }),
	"queue_batch":     intField(1, func(c *Config) *int { return &c.QueueBatch }),
	"conflict_policy": strField([]string{"fail", "warn", "ignore"}, func(c *Config) *string { return &c.ConflictPolicy }),
	"worktree_setup":  worktreeSetupField,
	"port_range":      portRangeField,
	"notify":          notifyField,
	"landing":         strField([]string{"local", "pr"}, func(c *Config) *string { return &c.Landing }),
	"forge":           strField([]string{"", "github", "gitlab", "gitea"}, func(c *Config) *string { return &c.Forge }),
	"forge_url":       forgeURLField,
	"pr_merge":        strField([]string{"auto", "none"}, func(c *Config) *string { return &c.PRMerge }),
	"pr_merge_style":  strField([]string{"rebase", "squash", "merge"}, func(c *Config) *string { return &c.PRMergeStyle }),
	"pr_closed":       strField([]string{"blocked", "ready"}, func(c *Config) *string { return &c.PRClosed }),
	"checks":          strField([]string{"none", "required", "all"}, func(c *Config) *string { return &c.CI.Checks }),
	"ci_timeout":      ciTimeoutField,
	"ci_max_rounds":   intField(1, func(c *Config) *int { return &c.CI.MaxRounds }),
	"ci_log_command":  ciLogCommandField,
	"queue_ci":        strField([]string{"none", "forge"}, func(c *Config) *string { return &c.CI.Queue }),

	"max_cost_usd_per_day": {func(c *Config, v *yaml.Node) error {
		f, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("must be an amount in US dollars, 0 (no cap) or more, such as 25 or 7.5, not %q", v.Value)
		}
		c.MaxCostUSDPerDay = f
		return nil
	}},
	// The gate box (gatebox.go).
	"sandbox":       strField([]string{"", "auto", "bwrap", "none"}, func(c *Config) *string { return &c.Gate.Sandbox }),
	"gate_network":  boolField(func(c *Config) *bool { return &c.Gate.Network }),
	"sandbox_write": listField(func(c *Config) *[]string { return &c.Gate.Write }),
}

// waitField is a duration that may be 0 (no wait); examples are shown
// when the value is not one.
func waitField(examples string, p func(*Config) *time.Duration) field {
	return field{func(c *Config, v *yaml.Node) error {
		d, err := time.ParseDuration(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil || d < 0 {
			return fmt.Errorf("must be a duration such as %s, not %q", examples, v.Value)
		}
		*p(c) = d
		return nil
	}}
}

// forgeURLField is an http(s) API base: the token is sent there, so a
// scheme that is neither (file:, a bare host) is refused rather than guessed.
var forgeURLField = field{func(c *Config, v *yaml.Node) error {
	s := v.Value
	if v.Tag == "!!null" {
		s = ""
	}
	u, err := url.Parse(s)
	if v.Kind != yaml.ScalarNode || (s != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil)) {
		return fmt.Errorf("must be an http(s) URL without credentials such as https://gitea.example.com, not %q", v.Value)
	}
	c.ForgeURL = strings.TrimSuffix(s, "/")
	return nil
}}

// keys is every known key, sorted, for suggestions.
var keys = func() []string {
	out := make([]string, 0, len(fields))
	for k := range fields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}()

// Parse reads config bytes; name is the file's path for messages.
func Parse(name string, data []byte) (*Config, error) {
	c := Default()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// yaml.v3 puts the line inside its message ("yaml: line 4: ...");
		// lift it out so the error reads file:line like every other one.
		msg, line := strings.TrimPrefix(err.Error(), "yaml: "), 0
		if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.TrimPrefix(msg, m[0])
		}
		return nil, &Error{File: name, Line: line, Key: "(file)", Msg: "invalid YAML: " + msg}
	}
	if len(doc.Content) == 0 {
		return c, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: name, Line: root.Line, Key: "(file)", Msg: "must be a mapping of keys to values"}
	}
	seen := map[string]int{}
	var stubs *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		// A repeated key silently overriding the first is how an edit
		// "does nothing"; say which line wins instead of guessing.
		if first, dup := seen[k.Value]; dup {
			return nil, &Error{File: name, Line: k.Line, Key: k.Value, Msg: fmt.Sprintf("set twice (first on line %d); keep one", first)}
		}
		seen[k.Value] = k.Line
		if k.Value == "stub_patterns" {
			stubs = v
		}
		f, ok := fields[k.Value]
		if !ok {
			w := fmt.Sprintf("%s:%d: unknown key %q ignored", name, k.Line, k.Value)
			if s := suggest.Nearest(k.Value, keys, 4); s != "" {
				w += fmt.Sprintf(" (did you mean %s?)", s)
			}
			c.Warnings = append(c.Warnings, w)
			continue
		}
		if err := f.set(c, v); err != nil {
			return nil, &Error{File: name, Line: k.Line, Key: k.Value, Msg: err.Error()}
		}
	}
	if c.WorkflowBranch != "" && c.WorkflowBranch == c.MainBranch {
		return nil, &Error{File: name, Line: seen["workflow_branch"], Key: "workflow_branch", Msg: fmt.Sprintf("is %q, the same branch as main_branch: task files would land in your code", c.WorkflowBranch)}
	}
	if err := c.resolveCI(name, seen); err != nil {
		return nil, err
	}
	for i, p := range c.StubPatterns {
		if _, err := regexp.Compile(p); err != nil {
			// Point at the entry itself: the list is long.
			line := root.Line
			if stubs != nil && i < len(stubs.Content) {
				line = stubs.Content[i].Line
			}
			return nil, &Error{File: name, Line: line, Key: "stub_patterns", Msg: fmt.Sprintf("entry %d %q is not a valid regular expression: %v", i+1, p, err)}
		}
	}
	return c, nil
}

// Load reads the config file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Render writes the initial config file: every key with its default and a
// comment, so the file documents itself.
func Render(c *Config) []byte {
	var b bytes.Buffer
	q := func(s string) string {
		out, _ := yaml.Marshal(s)
		return strings.TrimSpace(string(out))
	}
	list := func(xs []string) string {
		var parts []string
		for _, x := range xs {
			parts = append(parts, "  - "+q(x))
		}
		return "\n" + strings.Join(parts, "\n")
	}
	fmt.Fprintf(&b, `# burl workflow configuration (see git-burl(1) for every key).
max_parallel: %d                 # tasks allowed in DOING at once (0 = no cap)

# Workflow state (durable, in git). workflow_branch/workflow_worktree are
# informational here: the clone's git config burl.branch / burl.worktree decide.
workflow_branch: %s
workflow_worktree: %s
workflow_auto_commit: %t        # commit workflow state after every transition
workflow_auto_push: %t         # push it too (the remote is the coordination point)

# Git behaviour
main_branch: %s
remote: %s
merge_strategy: %s   # rebase_ff_only | ff_only | squash | manual
push_main_on_approve: %t
push_task_branch_on_submit: %t

# Concurrency/locks
lock_stale_minutes: %d
use_global_claim_lock: %t

# QA policy
qa_max_attempts: %d
auto_priority_boost_on_retry: %t

# Validation: run in the task worktree; "" disables the build gate
build_command: %s
build_timeout: %s

# Stub patterns are applied to ADDED lines of the diff only
stub_patterns:%s

stub_check_extensions: [%s]

# When declared scopes of a READY task and a DOING task overlap
conflict_policy: %s            # fail | warn | ignore

# approve --all stacks up to this many QA tasks under one build_command run
queue_batch: %d

# No watch claims once the day's (UTC) agent runs cost this much, in US
# dollars (0 = no cap)
max_cost_usd_per_day: %s

# Each DOING task gets a free TCP port from this range in BURL_PORT
port_range: %s
# Files a new task worktree needs that git does not track, and a command
# run in it after claim (trusted first: git burl trust):
# worktree_setup:
#   copy: [.env]
#   link: [node_modules]
#   command: [npm, ci]
# Commands given one event's JSON on stdin, for the actions listed:
# notify:
#   - on: [block, reject, approve]
#     command: [notify-send, burl]
`, c.MaxParallel, c.WorkflowBranch, q(c.WorkflowWorktree), c.WorkflowAutoCommit, c.WorkflowAutoPush,
		c.MainBranch, c.Remote, c.MergeStrategy, c.PushMainOnApprove, c.PushTaskBranchOnSubmit,
		c.LockStaleMinutes, c.UseGlobalClaimLock, c.QAMaxAttempts, c.AutoPriorityBoost,
		q(c.BuildCommand), c.BuildTimeout, list(c.StubPatterns), strings.Join(c.StubCheckExtensions, ", "), c.ConflictPolicy, c.QueueBatch,
		strconv.FormatFloat(c.MaxCostUSDPerDay, 'f', -1, 64), c.PortRange)
	return b.Bytes()
}
