// Package cli is the glue every burl binary shares: go-flags parsing, human
// and --json output, error rendering and exit codes. A verb implements
// Command; Main does the rest, so every verb behaves the same way.
package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/jessevdk/go-flags"

	"github.com/burl-dev/burl/pkg/catalog"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/suggest"
)

// Context is what a verb gets besides its options.
type Context struct {
	Stdout io.Writer
	Stderr io.Writer
	Stdin  io.Reader
	Dir    string // the working directory
	JSON   bool
	// Verb names the command in the headline of an error that has none.
	Verb string
}

// Warnf prints a warning to stderr; stdout stays clean for --json.
func (c *Context) Warnf(format string, args ...any) {
	fmt.Fprintf(c.Stderr, "burl: warning: "+format+"\n", args...)
}

// Command is one verb. Its struct fields are go-flags options.
type Command interface {
	Run(ctx *Context, args []string) (Output, error)
}

// Output is a verb's result. It is marshalled as a JSON object for --json
// (with "ok": true added) and printed by Human otherwise.
type Output interface {
	Human(w io.Writer)
}

// Status is an Output whose command ran to the end but reports a non-zero
// exit code with a normal result, as doctor does when it finds problems
// (exit 2, yet "ok": true with the findings in --json).
type Status interface {
	ExitCode() int
}

// Brief is a command that reads and prints, in a process of its own, far
// less than the soft memory limit (status): Main has its GC run only at
// that limit. Over thousands of task summaries the proportional GC ran
// twice a status and its background sweep took as much CPU as the verb.
type Brief interface {
	Brief()
}

// PassUnknown is a command that hands the options it does not know, in
// their order, to the program it runs (git burl diff to git diff).
type PassUnknown interface {
	PassUnknown()
}

// JSONFlag is embedded in every verb's options.
type JSONFlag struct {
	JSON bool `long:"json" description:"Print one JSON document on stdout (see git-burl(1), JSON OUTPUT)"`
}

// Wants reports whether --json was given.
func (j JSONFlag) Wants() bool { return j.JSON }

// softMemoryLimit leaves room under 30 MiB for the runtime and binary.
const softMemoryLimit = 20 << 20

// minProcs is the fewest Ps a command runs with (see Main).
const minProcs = 4

// Main runs cmd, the catalog's verb called name, with args and returns the
// exit code. Each binary passes its own verb's constructor: no registry
// holds every verb, so the linker leaves the others out.
func Main(name string, cmd Command, args []string) int {
	v, ok := catalog.Find(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "burl: internal error: verb %q is not registered\n", name)
		return 1
	}
	// A soft heap limit: commands are short-lived and meant to stay small
	// (30 MiB peak); past it the GC works harder rather than letting a burst
	// of garbage (status parsing thousands of files) grow the heap. An
	// explicit GOMEMLIMIT still wins.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
		// The limit still bounds the heap; an explicit GOGC still wins.
		if _, brief := cmd.(Brief); brief && os.Getenv("GOGC") == "" {
			debug.SetGCPercent(-1)
		}
	}
	// A goroutine waiting for a git process holds its P in the syscall
	// until the runtime's monitor takes it back, up to 10 ms later; with
	// two gits running at once on a 2-core machine the goroutines that
	// feed their stdin and drain their stdout had no P, and both gits
	// stalled for that long. Spare Ps keep those goroutines running. An
	// explicit GOMAXPROCS still wins.
	if os.Getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) < minProcs {
		runtime.GOMAXPROCS(minProcs)
	}
	ctx := &Context{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin}
	ctx.Dir, _ = os.Getwd()
	return Exec(ctx, name, v.Usage, v.Summary, cmd, args)
}

// UsageError is the exit-1 error for arguments a verb cannot take: what
// names the problem, and the fix shows the verb's synopsis.
func UsageError(verb, what string) error {
	v, _ := catalog.Find(verb)
	return errs.New(errs.User, "git burl %s %s", verb, what).WithFix("usage: git burl %s %s", verb, v.Usage)
}

// parser is the go-flags parser of cmd's options.
func parser(verb, usage, summary string, cmd Command) (*flags.Parser, error) {
	opts := flags.Options(flags.HelpFlag | flags.PassDoubleDash)
	if _, ok := cmd.(PassUnknown); ok {
		// Without PassDoubleDash a -- stays among the arguments, where
		// the program run needs it (git diff ... -- PATH).
		opts = flags.HelpFlag | flags.IgnoreUnknown
	}
	p := flags.NewNamedParser("git burl "+verb, opts)
	p.Usage = usage
	p.ShortDescription = summary
	p.LongDescription = summary + "\n\nSee git help burl-" + verb + " for the manual page."
	_, err := p.AddGroup("Options", "", cmd)
	return p, err
}

// flagError is the user error for arguments p could not parse.
func flagError(p *flags.Parser, verb string, err error) error {
	e := errs.New(errs.User, "%v", err).WithFix("git burl %s --help", verb)
	var fe *flags.Error
	if errors.As(err, &fe) && fe.Type == flags.ErrUnknownFlag {
		if near := nearestFlag(p, err.Error()); near != "" {
			e = e.WithFix("did you mean %s? (git burl %s --help lists the options)", near, verb)
		}
	}
	return e
}

// Exec is Main with explicit streams, for tests.
func Exec(ctx *Context, verb, usage, summary string, cmd Command, args []string) int {
	ctx.Verb = verb
	p, err := parser(verb, usage, summary, cmd)
	if err != nil {
		fmt.Fprintf(ctx.Stderr, "burl: internal error: %v\n", err)
		return 1
	}
	rest, err := p.ParseArgs(args)
	if j, ok := cmd.(interface{ Wants() bool }); ok {
		ctx.JSON = j.Wants() || err != nil && asksJSON(args)
	}
	if err != nil {
		var fe *flags.Error
		if errors.As(err, &fe) && fe.Type == flags.ErrHelp {
			fmt.Fprint(ctx.Stdout, fe.Message)
			return 0
		}
		return Fail(ctx, flagError(p, verb, err))
	}
	out, err := cmd.Run(ctx, rest)
	if osx.Interrupted() {
		// Stopped by SIGINT/SIGTERM (osx.InterruptContext): the verb has
		// rolled back and released its locks; exit as the signal would.
		if err != nil {
			Fail(ctx, err)
		}
		return 130
	}
	if err != nil {
		return Fail(ctx, err)
	}
	code := 0
	if st, ok := out.(Status); ok {
		code = st.ExitCode()
	}
	if ctx.JSON {
		if rc := emitJSON(ctx, out); rc != 0 {
			return rc
		}
		return code
	}
	if out != nil {
		out.Human(escaper{ctx.Stdout})
	}
	return code
}

// Invoke runs the catalog's verb called name as Exec does with --json, for
// a caller in this process that presents the outcome itself (the MCP
// server): the JSON document Exec would print goes to ctx.Stdout, and a
// failure is returned still a value (Fail renders it); whatever was
// written then is no document.
func Invoke(ctx *Context, name string, cmd Command, args []string) error {
	v, ok := catalog.Find(name)
	if !ok {
		return fmt.Errorf("internal error: verb %q is not registered", name)
	}
	ctx.Verb, ctx.JSON = name, true
	p, err := parser(name, v.Usage, v.Summary, cmd)
	if err != nil {
		return err
	}
	rest, err := p.ParseArgs(args)
	if err != nil {
		return flagError(p, name, err)
	}
	out, err := cmd.Run(ctx, rest)
	if err != nil {
		return err
	}
	if emitJSON(ctx, out) != 0 {
		return fmt.Errorf("internal error: the output of git burl %s could not be encoded as JSON", name)
	}
	return nil
}

// asksJSON reports whether --json is among the options of args. go-flags
// stops at the first bad option, so a --json after it was never parsed;
// a script that asked for JSON must still get its error as JSON.
func asksJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
	}
	return false
}

// JSONStreamer is an Output that writes its own JSON members ("key":value
// pairs, comma-separated, no braces), for outputs so large (status over
// thousands of tasks) that building them in memory with encoding/json
// would dominate the command's time and memory.
type JSONStreamer interface {
	StreamJSON(w *bufio.Writer)
}

func emitJSON(ctx *Context, out Output) int {
	if js, ok := out.(JSONStreamer); ok {
		w := bufio.NewWriterSize(ctx.Stdout, 64<<10)
		w.WriteString(`{"ok":true,`)
		js.StreamJSON(w)
		w.WriteString("}\n")
		_ = w.Flush()
		return 0
	}
	body := []byte("{}")
	if out != nil {
		var err error
		if body, err = json.Marshal(out); err != nil {
			return Fail(ctx, err)
		}
	}
	var b bytes.Buffer
	switch {
	case bytes.HasPrefix(body, []byte(`{"ok":`)):
		// The output states its own "ok" (watch's summary can be false).
		b.Write(body)
	case bytes.Equal(body, []byte("{}")) || !bytes.HasPrefix(body, []byte("{")):
		b.WriteString(`{"ok":true}`)
	default:
		b.WriteString(`{"ok":true,`)
		b.Write(body[1:])
	}
	b.WriteByte('\n')
	_, _ = ctx.Stdout.Write(b.Bytes())
	return 0
}

// HumanViolations lets an error's Violations render themselves.
type HumanViolations interface {
	HumanLines() []string
}

// Fail renders err and returns its exit code.
func Fail(ctx *Context, err error) int {
	kind := errs.KindOf(err)
	var e *errs.Error
	if !errors.As(err, &e) {
		e = &errs.Error{Kind: kind, Reason: err.Error()}
	}
	if ctx.JSON {
		type jerr struct {
			Kind       string `json:"kind"`
			Message    string `json:"message"`
			Fix        string `json:"fix,omitempty"`
			Violations any    `json:"violations,omitempty"`
		}
		msg := e.Error()
		doc := struct {
			OK    bool `json:"ok"`
			Error jerr `json:"error"`
		}{Error: jerr{Kind: kind.String(), Message: msg, Fix: e.Fix, Violations: e.Violations}}
		data, _ := json.Marshal(doc)
		fmt.Fprintf(ctx.Stdout, "%s\n", data)
		return int(kind)
	}
	var b strings.Builder
	title := e.Title
	if title == "" {
		title = "Error"
		if ctx.Verb != "" {
			title = "git burl " + ctx.Verb + " failed"
		}
	}
	if plain(ctx.Stderr) {
		// Pipes, logs and agents get a greppable line, as git's own errors.
		fmt.Fprintf(&b, "error: %s\n", title)
	} else {
		fmt.Fprintf(&b, "❌ %s\n", title)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, "\n%s\n", indentReason(e.Reason))
	}
	if hv, ok := e.Violations.(HumanViolations); ok {
		b.WriteString("\n")
		for _, l := range hv.HumanLines() {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	if e.Fix != "" {
		fmt.Fprintf(&b, "\nFix: %s\n", e.Fix)
	}
	fmt.Fprint(escaper{ctx.Stderr}, b.String())
	return int(kind)
}

// plain reports whether w should get no emoji: it is not a terminal, or
// NO_COLOR is set (https://no-color.org).
func plain(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return true
	}
	f, ok := w.(*os.File)
	if !ok {
		return true
	}
	st, err := f.Stat()
	return err != nil || st.Mode()&os.ModeCharDevice == 0
}

func indentReason(r string) string {
	lines := strings.Split(strings.TrimRight(r, "\n"), "\n")
	lines[0] = "Reason: " + lines[0]
	return strings.Join(lines, "\n")
}

// nearestFlag is the option of p closest to the unknown one go-flags names
// in msg ("unknown flag `jsn'"), as --name, or "".
func nearestFlag(p *flags.Parser, msg string) string {
	_, rest, ok := strings.Cut(msg, "`")
	bad, _, ok2 := strings.Cut(rest, "'")
	if !ok || !ok2 || bad == "" {
		return ""
	}
	var names []string
	for _, g := range p.Groups() {
		for _, o := range g.Options() {
			if o.LongName != "" {
				names = append(names, o.LongName)
			}
		}
	}
	if n := suggest.Nearest(bad, names, 2); n != "" {
		return "--" + n
	}
	return ""
}
