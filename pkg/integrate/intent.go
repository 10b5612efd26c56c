package integrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/workflow"
)

// An approve advances main before it commits DONE; killed in between, it
// leaves a QA task whose work is in main, and the next approve finishes
// it. A task's work can reach main in other ways too (a hand merge, an
// agent's git merge), and those must not be finished as if approve had
// gated them (DESIGN §15). So approve records its intent, durably and
// before it moves main, and only an approve whose intent names the commit
// main reached is finished. The record is this clone's (its git
// directory), beside the main branch it is about.

// Intent is what an approve is about to do to main.
type Intent struct {
	Task      string `json:"task"`
	Submitted string `json:"submitted_sha"`
	Base      string `json:"base"`       // main before
	Merged    string `json:"merged_sha"` // main after
	// Rebased is the task branch between its rebase and its squash
	// (merge_strategy squash): a head burl moved the branch through.
	Rebased   string    `json:"rebased_sha,omitempty"`
	Actor     string    `json:"actor"`
	Host      string    `json:"host"`
	PID       int       `json:"pid"`
	CreatedAt time.Time `json:"created_at"`
	// Style is StyleSquash when Merged is the task's work squashed into
	// one commit (merge_strategy squash): the landing record says so.
	Style string `json:"merge_style,omitempty"`
	// Path is the record's file (not stored).
	Path string `json:"-"`
}

// StyleSquash is Intent.Style (and the landing record's merge_style) of
// a squash landing.
const StyleSquash = "squash"

// intentDir holds one file per task an approve is landing.
func intentDir(commonDir string) string { return filepath.Join(commonDir, "burl", "approve-intent") }

// IntentPath is the record of task id's approve.
func IntentPath(commonDir, id string) string { return filepath.Join(intentDir(commonDir), id+".json") }

// RecordIntent writes in before main moves: atomically, and synced, so
// that a record that is read at all is whole.
func RecordIntent(commonDir string, in Intent) error {
	if err := os.MkdirAll(intentDir(commonDir), 0o755); err != nil {
		return err
	}
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return fsx.WriteFile(IntentPath(commonDir, in.Task), append(data, '\n'))
}

// ReadIntent is task id's record, or nil when there is none (or it does
// not parse: a record that was never written whole proves nothing).
func ReadIntent(commonDir, id string) *Intent {
	p := IntentPath(commonDir, id)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var in Intent
	if json.Unmarshal(data, &in) != nil || in.Task != id {
		return nil
	}
	in.Path = p
	return &in
}

// DropIntent removes task id's record: its approve has finished (or was
// rolled back).
func DropIntent(commonDir, id string) error {
	if err := os.Remove(IntentPath(commonDir, id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Intents lists the records present, by task (doctor's view); unreadable
// ones come back with only Task and Path set.
func Intents(commonDir string) ([]Intent, error) {
	ents, err := os.ReadDir(intentDir(commonDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var out []Intent
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		if in := ReadIntent(commonDir, id); in != nil {
			out = append(out, *in)
		} else {
			out = append(out, Intent{Task: id, Path: IntentPath(commonDir, id)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Task < out[j].Task })
	return out, nil
}

// Unpublished reports whether this clone's DONE may still be taken back:
// with workflow_auto_push, a DONE committed here and not yet pushed is
// dropped again when the remote's main moved on (the approve is redone),
// and the redo needs the intent. Until then the record stays.
func Unpublished(w *workflow.Workflow) bool {
	if !w.AutoPush() {
		return false
	}
	ahead, _, ok := w.Divergence()
	return !ok || ahead > 0
}

// Landed reports whether in is the approve that put the task's submitted
// commits into main: it names them, and the commit it moved main to is in
// main.
func (in *Intent) Landed(g gitx.Git, main, submitted string) bool {
	if in == nil || in.Merged == "" || submitted == "" || in.Submitted != submitted {
		return false
	}
	ok, _ := g.Test("merge-base", "--is-ancestor", in.Merged, "refs/heads/"+main)
	return ok
}

// LandedCommits names a task's submitted commits (base..sub) and where main holds
// them, for the messages of approve and doctor.
func LandedCommits(g gitx.Git, main, base, sub string) string {
	log, _ := g.Run("log", "--format=%h %s", "-n", "20", "--end-of-options", base+".."+sub)
	var where string
	if in, _ := g.Test("merge-base", "--is-ancestor", sub, "refs/heads/"+main); in {
		// The first commit of main after the work: a hand merge's merge
		// commit, or (fast-forward) none.
		first, _ := g.Run("rev-list", "--ancestry-path", "--reverse", "--end-of-options", sub+"..refs/heads/"+main)
		if c, _, _ := strings.Cut(first, "\n"); c != "" {
			subject, _ := g.Run("log", "-1", "--format=%h %s", c)
			where = fmt.Sprintf("%s holds them since %s", main, subject)
		} else {
			where = fmt.Sprintf("%s is at them (a fast-forward)", main)
		}
	} else {
		where = fmt.Sprintf("%s holds copies of them (git cherry %s %s %s)", main, main, gitx.Short(sub), gitx.Short(base))
	}
	return log + "\n" + where
}
