// Package dispatch is git-burl: git runs it for `git burl <verb> ...`, and
// it execs git-burl-<verb>, found next to itself first, then on PATH.
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
		usage(os.Stdout)
		return 0
	}
	switch args[0] {
	case "help", "-h", "--help":
		if len(args) > 1 {
			return Main(append(args[1:2], "--help"))
		}
		usage(os.Stdout)
		return 0
	case "--version", "version":
		fmt.Printf("git-burl version %s\n", version.Version)
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
		fmt.Fprintf(os.Stderr, "git burl: cannot find git-burl-%s next to git-burl or on PATH; reinstall burl (./install.sh)\n", name)
		return 1
	}
	if err := osx.Exec(bin, append([]string{bin}, args[1:]...)); err != nil {
		fmt.Fprintf(os.Stderr, "git burl: running %s: %v\n", bin, err)
		return 1
	}
	return 0
}

func locate(prog string) (string, error) {
	if runtime.GOOS == "windows" {
		prog += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		p := filepath.Join(filepath.Dir(self), prog)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
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
