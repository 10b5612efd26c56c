package views

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/taskdiff"
	"github.com/burl-dev/burl/pkg/verb"
)

// Diff is `git burl diff`: what cmd/git-burl-diff runs.
func Diff() cli.Command { return &diffCmd{} }

type diffCmd struct {
	cli.JSONFlag
}

// PassUnknown: every option diff does not know is git diff's.
func (*diffCmd) PassUnknown() {}

// diffFile is one file of --json's numstat; Added and Deleted are null for
// a binary file.
type diffFile struct {
	Path    string `json:"path"`
	Added   *int   `json:"added"`
	Deleted *int   `json:"deleted"`
}

type diffOut struct {
	Task string `json:"task"`
	taskdiff.Range
	Files []diffFile `json:"files,omitempty"`
	// code is git diff's own exit code 1 (--exit-code, --quiet: there
	// are differences), passed on.
	code int
}

func (o diffOut) Human(io.Writer) {}

func (o diffOut) ExitCode() int { return o.code }

func (c *diffCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	// The task ID is the first argument that is no option; the rest, in
	// their order, are git diff's.
	idAt := -1
	for i, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			idAt = i
			break
		}
	}
	if idAt < 0 {
		return nil, cli.UsageError("diff", "expects a task ID")
	}
	id, err := task.NormalizeID(args[idAt])
	if err != nil {
		return nil, err
	}
	pass := append(append([]string{}, args[:idAt]...), args[idAt+1:]...)
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	e, err := w.Get(id)
	if err != nil {
		return nil, err
	}
	r, err := taskdiff.For(w, e)
	if err != nil {
		return nil, err
	}
	out := diffOut{Task: id, Range: r}
	// Paths are the user's, relative to where they stand.
	g := w.Repo.Git
	g.Dir = ctx.Dir
	rng, paths := splitPaths(pass)
	argv := append([]string{"diff"}, rng...)
	if ctx.JSON {
		argv = append(argv, "--numstat", "-z")
	}
	argv = append(argv, r.From, r.To)
	if len(paths) > 0 {
		argv = append(append(argv, "--"), paths...)
	}
	if ctx.JSON {
		res, err := g.RunInput(nil, argv...)
		if err != nil {
			return nil, err
		}
		out.Files = numstat(string(res))
		return out, nil
	}
	if err := g.Attached(ctx.Stdout, ctx.Stderr, argv...); err != nil {
		var ge *gitx.Error
		if errors.As(err, &ge) && ge.ExitCode == 1 {
			out.code = 1
			return out, nil
		}
		return nil, errs.New(errs.Git, "git diff %s..%s of %s failed (exit %d)", gitx.Short(r.From), gitx.Short(r.To), id, gitx.ExitCodeOf(err)).
			WithFix("git diff's own message is above; git diff --help lists the options it takes")
	}
	return out, nil
}

// splitPaths splits git diff's arguments at "--": options before, paths
// after.
func splitPaths(args []string) (opts, paths []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// numstat reads git diff --numstat -z: "added\tdeleted\tpath\0", or for a
// rename "added\tdeleted\t\0from\0to\0".
func numstat(s string) []diffFile {
	files := []diffFile{}
	recs := strings.Split(s, "\x00")
	for i := 0; i < len(recs); i++ {
		f := strings.SplitN(recs[i], "\t", 3)
		if len(f) != 3 {
			continue
		}
		d := diffFile{Path: f[2]}
		if f[2] == "" && i+2 < len(recs) {
			d.Path = recs[i+2]
			i += 2
		}
		if n, err := strconv.Atoi(f[0]); err == nil {
			d.Added = &n
		}
		if n, err := strconv.Atoi(f[1]); err == nil {
			d.Deleted = &n
		}
		files = append(files, d)
	}
	return files
}
