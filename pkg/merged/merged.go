// Package merged recognises that a task's work is on the remote's main
// whatever the forge did with it (DESIGN §17): the git-only half of landing
// through a forge, so a merge made outside the pull request, or on a forge
// burl cannot ask, is still seen.
package merged

import (
	"bufio"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
)

// How a task's work reached the target, as recorded next to merged_sha.
const (
	ByAncestry = "ancestry" // merge commit or fast-forward: the head itself is on the target
	ByCherry   = "cherry"   // rebase merge: every task commit has an equal patch on the target
	BySquash   = "squash"   // squash merge: one target commit carries the combined diff
)

// Landed reports whether the work between base and head (the task branch)
// is on target (the remote's main), and names the target commit that holds
// it. An empty sha means not landed.
func Landed(g gitx.Git, base, head, target string) (sha, how string, err error) {
	on, err := g.Test("merge-base", "--is-ancestor", head, target)
	if err != nil || on {
		if err != nil {
			return "", "", err
		}
		sha, err = firstHolding(g, head, target)
		return sha, ByAncestry, err
	}
	// Patch ids of the target's own commits since the task forked.
	ids, err := targetPatchIDs(g, base, target)
	if err != nil || len(ids) == 0 {
		return "", "", err
	}
	if sha, err = rebased(g, base, head, target, ids); err != nil || sha != "" {
		return sha, ByCherry, err
	}
	diff, err := g.RunInput(nil, "diff", "--no-ext-diff", "--no-color", base, head)
	if err != nil || len(diff) == 0 {
		return "", "", err
	}
	id, err := patchIDs(g, diff)
	if err != nil {
		return "", "", err
	}
	for pid := range id {
		if c, ok := ids[pid]; ok {
			return c, BySquash, nil
		}
	}
	return "", "", nil
}

// firstHolding is the first commit on target's first-parent line that has
// head in its history: the merge commit, or head itself after a fast-forward.
func firstHolding(g gitx.Git, head, target string) (string, error) {
	out, err := g.Run("rev-list", "--first-parent", "--reverse", "--ancestry-path", head+".."+target)
	if err != nil {
		return "", err
	}
	if first, _, _ := strings.Cut(out, "\n"); first != "" {
		return first, nil
	}
	return g.Run("rev-parse", "--verify", head+"^{commit}")
}

// rebased uses `git cherry` to see whether every task commit has an equal
// patch on target; it answers with the target commit equal to the task's
// last commit.
func rebased(g gitx.Git, base, head, target string, ids map[string]string) (string, error) {
	out, err := g.Run("cherry", target, head, base)
	if err != nil || out == "" {
		return "", err
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "- ") {
			return "", nil
		}
	}
	patch, err := g.RunInput(nil, "show", "--no-ext-diff", "--no-color", "--format=", head)
	if err != nil {
		return "", err
	}
	last, err := patchIDs(g, patch)
	if err != nil {
		return "", err
	}
	for pid := range last {
		if c, ok := ids[pid]; ok {
			return c, nil
		}
	}
	return "", nil
}

// targetPatchIDs maps the patch id of each non-merge commit in base..target
// to that commit.
func targetPatchIDs(g gitx.Git, base, target string) (map[string]string, error) {
	log, err := g.RunInput(nil, "log", "--no-merges", "-p", "--no-ext-diff", "--no-color", base+".."+target)
	if err != nil || len(log) == 0 {
		return nil, err
	}
	return patchIDs(g, log)
}

// patchIDs runs `git patch-id --stable` over a patch stream and maps each
// patch id to the commit it was read for.
func patchIDs(g gitx.Git, patch []byte) (map[string]string, error) {
	out, err := g.RunInput(patch, "patch-id", "--stable")
	if err != nil {
		return nil, err
	}
	ids := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if pid, commit, ok := strings.Cut(sc.Text(), " "); ok {
			ids[pid] = commit
		}
	}
	return ids, sc.Err()
}
