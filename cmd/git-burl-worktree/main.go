// Command git-burl-worktree is `git burl worktree`; see git-burl-worktree(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
)

func main() { os.Exit(verb.Main("worktree", upkeep.Worktree(), os.Args[1:])) }
