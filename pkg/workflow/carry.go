package workflow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/notes"
)

// A landing's record (DESIGN §22) is a notes commit that moves with the
// transition's own commit (notes.Pending): one unpack-objects and one
// update-ref --stdin for both, where it took a pair of git processes of
// its own (DESIGN §28). From Apply until that commit it is journalled in
// .git/burl/landing-record: a kill after the landing's event reached the
// disk leaves it there, and the next workflow commit (doctor's repair of
// what the kill left, which commits the event, first of all) carries it,
// so no committed event ever names a record the notes ref lacks.

// carryPath is the journal's file.
func (w *Workflow) carryPath() string {
	return filepath.Join(w.Repo.CommonDir, "burl", "landing-record")
}

// BadLandingRecord is the journal's path when it holds what burl cannot
// read as a record it wrote (every workflow commit then leaves it out and
// warns), and why; "" when it is absent or sound.
func (w *Workflow) BadLandingRecord() (string, error) {
	p := w.carryPath()
	if _, err := notes.ReadPending(p); err != nil {
		return p, err
	}
	return "", nil
}

// CarryNotes has the transition's commit write the notes commit u (of
// the change c) and move the notes ref with the workflow branch. Without
// workflow_auto_commit there is no such commit: u is written now.
func (tx *Tx) CarryNotes(c notes.Change, u *notes.Update) error {
	if u.Tip == u.Was {
		return nil
	}
	if !tx.W.Config.WorkflowAutoCommit {
		return u.Apply(tx.W.Repo.Git)
	}
	tx.carry = notes.NewPending(c, u)
	return nil
}

// journal writes tx's carried record before the transition touches a
// file, and has a rollback take it back.
func (w *Workflow) journal(tx *Tx) error {
	if tx.carry == nil {
		return nil
	}
	data, err := tx.carry.Encode()
	if err != nil {
		return err
	}
	p := w.carryPath()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := fsx.WriteFile(p, data); err != nil {
		return fmt.Errorf("journalling the landing record in %s: %w", p, err)
	}
	tx.OnRollback(w.dropCarry)
	return nil
}

// dropCarry removes the journal once its record is on the notes ref (or
// its transition was rolled back).
func (w *Workflow) dropCarry() error {
	if err := os.Remove(w.carryPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// takeCarry is the journalled record the commit about to be made
// carries, as the notes ref now needs it; nil when there is none, or it
// is on the notes ref already (a kill after the commit, before the
// journal went), which drops the journal.
func (w *Workflow) takeCarry(g gitx.Git) (*notes.Pending, error) {
	p, err := notes.ReadPending(w.carryPath())
	if err != nil {
		fmt.Fprintf(w.Stderr, "burl: warning: %s is not a landing record burl wrote (%v); left out of the commit: remove it, and git burl verify names the landing whose record is missing\n", w.carryPath(), err)
		return nil, nil
	}
	if p == nil {
		return nil, nil
	}
	if p, err = p.Now(w.Repo, g); err == nil && p == nil {
		_ = w.dropCarry()
	}
	return p, err
}
