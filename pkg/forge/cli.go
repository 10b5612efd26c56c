package forge

// This file runs a forge's own command-line tool (gh, glab). burl never
// holds the forge's credentials for these: the tool keeps its own login
// (`gh auth login`, `glab auth login`), and nothing burl passes in argv or
// the environment is a token. Arguments go as an argv array (never through
// a shell); bodies go on stdin.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cliTimeout bounds one run of a forge's tool.
const cliTimeout = 60 * time.Second

// cli runs one forge tool.
type cli struct {
	tool    string        // the binary's name on PATH: gh, glab
	forge   string        // github, gitlab (names RateLimited.Forge)
	hint    string        // how to get the tool, for a missing binary
	env     []string      // added to the environment (GH_HOST, GITLAB_HOST)
	timeout time.Duration // 0: cliTimeout
}

// cliError is a run of the tool that failed: its exit status and its stderr.
type cliError struct {
	Tool   string
	Cmd    string // the subcommand, e.g. "pr create"
	Stderr string // trimmed
	// Stdout is what it printed before it failed: gh pr checks prints its
	// checks and exits 8 while some are pending.
	Stdout []byte
	Err    error
}

func (e *cliError) Error() string {
	if e.Stderr != "" {
		return fmt.Sprintf("%s %s: %s", e.Tool, e.Cmd, e.Stderr)
	}
	return fmt.Sprintf("%s %s: %v", e.Tool, e.Cmd, e.Err)
}

func (e *cliError) Unwrap() error { return e.Err }

// pinned are the forge CLIs watch resolved at its start (Pin): looked up
// on PATH again, they could be a program a run wrote (DESIGN §24).
var pinned sync.Map

// Pin makes path (absolute) the program every later call of tool runs.
func Pin(tool, path string) { pinned.Store(tool, path) }

// lookPath is tool's pinned path, else PATH's.
func lookPath(tool string) (string, error) {
	if p, ok := pinned.Load(tool); ok {
		return p.(string), nil
	}
	return exec.LookPath(tool)
}

// ready reports a missing tool before anything is pushed for it.
func (c *cli) ready() error {
	if _, err := lookPath(c.tool); err != nil {
		return fmt.Errorf("%s is not on PATH: %s", c.tool, c.hint)
	}
	return nil
}

// run runs the tool with args, stdin (may be empty) on its standard input,
// and returns its standard output. A missing binary, a timeout, a non-zero
// exit (with the tool's stderr) and a rate-limit answer (*RateLimited) are
// errors.
func (c *cli) run(stdin string, args ...string) ([]byte, error) {
	path, err := lookPath(c.tool)
	if err != nil {
		return nil, fmt.Errorf("%s is not on PATH: %s", c.tool, c.hint)
	}
	timeout := c.timeout
	if timeout <= 0 {
		timeout = cliTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(),
		// Never prompt, never page, never colour, never stop to say a
		// newer version exists: the answers are parsed.
		"GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "GH_PAGER=cat",
		"GLAB_CHECK_UPDATE=false", "NO_PROMPT=true", "PAGER=cat",
		"NO_COLOR=1", "CLICOLOR=0")
	cmd.Env = append(cmd.Env, c.env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A killed tool's children may hold the pipes open: stop waiting for
	// them shortly after the kill.
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	sub := subcommand(args)
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("%s %s: no answer within %s", c.tool, sub, timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if limited, retry := rateLimitedText(msg); limited {
			return nil, &RateLimited{Forge: c.forge, Retry: retry}
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return nil, fmt.Errorf("%s %s: %w", c.tool, sub, err)
		}
		return nil, &cliError{Tool: c.tool, Cmd: sub, Stderr: msg, Stdout: stdout.Bytes(), Err: err}
	}
	return stdout.Bytes(), nil
}

// subcommand names a run in messages by its leading words ("pr create",
// "api"), never by its values.
func subcommand(args []string) string {
	var words []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") || len(words) == 2 {
			break
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

var (
	// "API rate limit exceeded", "secondary rate limit", "rate limited".
	rateLimitRe = regexp.MustCompile(`(?i)rate[ -]?limit|abuse detection|too many requests|(?:^|http |: |status |code )429\b`)
	retryRe     = regexp.MustCompile(`(?i)retry[- ]after:?\s*(\d+)`)
)

// rateLimitedText reads a tool's stderr for a rate-limit answer: gh prints
// "API rate limit exceeded for ..." (HTTP 403) or "You have exceeded a
// secondary rate limit"; glab prints the API's "429 Too Many Requests". A
// bare 403 is a permission error, not a rate limit. A Retry-After in the
// text gives the wait, in seconds.
func rateLimitedText(stderr string) (bool, time.Duration) {
	if !rateLimitRe.MatchString(stderr) {
		return false, 0
	}
	if m := retryRe.FindStringSubmatch(stderr); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return true, time.Duration(n) * time.Second
		}
	}
	return true, 0
}
