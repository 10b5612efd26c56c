// Package landforge is the forge as landing reaches it (DESIGN §17,
// §21), below pkg/land and pkg/landsync which both use it: the provider
// of landing: pr once its settings are trusted, the push of a request's
// branch, and the forge's checks as a gate (what failed, with its log, in
// words, and the rounds that leave a task BLOCKED).
package landforge

import (
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// ForgeFor is the provider of landing: pr, once its settings are trusted
// and the remote is known.
func ForgeFor(w *workflow.Workflow) (forge.Provider, error) {
	if !w.HasRemote() {
		return nil, errs.New(errs.User, "landing: pr needs the remote %q, which this clone does not have", w.Config.Remote).
			WithFix("git remote add %s URL-OF-THE-FORGE-REPOSITORY", w.Config.Remote)
	}
	if err := trust.Check(w.Repo, w.ForgeCommands()...); err != nil {
		return nil, err
	}
	// The URL as configured, not as insteadOf rewrites it for transport:
	// it names the repository on the forge.
	url, err := w.Repo.Git.Run("config", "--get", "remote."+w.Config.Remote+".url")
	if err != nil {
		return nil, err
	}
	p, err := forge.New(w.Config.Forge, w.Config.ForgeURL, url, w.Repo.Git)
	if err != nil {
		return nil, errs.Wrap(err, errs.User, "").WithFix("set forge: (github, gitlab or gitea) and forge_url: in .burl/.workflow/config.yaml, and commit it")
	}
	if err := forge.Ready(p); err != nil {
		return nil, errs.Wrap(err, errs.User, "")
	}
	return p, nil
}

// ForgeErr turns a provider's failure into an error a person can act on.
func ForgeErr(p forge.Provider, what string, err error) error {
	if rl, ok := err.(*forge.RateLimited); ok {
		return errs.Wrap(rl, errs.Git, "").WithTitle("Cannot %s: the forge rate-limits this account", what).
			WithFix("wait and run it again; git burl sync settles open pull requests once the limit is lifted")
	}
	return errs.Wrap(err, errs.Git, "").WithTitle("Cannot %s on %s", what, p.Name())
}

// PushPRBranch puts the rebased commits on the remote's task branch.
// The lease is what this clone last saw there (nothing, the submitted
// commits, or an earlier approve's rebase): a branch someone else pushed
// to meanwhile is not overwritten.
func PushPRBranch(w *workflow.Workflow, branch, head string) error {
	g, remote := w.Repo.Git, w.Config.Remote
	tip, err := w.FetchRemoteBranch(branch)
	switch {
	case err != nil:
		// Unreachable: the lease is what this clone saw there last.
		tip, _ = g.Run("rev-parse", "-q", "--verify", gitx.Tracking(remote, branch))
	case tip == "":
		// The remote has no such branch (a forge deleted it with its
		// pull request): the tracking ref left from before is stale, and
		// as a lease it would refuse the push.
		_, _ = g.Run("update-ref", "-d", gitx.Tracking(remote, branch))
	}
	lease := "--force-with-lease=refs/heads/" + branch + ":" + tip
	if _, err := g.Run("push", "-q", lease, remote, head+":refs/heads/"+branch); err != nil {
		return errs.Wrap(err, errs.Git, "Cannot push "+branch+" to "+remote).
			WithFix("someone pushed to %s on %s since this clone last fetched it: look at it (git fetch %s %s), then approve again", branch, remote, remote, branch)
	}
	_, _ = g.Run("update-ref", gitx.Tracking(remote, branch), head)
	return nil
}
