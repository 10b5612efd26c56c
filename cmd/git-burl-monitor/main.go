// Command git-burl-monitor is `git burl monitor`; see git-burl-monitor(1).
// It alone links the TUI library.
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/monitor"
	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("monitor", monitor.Command(), os.Args[1:])) }
