package forge

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/burl-dev/burl/pkg/gitx"
)

// Constructor makes a provider for the repository at r; forgeURL is the
// config's forge_url, git runs in the repository.
type Constructor func(r Remote, forgeURL string, git gitx.Git) (Provider, error)

var (
	mu        sync.Mutex
	providers = map[string]Constructor{
		"github": func(r Remote, forgeURL string, _ gitx.Git) (Provider, error) { return newGitHub(r, forgeURL) },
		"gitlab": func(r Remote, forgeURL string, _ gitx.Git) (Provider, error) { return newGitLab(r, forgeURL) },
	}
)

// Register adds a provider. The gitea provider registers itself from
// pkg/forge/gitea, which only the binaries that talk to a forge import:
// net/http stays out of the others (a claim in an agent loop starts faster
// without it).
func Register(name string, c Constructor) {
	mu.Lock()
	defer mu.Unlock()
	providers[name] = c
}

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
	mu.Lock()
	c, ok := providers[name]
	known := make([]string, 0, len(providers))
	for k := range providers {
		known = append(known, k)
	}
	mu.Unlock()
	if !ok {
		sort.Strings(known)
		return nil, fmt.Errorf("forge %q is not one this program speaks: %s", name, strings.Join(known, ", "))
	}
	return c(r, forgeURL, git)
}
