package forge

import (
	"fmt"

	"github.com/burl-dev/burl/pkg/gitx"
)

// New is the provider for the repository behind remoteURL: name is the
// config's forge (empty: detected from the URL), forgeURL its forge_url.
// git runs in the repository (the gitea provider asks its credential helper).
func New(name, forgeURL, remoteURL string, git gitx.Git) (Provider, error) {
	r, err := ParseRemote(remoteURL)
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = Detect(r)
	}
	switch name {
	case "gitea":
		return newGitea(r, forgeURL, git)
	case "github":
		return newGitHub(r, forgeURL)
	case "gitlab":
		return newGitLab(r, forgeURL)
	}
	return nil, fmt.Errorf("forge %q is not one burl knows: github, gitlab or gitea", name)
}
