package record

import (
	"bytes"

	"github.com/burl-dev/burl/pkg/gitx"
)

// Signatures is what verify --signed checked: every commit of the notes
// ref, every landing commit of the workflow branch (burl: approve …,
// burl: pr_merged …) and its tip. A signature counts when git calls it
// good (%G? G), or good from a key whose trust it cannot tell (U): which
// keys to trust is git's configuration (gpg's keyring, or
// gpg.ssh.allowedSignersFile).
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

func signatures(g gitx.Git, notesRef, wfRef string) (*Signatures, error) {
	s := &Signatures{Bad: []BadSig{}}
	seen := map[string]bool{}
	for _, q := range []struct {
		ref  string
		args []string
	}{
		{notesRef, []string{notesRef}},
		{wfRef, []string{"-1", wfRef}},
		{wfRef, []string{"--grep=^burl: approve ", "--grep=^burl: pr_merged ", wfRef}},
	} {
		if ok, _ := g.Test("rev-parse", "-q", "--verify", q.ref); !ok {
			continue
		}
		out, err := g.RunInput(nil, append([]string{"log", "-z", "--format=%H%x00%G?%x00%s"}, append(q.args, "--")...)...)
		if err != nil {
			return nil, err
		}
		f := bytes.Split(out, []byte{0})
		for i := 0; i+2 < len(f); i += 3 {
			c, st := string(f[i]), string(f[i+1])
			if seen[c] {
				continue
			}
			seen[c] = true
			s.Checked++
			if st != "G" && st != "U" {
				s.Bad = append(s.Bad, BadSig{Ref: q.ref, Commit: c, Subject: string(f[i+2]), Status: st})
			}
		}
	}
	return s, nil
}
