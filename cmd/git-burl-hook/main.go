// Command git-burl-hook is `git burl hook`; see git-burl-hook(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/hook"
)

func main() { os.Exit(cli.Main("hook", hook.Command(), os.Args[1:])) }
