package notes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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

// Merged is what Merge did: "" (nothing to do), "fast-forward" or
// "merge"; and the commits annotated on both sides with different notes:
// Theirs where the remote's note was taken, Ours where this clone's was
// kept.
type Merged struct {
	How          string
	Theirs, Ours []string
}

// Merge brings remote's notes, as fetched into Tracking, into this
// clone's: a fast-forward when this clone has nothing of its own, else a
// merge commit whose tree is the union of both. Landings on two machines
// annotate different commits, so nothing is lost. A commit annotated on
// both with different notes was landed by both (two clones settling one
// pull request): the remote's note is taken when the remote's workflow
// branch, pushed with it, records its sha256 (this clone's landing did
// not reach the remote, and its DONE goes on the next pull), else this
// clone's is kept.
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
	return merge(r, gitobj.NewReader(g), remote, local, tracking)
}

// merge is Merge once neither side holds the other.
func merge(r *repo.Repo, rd *gitobj.Reader, remote, local, tracking string) (Merged, error) {
	ours, err := readMap(rd, local)
	if err != nil {
		return Merged{}, err
	}
	theirs, err := readMap(rd, tracking)
	if err != nil {
		return Merged{}, err
	}
	add := Map{}
	var both []string
	for c, blob := range theirs {
		switch mine, ok := ours[c]; {
		case !ok:
			add[c] = blob
		case mine != blob:
			both = append(both, c)
		}
	}
	sort.Strings(both)
	var m Merged
	if len(both) > 0 {
		recorded, err := recordedBy(r, rd, gitx.Tracking(remote, r.Branch), both, theirs)
		if err != nil {
			return Merged{}, err
		}
		for _, c := range both {
			if recorded[c] {
				add[c] = theirs[c]
				m.Theirs = append(m.Theirs, c)
			} else {
				m.Ours = append(m.Ours, c)
			}
		}
	}
	oursOnly := 0
	for c := range ours {
		if _, ok := theirs[c]; !ok {
			oursOnly++
		}
	}
	g := r.Git
	if oursOnly == 0 && len(m.Ours) == 0 {
		// Every note here is the remote's (or gives way to it): no merge
		// commit to push back.
		m.How = "fast-forward"
		_, err := g.Run("update-ref", "-m", "burl: notes from "+remote, Ref, tracking, local)
		return m, err
	}
	msg := fmt.Sprintf("burl: merge the landing records of %s (%d note(s) from there)", remote, len(add))
	if _, _, err := Write(r, rd, Change{Notes: add, Merge: tracking, Message: msg}); err != nil {
		return Merged{}, err
	}
	m.How = "merge"
	return m, nil
}

// recordedBy tells which of commits' notes in theirs the workflow branch
// at wf records (the sha256 of the note in its event log), with one git
// grep over the log.
func recordedBy(r *repo.Repo, rd *gitobj.Reader, wf string, commits []string, theirs Map) (map[string]bool, error) {
	recorded := map[string]bool{}
	if _, kind, _, err := rd.Read(wf); err != nil || kind == "missing" {
		return recorded, err // the remote has no workflow branch
	}
	byHash := map[string]string{}
	args := []string{"grep", "-F", "-h", "-o"}
	for _, c := range commits {
		_, kind, note, err := rd.Read(theirs[c])
		if err != nil || kind != "blob" {
			return nil, fmt.Errorf("reading the note of %s in %s: %v (%s)", gitx.Short(c), wf, err, kind)
		}
		h := Hash(note)
		byHash[h] = c
		args = append(args, "-e", h)
	}
	out, err := r.Git.Run(append(args, wf, "--", ".workflow/events")...)
	if err != nil && gitx.ExitCodeOf(err) != 1 { // 1: none found
		return nil, err
	}
	for _, h := range strings.Fields(out) {
		if c, ok := byHash[h]; ok {
			recorded[c] = true
		}
	}
	return recorded, nil
}

// Hash is the sha256 of a note, which the landing's event records.
func Hash(note []byte) string {
	sum := sha256.Sum256(note)
	return hex.EncodeToString(sum[:])
}
