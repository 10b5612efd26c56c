package bwrapbox

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"

	"github.com/burl-dev/burl/pkg/repo"
)

// urlCredentials is the user:password@ of a URL in a git config line
// (url, pushurl, insteadOf, or any other key): a token written into a
// remote's URL is the user's push credential.
var urlCredentials = regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://)[^/@\s"]+@`)

// extraHeader is an http.extraHeader line: an Authorization header is a
// credential too.
var extraHeader = regexp.MustCompile(`(?im)^\s*extraheader\s*=.*$`)

// StripCredentials is a git config's text without the credentials in
// its URLs and its extra HTTP headers (DESIGN §24: the box sees
// .git/config without them). It reports whether it took any out.
func StripCredentials(cfg []byte) ([]byte, bool) {
	out := urlCredentials.ReplaceAll(cfg, []byte("${1}"))
	out = extraHeader.ReplaceAll(out, nil)
	return out, !bytes.Equal(out, cfg)
}

// CleanConfig writes, into the run directory dir, the shared config
// without its credentials, for the box to see at its place; "" when it
// holds none.
func CleanConfig(r *repo.Repo, dir string) (string, error) {
	cfg, err := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	clean, changed := StripCredentials(cfg)
	if !changed {
		return "", nil
	}
	p := filepath.Join(dir, "config.clean")
	return p, os.WriteFile(p, clean, 0o644)
}
