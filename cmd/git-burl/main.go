// Command git-burl is the dispatcher git runs for `git burl <verb>`; see git-burl(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/dispatch"
)

func main() { os.Exit(dispatch.Main(os.Args[1:])) }
