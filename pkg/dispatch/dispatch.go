// Package dispatch is git-burl: git runs it for `git burl <verb> ...`, and
// it execs git-burl-<verb> from burl's exec path (see ExecPath). Only
// git-burl itself is on PATH, so git's own command list and completion show
// one `burl` rather than every verb.
package dispatch

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/burl-dev/burl/pkg/catalog"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/suggest"
	"github.com/burl-dev/burl/pkg/version"
)

// Main runs the dispatcher and returns the exit code (when it does not exec).
func Main(args []string) int {
	if len(args) == 0 {
		// As git itself: the list of commands, and exit 1 (no command is
		// a usage error); `git burl help` prints it and exits 0.
		usage(os.Stdout)
		return 1
	}
	switch args[0] {
	case "help", "-h", "--help":
		if len(args) > 1 {
			return Main(append(args[1:2], "--help"))
		}
		usage(os.Stdout)
		return 0
	case "--version", "version":
		fmt.Printf("git-burl version %s\n", version.String())
		return 0
	case "--exec-path":
		dir, err := ExecPath()
		if err != nil {
			fmt.Fprintf(os.Stderr, "error: %v\n", err)
			return 1
		}
		fmt.Println(dir)
		return 0
	}
	name := args[0]
	if _, ok := catalog.Find(name); !ok {
		fmt.Fprintf(os.Stderr, "git burl: '%s' is not a burl command. See 'git burl help'.\n", name)
		names := make([]string, len(catalog.Verbs))
		for i, v := range catalog.Verbs {
			names[i] = v.Name
		}
		if s := suggest.Nearest(name, names, 3); s != "" {
			fmt.Fprintf(os.Stderr, "\nThe most similar command is\n\t%s\n", s)
		}
		return 1
	}
	bin, err := locate("git-burl-" + name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "git burl: cannot find git-burl-%s in %s, in $BURL_EXEC_PATH or on PATH; reinstall burl (./install.sh)\n", name, LibexecRel)
		return 1
	}
	if err := osx.Exec(bin, append([]string{bin}, args[1:]...)); err != nil {
		fmt.Fprintf(os.Stderr, "git burl: running %s: %v\n", bin, err)
		return 1
	}
	return 0
}

// LibexecRel is where the verb binaries live relative to the directory of
// git-burl, as git keeps its own in libexec/git-core.
const LibexecRel = "../libexec/burl"

// ExecPath is the directory the verb binaries are run from: the first of
// <dir of git-burl>/../libexec/burl, <dir of git-burl> (a development build
// with every binary in one directory) and $BURL_EXEC_PATH that holds
// git-burl-status.
func ExecPath() (string, error) {
	for _, d := range candidates() {
		if isFile(filepath.Join(d, exe("git-burl-status"))) {
			return d, nil
		}
	}
	p, err := exec.LookPath(exe("git-burl-status"))
	if err != nil {
		return "", fmt.Errorf("no burl exec path: git-burl-status is not in %s, in $BURL_EXEC_PATH or on PATH; reinstall burl (./install.sh)", LibexecRel)
	}
	return filepath.Dir(p), nil
}

func candidates() []string {
	var out []string
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		dir := filepath.Dir(self)
		out = append(out, filepath.Join(dir, filepath.FromSlash(LibexecRel)), dir)
	}
	if env := os.Getenv("BURL_EXEC_PATH"); env != "" {
		out = append(out, env)
	}
	return out
}

func exe(prog string) string {
	if runtime.GOOS == "windows" {
		return prog + ".exe"
	}
	return prog
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// locate finds a verb binary in the exec path candidates, then on PATH (a
// development build run with the verbs on PATH).
func locate(prog string) (string, error) {
	prog = exe(prog)
	for _, d := range candidates() {
		if p := filepath.Join(d, prog); isFile(p) {
			return p, nil
		}
	}
	return exec.LookPath(prog)
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: git burl <command> [<args>]\n\n")
	fmt.Fprintf(w, "Parallel work on one repository: tasks in status folders on branch burl,\none branch and worktree per task, diff-based gates, fast-forward merges.\n\n")
	for _, v := range catalog.Verbs {
		fmt.Fprintf(w, "   %-10s %s\n", v.Name, v.Summary)
	}
	fmt.Fprintf(w, "\n'git burl <command> --help' shows a command's options; 'git help burl' opens the manual.\n")
}
