// Command git-burl-sync is `git burl sync`; see git-burl-sync(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("sync", verb.Sync(), os.Args[1:])) }
