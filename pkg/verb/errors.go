package verb

import (
	"github.com/burl-dev/burl/pkg/catalog"
	"github.com/burl-dev/burl/pkg/errs"
)

func usageErr(verb, what string) error {
	v, _ := catalog.Find(verb)
	return errs.New(errs.User, "git burl %s %s", verb, what).WithFix("usage: git burl %s %s", verb, v.Usage)
}
