package repo

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// identKeys are the settings git makes a commit's author and committer
// from (read with the bootstrap settings).
var identKeys = map[string]bool{
	"user.name": true, "user.email": true,
	"author.name": true, "author.email": true, "committer.name": true, "committer.email": true,
}

// Ident is the "Name <email> seconds zone" line git would write as a
// commit's author (who "author") or committer (who "committer") at now,
// when burl can tell it exactly as git would: from the name and email set
// in git's config, with no GIT_AUTHOR_* / GIT_COMMITTER_* / EMAIL override
// in the environment and nothing in them that git would trim. ok is false
// otherwise, and the commit is left to git commit-tree.
func (r *Repo) Ident(who string, now time.Time) (line string, ok bool) {
	up := "GIT_" + strings.ToUpper(who) + "_"
	for _, v := range []string{up + "NAME", up + "EMAIL", up + "DATE", "EMAIL"} {
		if _, set := os.LookupEnv(v); set {
			return "", false
		}
	}
	name, email := r.ident[who+".name"], r.ident[who+".email"]
	if name == "" {
		name = r.ident["user.name"]
	}
	if email == "" {
		email = r.ident["user.email"]
	}
	if !plainIdent(name) || !plainIdent(email) {
		return "", false
	}
	return fmt.Sprintf("%s <%s> %d %s", name, email, now.Unix(), now.Format("-0700")), true
}

// plainIdent reports whether git takes s into an identity unchanged: not
// empty, nothing it trims at either end (control characters, spaces and
// ".,:;<>\"\\'"), and no angle bracket or line break inside.
func plainIdent(s string) bool {
	if s == "" || strings.ContainsAny(s, "<>\n\r") {
		return false
	}
	trimmed := func(c byte) bool { return c <= ' ' || strings.IndexByte(".,:;<>\"\\'", c) >= 0 }
	return !trimmed(s[0]) && !trimmed(s[len(s)-1])
}
