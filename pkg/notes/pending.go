package notes

import (
	"encoding/json"
	"errors"
	"os"
	"strings"

	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
)

// Pending is a notes commit that another commit writes with its own: its
// objects in that commit's one git unpack-objects, the move of Ref in its
// update-ref --stdin transaction (DESIGN §28). It keeps the change as
// well, to plan it again on top of a notes ref that moved meanwhile.
type Pending struct {
	Notes   Map             `json:"notes"`
	Blobs   []gitobj.Object `json:"blobs"`
	Message string          `json:"message"`
	Objects []gitobj.Object `json:"objects"`
	Tip     string          `json:"tip"`
	Was     string          `json:"was"`
}

// NewPending is u, the notes commit of c, to be written later.
func NewPending(c Change, u *Update) *Pending {
	return &Pending{Notes: c.Notes, Blobs: c.Blobs, Message: c.Message, Objects: u.Objects, Tip: u.Tip, Was: u.Was}
}

// Encode and DecodePending are its journal's bytes.
func (p *Pending) Encode() ([]byte, error) { return json.Marshal(p) }

// DecodePending reads a journal Encode wrote.
func DecodePending(data []byte) (*Pending, error) {
	var p Pending
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	if !gitx.ValidObjectID(p.Tip) {
		return nil, errors.New("no notes commit in it")
	}
	return &p, nil
}

// Now is p as it must be written on the notes ref as it is now: p itself
// while the ref is where p was planned on, p planned again on top of it
// when it moved (a sync's merge, a hand-run git notes), nil when p is on
// it already (written, and its journal not removed yet).
func (p *Pending) Now(r *repo.Repo, g gitx.Git) (*Pending, error) {
	cur := ""
	if err := g.Cat([]string{Ref}, false, func(_ int, oid, kind string, _ []byte) error {
		if kind != "missing" {
			cur = oid
		}
		return nil
	}); err != nil {
		return nil, err
	}
	switch cur {
	case p.Tip:
		return nil, nil
	case p.Was:
		return p, nil
	}
	c := Change{Notes: p.Notes, Blobs: p.Blobs, Message: p.Message}
	u, err := Plan(r, gitobj.NewReader(g), c)
	if err != nil || u.Tip == u.Was {
		return nil, err
	}
	return NewPending(c, u), nil
}

// Move is the notes ref's line of an update-ref --stdin transaction: from
// Was (which must not exist when it is "") to Tip.
func (p *Pending) Move() string {
	was := p.Was
	if was == "" {
		was = strings.Repeat("0", len(p.Tip))
	}
	return "update " + Ref + " " + p.Tip + " " + was + "\n"
}

// Objs are the objects to write with the other commit's (none of nil).
func (p *Pending) Objs() []gitobj.Object {
	if p == nil {
		return nil
	}
	return p.Objects
}

// Apply writes p on its own (nil: nothing), for a commit that cannot
// carry it (git commit moves its branch itself).
func (p *Pending) Apply(g gitx.Git) error {
	if p == nil {
		return nil
	}
	if len(p.Objects) > 0 {
		if err := gitobj.Write(g, p.Objects, len(p.Tip)/2); err != nil {
			return err
		}
	}
	subject, _, _ := strings.Cut(p.Message, "\n")
	_, err := g.RunInput([]byte(p.Move()), "update-ref", "-m", strings.TrimSpace(subject), "--stdin")
	return err
}

// ReadPending reads the journal at path (nil when there is none).
func ReadPending(path string) (*Pending, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return DecodePending(data)
}
