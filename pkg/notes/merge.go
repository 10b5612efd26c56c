package notes

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
)

// State is this clone's notes ref and remote's as last fetched ("" for
// one that does not exist). Every pull asks it: read from the loose ref
// files where they are (a fetch or a landing writes them loose), else
// from git.
func State(r *repo.Repo, remote string) (local, tracking string, err error) {
	l, lok := loose(r.CommonDir, Ref)
	t, tok := loose(r.CommonDir, Tracking(remote))
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); err == nil {
		lok, tok = false, false // refs are not files there
	} else if !lok || !tok {
		// A ref that is not loose is packed (git pack-refs, gc) or does
		// not exist: packed-refs tells which.
		packed, _ := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
		lok = lok || !bytes.Contains(packed, []byte(" "+Ref+"\n"))
		tok = tok || !bytes.Contains(packed, []byte(" "+Tracking(remote)+"\n"))
	}
	if lok && tok {
		return l, t, nil
	}
	out, err := r.Git.Run("for-each-ref", "--format=%(objectname) %(refname)", Ref, Tracking(remote))
	if err != nil {
		return "", "", err
	}
	for _, line := range strings.Split(out, "\n") {
		sha, ref, _ := strings.Cut(line, " ")
		switch ref {
		case Ref:
			local = sha
		case Tracking(remote):
			tracking = sha
		}
	}
	return local, tracking, nil
}

// loose is the id a loose ref file holds.
func loose(commonDir, ref string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(commonDir, filepath.FromSlash(ref)))
	id := strings.TrimSpace(string(b))
	return id, err == nil && gitx.ValidObjectID(id)
}

// Pending reports whether this clone has notes the remote (as last
// fetched) lacks, and returns the refspec that pushes them.
func Pending(r *repo.Repo, remote string) (string, error) {
	local, tracking, err := State(r, remote)
	if err != nil || local == "" || local == tracking {
		return "", err
	}
	return PushSpec, nil
}

// Merged is what Merge did: "" (nothing to do), "fast-forward" or
// "merge", and the commits annotated on both sides with different notes,
// whose note here was kept.
type Merged struct {
	How       string
	Conflicts []string
}

// Merge brings remote's notes, as fetched into Tracking, into this
// clone's: a fast-forward when this clone has nothing of its own, else a
// merge commit whose tree is the union of both. Landings on two machines
// annotate different commits, so nothing is lost; a commit annotated on
// both with different notes keeps this clone's (listed in Conflicts).
func Merge(r *repo.Repo, remote string) (Merged, error) {
	g := r.Git
	local, tracking, err := State(r, remote)
	if err != nil || tracking == "" || local == tracking {
		return Merged{}, err
	}
	if local == "" {
		_, err := g.Run("update-ref", "-m", "burl: notes from "+remote, Ref, tracking, "")
		return Merged{How: "fast-forward"}, err
	}
	if in, err := g.Test("merge-base", "--is-ancestor", tracking, local); err != nil || in {
		return Merged{}, err
	}
	if behind, err := g.Test("merge-base", "--is-ancestor", local, tracking); err != nil {
		return Merged{}, err
	} else if behind {
		_, err := g.Run("update-ref", "-m", "burl: notes from "+remote, Ref, tracking, local)
		return Merged{How: "fast-forward"}, err
	}
	ours, err := Read(g, local)
	if err != nil {
		return Merged{}, err
	}
	theirs, err := Read(g, tracking)
	if err != nil {
		return Merged{}, err
	}
	add := Map{}
	var conflicts []string
	for c, blob := range theirs {
		switch mine, ok := ours[c]; {
		case !ok:
			add[c] = blob
		case mine != blob:
			conflicts = append(conflicts, c)
		}
	}
	sort.Strings(conflicts)
	msg := fmt.Sprintf("burl: merge the landing records of %s (%d note(s) from there)", remote, len(add))
	rd, err := gitobj.NewReader(g)
	if err != nil {
		return Merged{}, err
	}
	if _, _, err := Write(r, rd, Change{Notes: add, Merge: tracking, Message: msg}); err != nil {
		rd.Kill()
		return Merged{}, err
	}
	return Merged{How: "merge", Conflicts: conflicts}, rd.Close()
}
