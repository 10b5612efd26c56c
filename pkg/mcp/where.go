package mcp

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/burl-dev/burl/pkg/errs"
)

// rootsKey labels the roots/list request a call embeds (multi round-trip
// requests): the client answers it under this key when it retries.
const rootsKey = "roots"

// roots remembers the directory the client's roots resolved to, for
// clients that say when their roots change: asking on every call would
// add a round trip to each.
type roots struct {
	mu   sync.Mutex
	dir  string
	err  error
	seen bool
}

// forget drops what the client said: its roots changed.
func (r *roots) forget() {
	r.mu.Lock()
	r.seen, r.dir, r.err = false, "", nil
	r.mu.Unlock()
}

func (r *roots) get() (dir string, ok bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dir, r.seen, r.err
}

func (r *roots) set(dir string, err error) {
	r.mu.Lock()
	r.seen, r.dir, r.err = true, dir, err
	r.mu.Unlock()
}

// place is where a request comes from: what it says itself, and what the
// client told the server about itself.
type place struct {
	cwd       string // the call's own directory, "" when it names none
	caps      *sdk.ClientCapabilities
	responses sdk.InputResponseMap // the client's answers to embedded requests
	// ask lists the client's roots by a request of the server's own (old
	// protocol versions; nil where only an embedded request may ask).
	ask func(context.Context) (*sdk.ListRootsResult, error)
	// remember: the client says when its roots change, so the answer
	// holds until it does.
	remember bool
}

// rootsWait is how long a client gets to answer roots/list: some clients
// announce roots and never answer (Claude Code did), and a call must not
// hang on that.
var rootsWait = 3 * time.Second

// where is the directory a request acts from: the directory the call
// names, else --dir (a watch run's preset names the task's worktree),
// else the client's roots; never the directory the server was started in
// (an agent that works in a task's worktree would act on the main
// checkout). need is true when the client must first be asked for its
// roots, by a request embedded in the answer.
func (s *server) where(ctx context.Context, p place) (dir string, need bool, err error) {
	if p.cwd != "" {
		if !filepath.IsAbs(p.cwd) {
			return "", false, errs.New(errs.User, "cwd %q is not an absolute path", p.cwd).
				WithFix("pass the absolute path of the repository or of the task's worktree, e.g. cwd: /home/me/project")
		}
		return filepath.Clean(p.cwd), false, nil
	}
	if s.opts.Dir != "" {
		return s.opts.Dir, false, nil
	}
	if p.caps != nil && p.caps.RootsV2 != nil {
		dir, ok, err := s.roots.get()
		if !ok {
			var list *sdk.ListRootsResult
			if r, ok := p.responses[rootsKey].(*sdk.ListRootsResult); ok {
				list = r
			} else if p.ask != nil {
				wait, cancel := context.WithTimeout(ctx, rootsWait)
				list, err = p.ask(wait)
				cancel()
				if err != nil {
					// Asked once: a client that does not answer is not
					// asked again until it says its roots changed.
					err = noDir(fmt.Sprintf("the client did not answer roots/list (%v)", err))
					s.roots.set("", err)
					return "", false, err
				}
			} else {
				return "", true, nil
			}
			dir, err = fromRoots(list.Roots)
			if p.remember {
				s.roots.set(dir, err)
			}
		}
		if dir != "" || err != nil {
			return dir, false, err
		}
	}
	return "", false, noDir("the client lists no roots")
}

func noDir(why string) error {
	return errs.New(errs.User, "no directory to act in: the call names no cwd, git burl mcp was started without --dir, and %s", why).
		WithFix("pass cwd (the absolute path of the repository or of the task's worktree) in the call, or start the server as git burl mcp --dir DIR")
}

// fromRoots is the first of the client's roots inside a git repository
// ("" when it lists none). Roots that are not local paths cannot hold one
// and are passed over.
func fromRoots(list []*sdk.Root) (string, error) {
	var outside []string
	for _, r := range list {
		if r == nil {
			continue
		}
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			outside = append(outside, r.URI)
			continue
		}
		dir := filepath.Clean(filepath.FromSlash(u.Path))
		if inRepository(dir) {
			return dir, nil
		}
		outside = append(outside, dir)
	}
	if len(outside) == 0 {
		return "", nil
	}
	return "", errs.New(errs.User, "the client's roots are outside any git repository: %s", strings.Join(outside, ", ")).
		WithFix("open the repository or a task's worktree in the client, or pass cwd (an absolute path inside the repository) in the call")
}

// inRepository reports whether dir or a folder above it holds .git (a
// directory, or the file a linked worktree has), as git looks for it. It
// only chooses among roots; the verb itself resolves the repository.
func inRepository(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}
