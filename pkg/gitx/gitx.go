// Package gitx is the one way burl runs git: argv arrays (never a shell
// string), typed errors that carry git's stderr, retries while git's own
// lock files are held by another process, and a trace mode (BURL_TRACE=1)
// that prints every git command with its duration.
package gitx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/faults"
)

// Git runs git commands in one directory.
type Git struct {
	Dir string
	// Env is appended to the process environment for every command.
	Env []string
	// OwnRepo drops the repository git inherited into a hook (GIT_DIR,
	// GIT_WORK_TREE, GIT_INDEX_FILE, ...): Dir alone then names the
	// repository, as for the workflow worktree read from a task's hook.
	OwnRepo bool
	// UserHooks leaves out burl's hooks-off settings (noHooks): for reading
	// where the user's hooks are, never for running anything.
	UserHooks bool
}

// In returns a runner for dir.
func In(dir string) Git { return Git{Dir: dir} }

// Error is a git command that exited non-zero or could not start.
type Error struct {
	Args     []string
	Dir      string
	ExitCode int
	Stderr   string
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.ExitCode)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// ErrKind makes every git failure exit 3 unless a caller classifies it.
func (e *Error) ErrKind() errs.Kind { return errs.Git }

// ExitCodeOf returns git's exit code for err, or -1 when err is not a git exit.
func ExitCodeOf(err error) int {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

var trace = os.Getenv("BURL_TRACE") != ""

// lockWait bounds how long we wait for another git process's index.lock or
// ref lock: agents run many git commands at once in one repository, and a
// held lock is almost always released within milliseconds.
const lockWait = 10 * time.Second

// noHooks precedes every git command burl runs: nothing a worker or an
// agent planted (a hook, core.hooksPath, core.fsmonitor) runs inside
// burl's own commits, rebases, merges and pushes (DESIGN §16).
var noHooks = []string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false"}

// program is the git burl runs: "git" on PATH, or the absolute path watch
// resolved at its start (SetProgram), so that no program a run wrote on
// PATH is burl's git afterwards (DESIGN §24).
var program = "git"

// SetProgram makes p (absolute) the git every later command runs.
func SetProgram(p string) { program = p }

// Program is the git burl runs.
func Program() string { return program }

func (g Git) command(args []string) *exec.Cmd {
	pre := noHooks
	if g.UserHooks {
		pre = nil
	}
	cmd := exec.Command(program, append(pre[:len(pre):len(pre)], args...)...)
	cmd.Dir = g.Dir
	// Our parsing of git's messages (lock contention, porcelain) needs the C
	// locale, and a credential prompt would hang an agent loop forever.
	env := os.Environ()
	if g.OwnRepo {
		env = withoutRepoEnv(env)
	}
	env = append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	cmd.Env = append(env, g.Env...)
	return cmd
}

// repoEnv are the variables by which git hands its repository to a hook.
var repoEnv = []string{"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_PREFIX=", "GIT_COMMON_DIR=", "GIT_OBJECT_DIRECTORY=", "GIT_ALTERNATE_OBJECT_DIRECTORIES=", "GIT_QUARANTINE_PATH="}

func withoutRepoEnv(env []string) []string {
	out := env[:0:0]
next:
	for _, kv := range env {
		for _, p := range repoEnv {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// Run runs git and returns stdout with surrounding whitespace trimmed.
func (g Git) Run(args ...string) (string, error) {
	out, err := g.RunInput(nil, args...)
	return strings.TrimSpace(string(out)), err
}

// RunOnce is Run without waiting out other gits' locks, for a command that
// is not safe to repeat: `worktree add -b` can create the branch and then
// fail, and its second run would fail for the branch it made.
func (g Git) RunOnce(args ...string) (string, error) {
	out, err := g.once(nil, args)
	return strings.TrimSpace(string(out)), err
}

// RunInput runs git with stdin and returns stdout untouched.
func (g Git) RunInput(stdin []byte, args ...string) ([]byte, error) {
	if stdin == nil {
		if out, err, ok := g.revParse(args); ok {
			return out, err
		}
		if err, ok := g.showRef(args); ok {
			return nil, err
		}
		if out, ok := g.revListCount(args); ok {
			return out, nil
		}
		if err, ok := g.isAncestor(args); ok {
			return nil, err
		}
	}
	deadline := time.Now().Add(lockWait)
	delay := 5 * time.Millisecond
	for {
		out, err := g.once(stdin, args)
		if err == nil || !lockContention(args, err) || time.Now().After(deadline) {
			return out, err
		}
		time.Sleep(delay)
		if delay < 200*time.Millisecond {
			delay *= 2
		}
	}
}

func (g Git) once(stdin []byte, args []string) ([]byte, error) {
	cmd := g.command(args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	start := time.Now()
	err := cmd.Run()
	faults.GitDone(args)
	if trace {
		fmt.Fprintf(os.Stderr, "[%s] git %s (%s)\n", g.Dir, strings.Join(args, " "), time.Since(start).Round(time.Microsecond))
	}
	if err != nil {
		return stdout.Bytes(), wrap(args, g.Dir, err, stderr.String())
	}
	return stdout.Bytes(), nil
}

func wrap(args []string, dir string, err error, stderr string) error {
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if stderr == "" {
		stderr = err.Error()
	}
	return &Error{Args: args, Dir: dir, ExitCode: code, Stderr: stderr}
}

// lockContention recognises git failing because another git holds a lock,
// or is half-way through creating a worktree: `git worktree add` fills in
// .git/worktrees/<name>/ file by file, and a git that looks at every
// worktree meanwhile dies on the empty files: "failed to read
// .../worktrees/<name>/commondir: Success" (worktree add, branch -D,
// worktree list), "bad object worktrees/<name>/HEAD" (fetch).
func lockContention(args []string, err error) bool {
	var ge *Error
	if !errors.As(err, &ge) {
		return false
	}
	s := ge.Stderr
	// "cannot lock ref" also reports outcomes no wait can change. A ref that
	// moved between git's read and its write ("is at X but expected Y") is
	// worth another run when git read it itself (two fetches updating the
	// same remote-tracking ref), but not when the caller supplied the old
	// value: update-ref's compare-and-swap lost for good. Nor is a name
	// that clashes with an existing ref.
	final := strings.Contains(s, "reference already exists") || strings.Contains(s, "exists; cannot create") ||
		subcommand(args) == "update-ref" && (strings.Contains(s, "but expected") || strings.Contains(s, "unable to resolve reference"))
	return strings.Contains(s, ".lock': File exists") ||
		strings.Contains(s, "cannot lock ref") && !final ||
		strings.Contains(s, "Unable to create") && strings.Contains(s, ".lock") ||
		strings.Contains(s, "could not lock config file") ||
		strings.Contains(s, "worktrees/") && (strings.Contains(s, "failed to read ") || strings.Contains(s, "bad object "))
}

// subcommand is the git command in args, after any "-c name=value".
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}

// Test runs git and maps exit 0 to true and exit 1 to false (as for
// `merge-base --is-ancestor`, `diff --quiet`, `config --get`); any other
// outcome is an error.
func (g Git) Test(args ...string) (bool, error) {
	_, err := g.Run(args...)
	if err == nil {
		return true, nil
	}
	if ExitCodeOf(err) == 1 {
		return false, nil
	}
	return false, err
}

// Proc is a running git whose output is read as it is produced, so large
// outputs (diffs) are never held in memory.
type Proc struct {
	g      Git
	args   []string
	cmd    *exec.Cmd
	out    io.ReadCloser
	stderr bytes.Buffer
	start  time.Time
}

// Start runs git without waiting for it. The caller reads Stdout and then
// calls Wait, or Kill when the output is no longer wanted.
func (g Git) Start(args ...string) (*Proc, error) {
	p, _, err := g.start(args, false)
	return p, err
}

// Pipe is Start with a pipe to git's standard input as well, for a
// conversation with a --batch command: the caller writes a request, reads
// its answer, and closes stdin before Wait.
func (g Git) Pipe(args ...string) (*Proc, io.WriteCloser, error) {
	return g.start(args, true)
}

func (g Git) start(args []string, stdin bool) (*Proc, io.WriteCloser, error) {
	p := &Proc{g: g, args: args, cmd: g.command(args)}
	p.cmd.Stderr = &p.stderr
	var in io.WriteCloser
	var err error
	if stdin {
		if in, err = p.cmd.StdinPipe(); err != nil {
			return nil, nil, err
		}
	}
	if p.out, err = p.cmd.StdoutPipe(); err != nil {
		return nil, nil, err
	}
	p.start = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, nil, wrap(args, g.Dir, err, "")
	}
	return p, in, nil
}

// Stdout is git's standard output.
func (p *Proc) Stdout() io.Reader { return p.out }

// Wait reads and drops whatever of stdout is left (so git never blocks on
// a full pipe), waits for git, and returns its failure as an *Error.
func (p *Proc) Wait() error {
	_, _ = io.Copy(io.Discard, p.out)
	err := p.cmd.Wait()
	// A streamed command is a crash point like any other: BURL_CRASH_AT_GIT
	// counts what BURL_TRACE prints.
	faults.GitDone(p.args)
	if trace {
		fmt.Fprintf(os.Stderr, "[%s] git %s (%s)\n", p.g.Dir, strings.Join(p.args, " "), time.Since(p.start).Round(time.Microsecond))
	}
	if err != nil {
		return wrap(p.args, p.g.Dir, err, p.stderr.String())
	}
	return nil
}

// Kill stops git and waits for it to be gone.
func (p *Proc) Kill() {
	_ = p.cmd.Process.Kill()
	_ = p.out.Close()
	_ = p.cmd.Wait()
}

// Tracking is the remote-tracking ref of branch on remote.
func Tracking(remote, branch string) string { return "refs/remotes/" + remote + "/" + branch }

// FetchTracking updates the remote-tracking ref of one branch of remote,
// forced: the remote's branch may have been rewritten.
func (g Git) FetchTracking(remote, branch string) error {
	_, err := g.Run(Fetch(remote, "+refs/heads/"+branch+":"+Tracking(remote, branch))...)
	return err
}

// Fetch is the argv of burl's fetches: incoming objects are verified
// (transfer.fsckObjects, DESIGN §16), so a malformed tree someone pushed (a
// ".." entry) is refused before any ref moves to it.
func Fetch(remote string, refspecs ...string) []string {
	return append([]string{"-c", "transfer.fsckObjects=true", "fetch", "-q", remote}, refspecs...)
}

// Short abbreviates a commit id for messages (10 hex digits, as burl prints
// them everywhere, so the same commit reads the same in every message).
func Short(sha string) string {
	if len(sha) > 10 {
		return sha[:10]
	}
	return sha
}

// Attached runs git with the given streams, for output a person reads
// (git diff): given the terminal, git pages and colours as it is set up
// to. Its failure is an *Error, without the stderr it already printed.
func (g Git) Attached(stdout, stderr io.Writer, args ...string) error {
	cmd := g.command(args)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	err := cmd.Run()
	faults.GitDone(args)
	if trace {
		fmt.Fprintf(os.Stderr, "[%s] git %s (%s)\n", g.Dir, strings.Join(args, " "), time.Since(start).Round(time.Microsecond))
	}
	if err != nil {
		return wrap(args, g.Dir, err, "")
	}
	return nil
}
