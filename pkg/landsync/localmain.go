package landsync

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// LocalMain is what sync did with this clone's main once the remote's
// main had moved on, by pull requests the forge merged or by other clones
// (DESIGN §20): sync --json's "main".
type LocalMain struct {
	Branch string `json:"branch"`
	// Result: up-to-date; fast-forwarded; behind (left where it was,
	// Reason says why and Command catches it up); ahead (local commits the
	// remote's main lacks, which sync's push or approve publishes);
	// diverged (only reported: nothing of either side is moved or lost);
	// not-on-remote; or failed (the remote's main could not be fetched).
	Result string `json:"result"`
	// Local is local main before sync, Remote the remote's main.
	Local  string `json:"local,omitempty"`
	Remote string `json:"remote,omitempty"`
	// Behind and Ahead count the commits only the remote's main, and only
	// local main, had before sync.
	Behind  int    `json:"behind"`
	Ahead   int    `json:"ahead"`
	Reason  string `json:"reason,omitempty"`
	Command string `json:"command,omitempty"`
}

// FollowMain brings local main up to the remote's after a sync's pull or
// settle round: fast-forward only, and only where that touches nobody's
// work: main checked out in the main worktree with no uncommitted changes
// (git merge --ff-only there), or checked out nowhere (a compare-and-swap
// of the ref). Anything else is reported with the command that catches
// up; a local main with commits the remote's lacks is never moved.
func FollowMain(w *workflow.Workflow) *LocalMain {
	g, remote, main := w.Repo.Git, w.Config.Remote, w.Config.MainBranch
	tracking := remote + "/" + main
	lm := &LocalMain{Branch: main}
	if err := g.FetchTracking(remote, main); err != nil {
		if ok, _ := g.Test("ls-remote", "--exit-code", "--heads", remote, main); !ok {
			lm.Result = "not-on-remote"
			return lm
		}
		lm.Result, lm.Reason = "failed", firstLine(err.Error())
		return lm
	}
	lm.Local, lm.Remote = rev(g, "refs/heads/"+main), rev(g, gitx.Tracking(remote, main))
	switch {
	case lm.Remote == "":
		lm.Result = "not-on-remote"
		return lm
	case lm.Local == lm.Remote:
		lm.Result = "up-to-date"
		return lm
	case lm.Local == "":
		// No local main at all: nothing of the user's to lose.
		if _, err := g.Run("branch", "-q", "--track", main, tracking); err != nil {
			lm.Result, lm.Reason = "failed", firstLine(err.Error())
			return lm
		}
		lm.Result = "fast-forwarded"
		return lm
	}
	if counts, err := g.Run("rev-list", "--left-right", "--count", lm.Local+"..."+lm.Remote); err == nil {
		if a, b, ok := strings.Cut(counts, "\t"); ok {
			lm.Ahead, _ = strconv.Atoi(a)
			lm.Behind, _ = strconv.Atoi(b)
		}
	}
	switch {
	case lm.Behind == 0:
		lm.Result = "ahead"
		return lm
	case lm.Ahead > 0:
		lm.Result = "diverged"
		lm.Reason = fmt.Sprintf("local %s has %d commit(s) that %s lacks, and lacks %d of its: sync moves neither", main, lm.Ahead, tracking, lm.Behind)
		lm.Command = fmt.Sprintf("git cherry -v %s %s", tracking, main)
		return lm
	}
	lm.Result, lm.Command = "behind", fmt.Sprintf("git fetch %s %s:%s", remote, main, main)
	m := integrate.For(w)
	if m.Busy() {
		lm.Reason = "an approve on this machine holds the main lock"
		return lm
	}
	wt, err := workspace.CheckedOutAt(g, main)
	if err != nil {
		lm.Reason = firstLine(err.Error())
		return lm
	}
	if wt != nil {
		lm.Command = fmt.Sprintf("git -C %s merge --ff-only %s", wt.Path, tracking)
		if !sameDir(wt.Path, w.Repo.Root) {
			// Someone's worktree, not the clone's own checkout: theirs to move.
			lm.Reason = fmt.Sprintf("%s is checked out in %s, not in the main worktree", main, wt.Path)
			return lm
		}
	}
	if err := m.Advance(lm.Local, lm.Remote); err != nil {
		var dirty *integrate.DirtyError
		switch {
		case errors.As(err, &dirty) && dirty.Untracked:
			lm.Reason = fmt.Sprintf("%s is checked out in %s, and an untracked file there is where the new commits add one", main, dirty.Path)
		case errors.As(err, &dirty):
			lm.Reason = fmt.Sprintf("%s is checked out in %s with uncommitted changes (commit or stash them first)", main, dirty.Path)
		default:
			lm.Reason = firstLine(err.Error())
		}
		return lm
	}
	lm.Result, lm.Command = "fast-forwarded", ""
	return lm
}

func rev(g gitx.Git, ref string) string {
	sha, err := g.Run("rev-parse", "-q", "--verify", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return sha
}

// sameDir reports whether a and b name one directory (a symlinked
// temporary directory names it twice).
func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}
