package verb

import "github.com/burl-dev/burl/pkg/cli"

func usageErr(verb, what string) error { return cli.UsageError(verb, what) }
