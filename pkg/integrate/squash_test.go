package integrate

import (
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitx"
)

// squashOnto makes the task's change base..tip one commit on onto, as
// approve's merge_strategy squash does, moving the task branch to it.
func squashOnto(t *testing.T, wt, onto, from string) string {
	t.Helper()
	sq := gittest.Git(t, wt, "commit-tree", "HEAD^{tree}", "-p", onto, "-m", "squash")
	gittest.Git(t, wt, "update-ref", "-m", SquashReflog+" TASK-001", "refs/heads/task", sq, from)
	return sq
}

// A task of two commits squashed into main is recognised there (an
// approve killed after it moved main), and not before, nor a task whose
// change main lacks, nor one whose change is empty.
func TestWorkInMainRecognisesASquash(t *testing.T) {
	f := newFixture(t)
	g := gitx.In(f.repo)
	wt, _ := taskWorktree(t, f, f.c1, "task.txt", "draft\n")
	submitted := commit(t, wt, "task.txt", "final\n")
	c2 := commit(t, f.repo, "other.txt", "main\n")
	if in, err := WorkInMain(g, "main", f.c1, submitted); err != nil || in {
		t.Fatalf("before landing: WorkInMain = %v, %v; want false", in, err)
	}
	gittest.Git(t, wt, "rebase", "-q", c2)
	rebased := gittest.Git(t, wt, "rev-parse", "HEAD")
	sq := squashOnto(t, wt, c2, rebased)
	gittest.Git(t, f.repo, "merge", "-q", "--ff-only", sq)
	if in, err := WorkInMain(g, "main", f.c1, submitted); err != nil || !in {
		t.Errorf("after the squash landed: WorkInMain = %v, %v; want true", in, err)
	}
	if from := RebasedFrom(gitx.In(wt), "task"); from != submitted {
		t.Errorf("RebasedFrom after rebase and squash = %s, want the submitted %s", from, submitted)
	}
	// A change that undoes itself is in no main.
	wt2 := t.TempDir() + "/undo"
	gittest.Git(t, f.repo, "worktree", "add", "-q", "-b", "undo", wt2, f.c1)
	commit(t, wt2, "f.txt", "changed\n")
	undone := commit(t, wt2, "f.txt", "one\n")
	if in, _ := WorkInMain(g, "main", f.c1, undone); in {
		t.Errorf("an empty change counts as in main")
	}
}

// Squashed without a rebase (main had not moved): the reflog leads from
// the squash straight back to the submitted commit.
func TestRebasedFromASquashAlone(t *testing.T) {
	f := newFixture(t)
	wt, _ := taskWorktree(t, f, f.c1, "task.txt", "draft\n")
	submitted := commit(t, wt, "task.txt", "final\n")
	squashOnto(t, wt, f.c1, submitted)
	if from := RebasedFrom(gitx.In(wt), "task"); from != submitted {
		t.Errorf("RebasedFrom = %q, want %s", from, submitted)
	}
	// A commit made after it is not approve's doing.
	commit(t, wt, "task.txt", "later\n")
	if from := RebasedFrom(gitx.In(wt), "task"); from != "" {
		t.Errorf("RebasedFrom after a commit = %q, want none", from)
	}
}
