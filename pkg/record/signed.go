package record

import (
	"bytes"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
)

// Signatures is what verify --signed checked: the tips of the notes ref
// and of the workflow branch (a signed tip vouches for everything it
// holds), and, for each task landed in the range, the notes commit that
// wrote its record and the workflow commit that recorded its landing. A
// signature counts when git calls it good (%G? G), or good from a key
// whose trust it cannot tell (U): which keys to trust is git's
// configuration (gpg's keyring, or gpg.ssh.allowedSignersFile).
type Signatures struct {
	Checked int      `json:"checked"`
	Bad     []BadSig `json:"bad"`
}

// BadSig is a commit without a good signature.
type BadSig struct {
	Ref     string `json:"ref"`
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
	// Status is git's %G?: N no signature, B bad, E cannot be checked
	// (the key is unknown), X/Y expired, R revoked.
	Status string `json:"status"`
}

// landingSubjects are the subjects of the commits that record a landing:
// the notes commit (notes.Write's message) and the workflow's.
func landingSubject(subject string, tasks map[string]bool) bool {
	for _, prefix := range []string{"burl: landing record of ", "burl: approve ", "burl: pr_merged "} {
		if rest, ok := strings.CutPrefix(subject, prefix); ok {
			id, _, _ := strings.Cut(rest, " ")
			return tasks[id]
		}
	}
	return false
}

// signatures checks the commits Signatures describes for the tasks landed
// in the range: their subjects are listed first (no signature checked),
// then only the chosen commits' signatures, in one more git log.
func signatures(g gitx.Git, notesRef, wfRef string, tasks map[string]bool) (*Signatures, error) {
	s := &Signatures{Bad: []BadSig{}}
	var pick []string
	refOf := map[string]string{}
	for _, ref := range []string{notesRef, wfRef} {
		out, err := g.RunInput(nil, "log", "-z", "--format=%H%x00%s", ref, "--")
		if err != nil {
			if gitx.ExitCodeOf(err) == 128 {
				continue // no such ref: nothing of it to check
			}
			return nil, err
		}
		f := bytes.Split(out, []byte{0})
		for i := 0; i+1 < len(f); i += 2 {
			c := string(f[i])
			if i == 0 || landingSubject(string(f[i+1]), tasks) {
				pick = append(pick, c)
				refOf[c] = ref
			}
		}
	}
	if len(pick) == 0 {
		return s, nil
	}
	out, err := g.RunInput([]byte(strings.Join(pick, "\n")+"\n"), "log", "--no-walk=unsorted", "--stdin", "-z", "--format=%H%x00%G?%x00%s")
	if err != nil {
		return nil, err
	}
	f := bytes.Split(out, []byte{0})
	for i := 0; i+2 < len(f); i += 3 {
		c, st := string(f[i]), string(f[i+1])
		s.Checked++
		if st != "G" && st != "U" {
			s.Bad = append(s.Bad, BadSig{Ref: refOf[c], Commit: c, Subject: string(f[i+2]), Status: st})
		}
	}
	return s, nil
}
