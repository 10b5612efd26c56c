package config

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// WorktreeSetup prepares a new task worktree (DESIGN §18): files the
// build needs that git does not track.
type WorktreeSetup struct {
	// Copy and Link are paths relative to the repository root, copied or
	// symlinked from the main worktree into the task's.
	Copy, Link []string
	// Command is an argv run in the new worktree after claim (a command
	// from the workflow branch: it runs only once trusted).
	Command []string
}

// Notifier runs Command with one event's JSON on stdin for the actions On.
type Notifier struct {
	On      []string
	Command []string
}

// PortRange is where BURL_PORT comes from.
type PortRange struct{ Lo, Hi int }

// DefaultPortRange is port_range's default.
var DefaultPortRange = PortRange{20000, 29999}

func (r PortRange) String() string { return fmt.Sprintf("%d-%d", r.Lo, r.Hi) }

func argvOf(v *yaml.Node) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, errors.New("must be an argv list such as [npm, ci], not a shell string")
	}
	out, err := strList(v)
	if err == nil && len(out) == 0 {
		err = errors.New("must not be empty")
	}
	return out, err
}

func strList(v *yaml.Node) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, errors.New("must be a list")
	}
	var out []string
	for _, it := range v.Content {
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
			return nil, errors.New("entries must be strings")
		}
		out = append(out, it.Value)
	}
	return out, nil
}

// InRepo refuses a setup path that may leave the repository: the
// workflow branch decides it, and a copy from ../../.ssh is not a build
// input. No absolute path, no .. anywhere (even one that would come back),
// no backslash; symlinks are checked where the path is used
// (workspace.Setup).
func InRepo(p string) error {
	c := path.Clean(p)
	if p == "" || path.IsAbs(p) || c == "." || strings.Contains(p, "\\") || slices.Contains(strings.Split(p, "/"), "..") {
		return fmt.Errorf("%q must be a path inside the repository, relative to its root, without ..", p)
	}
	return nil
}

var worktreeSetupField = field{func(c *Config, v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		c.WorktreeSetup = WorktreeSetup{}
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return errors.New("must be a mapping with copy, link and command")
	}
	var s WorktreeSetup
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		var err error
		switch k.Value {
		case "copy":
			s.Copy, err = strList(val)
		case "link":
			s.Link, err = strList(val)
		case "command":
			s.Command, err = argvOf(val)
		default:
			err = errors.New("unknown key (known: copy, link, command)")
		}
		if err == nil {
			for _, p := range append(append([]string{}, s.Copy...), s.Link...) {
				if err = InRepo(p); err != nil {
					break
				}
			}
		}
		if err != nil {
			return fmt.Errorf("%s (line %d): %v", k.Value, k.Line, err)
		}
	}
	c.WorktreeSetup = s
	return nil
}}

var portRangeField = field{func(c *Config, v *yaml.Node) error {
	lo, hi, ok := strings.Cut(v.Value, "-")
	a, aerr := strconv.Atoi(strings.TrimSpace(lo))
	b, berr := strconv.Atoi(strings.TrimSpace(hi))
	if v.Kind != yaml.ScalarNode || !ok || aerr != nil || berr != nil || a < 1024 || b > 65535 || a > b {
		return fmt.Errorf("must be a range of unprivileged ports such as 20000-29999, not %q", v.Value)
	}
	c.PortRange = PortRange{a, b}
	return nil
}}

var notifyField = field{func(c *Config, v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		c.Notify = nil
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		return errors.New("must be a list of {on: [actions], command: [argv]}")
	}
	var out []Notifier
	for _, n := range v.Content {
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: each entry must be {on: [actions], command: [argv]}", n.Line)
		}
		var nt Notifier
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			var err error
			switch k.Value {
			case "on":
				nt.On, err = strList(val)
				if err == nil && len(nt.On) == 0 {
					err = errors.New("names no action (such as block, reject, approve, run_end)")
				}
			case "command":
				nt.Command, err = argvOf(val)
			default:
				err = errors.New("unknown key (known: on, command)")
			}
			if err != nil {
				return fmt.Errorf("%s (line %d): %v", k.Value, k.Line, err)
			}
		}
		if nt.On == nil || nt.Command == nil {
			return fmt.Errorf("line %d: an entry needs both on and command", n.Line)
		}
		out = append(out, nt)
	}
	c.Notify = out
	return nil
}}
