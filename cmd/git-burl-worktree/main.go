// Command git-burl-worktree is `git burl worktree`; see git-burl-worktree(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("worktree", verb.Worktree(), os.Args[1:])) }
