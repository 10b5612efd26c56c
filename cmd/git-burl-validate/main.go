// Command git-burl-validate is `git burl validate`; see git-burl-validate(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/gates"
)

func main() { os.Exit(verb.Main("validate", gates.Validate(), os.Args[1:])) }
