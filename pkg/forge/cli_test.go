package forge

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeCLI puts testdata/fakecli.sh first on PATH as gh and glab: each run
// logs its argv, GH_HOST/GITLAB_HOST and stdin, and answers from files the
// test names per subcommand (see the script).
type fakeCLI struct {
	t       *testing.T
	answers string
	log     string
}

// Tokens a user may have in the environment: none of them may reach argv.
const (
	fakeGHToken = "ghp_ThisIsNotARealTokenButLooksLikeOne0"
	fakeGLToken = "glpat-NotARealTokenEither00"
)

func newFakeCLI(t *testing.T) *fakeCLI {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	f := &fakeCLI{t: t, answers: filepath.Join(dir, "answers"), log: filepath.Join(dir, "log")}
	for _, d := range []string{bin, f.answers} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script, err := os.ReadFile(filepath.Join("testdata", "fakecli.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"gh", "glab"} {
		if err := os.WriteFile(filepath.Join(bin, tool), script, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKECLI_LOG", f.log)
	t.Setenv("FAKECLI_ANSWERS", f.answers)
	t.Setenv("GH_HOST", "")
	t.Setenv("GITLAB_HOST", "")
	t.Setenv("GH_TOKEN", fakeGHToken)
	t.Setenv("GITLAB_TOKEN", fakeGLToken)
	return f
}

// answer makes every call of key (e.g. "pr-list", "api") print the
// recorded document testdata/file.
func (f *fakeCLI) answer(key, file string) {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		f.t.Fatal(err)
	}
	f.set(key+".out", string(b))
}

// answerNth answers only the nth call of key (from 1) with file.
func (f *fakeCLI) answerNth(key string, n int, file string) {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		f.t.Fatal(err)
	}
	f.set(key+"."+strconv.Itoa(n)+".out", string(b))
}

// fail makes the nth call of key (0: every call) exit rc with stderr.
func (f *fakeCLI) fail(key string, n, rc int, stderr string) {
	f.t.Helper()
	name := key
	if n > 0 {
		name += "." + strconv.Itoa(n)
	}
	f.set(name+".err", stderr)
	f.set(name+".rc", strconv.Itoa(rc))
}

func (f *fakeCLI) set(name, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.answers, name), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

type call struct {
	Tool  string
	Args  []string
	Env   map[string]string
	Stdin string
}

// calls reads back every run the fake saw, in order.
func (f *fakeCLI) calls() []call {
	f.t.Helper()
	b, err := os.ReadFile(f.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	var out []call
	for _, rec := range strings.SplitAfter(string(b), "\n--end--\n") {
		if rec == "" {
			continue
		}
		rec = strings.TrimSuffix(rec, "\n--end--\n")
		head, stdin, ok := strings.Cut(rec, "\nstdin\n")
		if !ok {
			f.t.Fatalf("malformed log record %q", rec)
		}
		c := call{Env: map[string]string{}, Stdin: stdin}
		for _, line := range strings.Split(head, "\n") {
			kind, v, _ := strings.Cut(line, " ")
			switch kind {
			case "tool":
				c.Tool = v
			case "arg":
				c.Args = append(c.Args, v)
			case "env":
				k, val, _ := strings.Cut(v, "=")
				c.Env[k] = val
			}
		}
		out = append(out, c)
	}
	return out
}

var tokenLike = regexp.MustCompile(`(?i)gh[pousr]_|glpat-|token|bearer|authorization|password`)

// expectCalls compares the runs with want (tool, argv) and checks that no
// argument looks like a credential.
func (f *fakeCLI) expectCalls(want ...[]string) []call {
	f.t.Helper()
	got := f.calls()
	var gotArgv [][]string
	for _, c := range got {
		gotArgv = append(gotArgv, append([]string{c.Tool}, c.Args...))
		for _, a := range c.Args {
			if tokenLike.MatchString(a) || strings.Contains(a, fakeGHToken) || strings.Contains(a, fakeGLToken) {
				f.t.Errorf("%s was given a token-like argument %q", c.Tool, a)
			}
		}
	}
	if !reflect.DeepEqual(gotArgv, want) {
		f.t.Fatalf("argv:\n got %q\nwant %q", gotArgv, want)
	}
	return got
}

func TestSubcommand(t *testing.T) {
	for args, want := range map[string]string{
		"pr create --repo x": "pr create",
		"api --hostname h":   "api",
		"mr merge 7 --yes":   "mr merge",
	} {
		if got := subcommand(strings.Fields(args)); got != want {
			t.Errorf("subcommand(%q) = %q, want %q", args, got, want)
		}
	}
}

func TestRateLimitedText(t *testing.T) {
	for _, tc := range []struct {
		stderr  string
		limited bool
		retry   time.Duration
	}{
		{"HTTP 403: API rate limit exceeded for user ID 1. (https://api.github.com/graphql)", true, 0},
		{"GraphQL: API rate limit exceeded for user ID 1.", true, 0},
		{"HTTP 403: You have exceeded a secondary rate limit. Please wait a few minutes before you try again. Retry-After: 60", true, time.Minute},
		{"HTTP 429: Too Many Requests", true, 0},
		{"GET https://gitlab.example.com/api/v4/projects/a%2Fb/merge_requests: 429 {message: 429 Too Many Requests}", true, 0},
		{"HTTP 403: Resource not accessible by integration (https://api.github.com/graphql)", false, 0},
		{"HTTP 404: Not Found", false, 0},
		{"could not add label: 'burl' not found", false, 0},
		{"no pull requests match your search in OWNER/REPO; 4290 checked", false, 0},
	} {
		limited, retry := rateLimitedText(tc.stderr)
		if limited != tc.limited || retry != tc.retry {
			t.Errorf("rateLimitedText(%q) = %v, %v; want %v, %v", tc.stderr, limited, retry, tc.limited, tc.retry)
		}
	}
}

func TestCLITimeout(t *testing.T) {
	f := newFakeCLI(t)
	f.set("pr-list.sleep", "30")
	c := &cli{tool: "gh", forge: "github", timeout: 300 * time.Millisecond}
	start := time.Now()
	_, err := c.run("", "pr", "list")
	if err == nil || !strings.Contains(err.Error(), "gh pr list: no answer within 300ms") {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %s", d)
	}
	var rl *RateLimited
	if errors.As(err, &rl) {
		t.Fatal("a timeout is not a rate limit")
	}
}
