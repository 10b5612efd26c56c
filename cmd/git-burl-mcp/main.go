// Command git-burl-mcp is `git burl mcp`; see git-burl-mcp(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/mcp"
	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("mcp", mcp.Command(), os.Args[1:])) }
