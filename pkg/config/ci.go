package config

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// CI is the forge's checks as a gate (DESIGN §21): what a pull request (or,
// with Queue forge, a merge queue candidate) waits for before it lands.
type CI struct {
	// Checks is none (the forge's checks are not read), required (the
	// checks the forge marks required for the main branch) or all (every
	// check reported on the head). Unset, it is required where something
	// waits for the forge (landing: pr, queue_ci: forge), else none.
	Checks string
	// Timeout is how long a head may wait for its checks: a check still
	// pending or never reported by then fails, named.
	Timeout time.Duration
	// MaxRounds is how many times failed checks send a task back before it
	// is BLOCKED for a human.
	MaxRounds int
	// LogCommand is an argv (a trusted command, DESIGN §16) that prints a
	// failed check's log where the forge does not serve it.
	LogCommand []string
	// Queue is none (approve --all's build_command is the queue's only
	// build) or forge (each batch candidate is pushed to burl/queue/<n>
	// and waits for the forge's checks too).
	Queue string
}

// DefaultCI is CI for a config that sets none of its keys, landing local.
func DefaultCI() CI {
	return CI{Checks: "none", Timeout: 30 * time.Minute, MaxRounds: 2, Queue: "none"}
}

// Gates reports whether the forge's checks are read at all.
func (c CI) Gates() bool { return c.Checks == "required" || c.Checks == "all" }

var ciTimeoutField = field{func(c *Config, v *yaml.Node) error {
	d, err := time.ParseDuration(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || d <= 0 {
		return fmt.Errorf("must be a positive duration such as 30m or 90s, not %q", v.Value)
	}
	c.CI.Timeout = d
	return nil
}}

var ciLogCommandField = field{func(c *Config, v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		c.CI.LogCommand = nil
		return nil
	}
	argv, err := argvOf(v)
	if err != nil {
		return err
	}
	c.CI.LogCommand = argv
	return nil
}}

// DefaultChecks is checks: where the file does not set it: the forge's
// required checks wherever burl waits for the forge at all.
func (c *Config) DefaultChecks() string {
	if c.Landing == "pr" || c.CI.Queue == "forge" {
		return "required"
	}
	return "none"
}

// resolveCI fills the default of checks from landing and queue_ci once
// the whole file is read, and refuses or warns about combinations that
// would wait for nothing. seen maps each key the file sets to its line.
func (c *Config) resolveCI(name string, seen map[string]int) error {
	ci := &c.CI
	line, set := seen["checks"]
	if !set {
		ci.Checks = c.DefaultChecks()
		return nil
	}
	if ci.Queue == "forge" && !ci.Gates() {
		return &Error{File: name, Line: line, Key: "checks", Msg: fmt.Sprintf("is %q, but queue_ci: forge (line %d) waits for the forge's checks: set checks: required or all, or queue_ci: none", ci.Checks, seen["queue_ci"])}
	}
	if ci.Gates() && c.Landing != "pr" && ci.Queue != "forge" {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d: checks: %s waits for nothing with landing: %s and queue_ci: none (set landing: pr or queue_ci: forge)", name, line, ci.Checks, c.Landing))
	}
	return nil
}
