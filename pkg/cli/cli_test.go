package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/errs"
)

type fakeCmd struct {
	JSONFlag
	Name string `long:"name"`
	err  error
}

type fakeOut struct {
	Greeting string `json:"greeting"`
}

func (o fakeOut) Human(w io.Writer) { io.WriteString(w, o.Greeting+"\n") }

func (c *fakeCmd) Run(ctx *Context, args []string) (Output, error) {
	if c.err != nil {
		return nil, c.err
	}
	return fakeOut{Greeting: "hello " + c.Name}, nil
}

func run(cmd Command, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	ctx := &Context{Stdout: &o, Stderr: &e, Stdin: strings.NewReader("")}
	code = Exec(ctx, "fake", "[--name N]", "A fake verb", cmd, args)
	return code, o.String(), e.String()
}

func TestHumanAndJSON(t *testing.T) {
	code, out, _ := run(&fakeCmd{}, "--name", "x")
	if code != 0 || out != "hello x\n" {
		t.Errorf("human: %d %q", code, out)
	}
	code, out, errOut := run(&fakeCmd{}, "--name", "x", "--json")
	if code != 0 || out != `{"ok":true,"greeting":"hello x"}`+"\n" || errOut != "" {
		t.Errorf("json: %d %q %q", code, out, errOut)
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	for _, k := range []errs.Kind{errs.User, errs.Validation, errs.Git, errs.Lock} {
		e := errs.New(k, "went wrong\nsecond line").WithTitle("Cannot fake").WithFix("do it right")
		code, out, errOut := run(&fakeCmd{err: e})
		if code != int(k) || out != "" {
			t.Errorf("kind %v: exit %d, stdout %q", k, code, out)
		}
		for _, want := range []string{"error: Cannot fake", "Reason: went wrong\nsecond line", "Fix: do it right"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("kind %v: stderr %q lacks %q", k, errOut, want)
			}
		}
		code, out, errOut = run(&fakeCmd{err: e}, "--json")
		var doc struct {
			OK    bool
			Error struct{ Kind, Message, Fix string }
		}
		if code != int(k) || errOut != "" || json.Unmarshal([]byte(out), &doc) != nil || doc.OK ||
			doc.Error.Kind != k.String() || doc.Error.Message != "Cannot fake: went wrong\nsecond line" || doc.Error.Fix != "do it right" {
			t.Errorf("kind %v --json: exit %d %q %q", k, code, out, errOut)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	code, out, errOut := run(&fakeCmd{}, "--bogus")
	if code != 1 || out != "" || !strings.Contains(errOut, "unknown flag `bogus'") || !strings.Contains(errOut, "Fix: git burl fake --help") {
		t.Errorf("bad flag: %d %q %q", code, out, errOut)
	}
	// --json after the bad flag was never parsed; the caller still asked
	// for JSON and must get the error as JSON.
	for _, args := range [][]string{{"--bogus", "--json"}, {"--json", "--bogus"}} {
		code, out, _ = run(&fakeCmd{}, args...)
		if code != 1 || !strings.HasPrefix(out, `{"ok":false,"error":{"kind":"user","message":"unknown flag`) {
			t.Errorf("%v: %d %q", args, code, out)
		}
	}
	if code, out, _ = run(&fakeCmd{}, "--bogus", "--", "--json"); code != 1 || out != "" {
		t.Errorf("--json after -- is an argument, not the option: %d %q", code, out)
	}
	code, out, _ = run(&fakeCmd{}, "--help")
	if code != 0 || !strings.Contains(out, "git burl fake [--name N]") || !strings.Contains(out, "--json") {
		t.Errorf("--help: %d %q", code, out)
	}
}

func TestPlainOutsideATerminalOrUnderNoColor(t *testing.T) {
	var buf strings.Builder
	if !plain(&buf) {
		t.Error("a buffer is not a terminal: want plain")
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no terminal to test with")
	}
	defer tty.Close()
	t.Setenv("NO_COLOR", "")
	if plain(tty) {
		t.Error("a terminal without NO_COLOR: want the emoji")
	}
	t.Setenv("NO_COLOR", "1")
	if !plain(tty) {
		t.Error("NO_COLOR set: want plain")
	}
}
