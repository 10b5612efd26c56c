package remote

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/notes"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/sparse"
)

// Branch is the workflow branch, as it moves to and from the remote.
type Branch struct {
	Repo   *repo.Repo
	Config *config.Config
	Dir    string   // the workflow folder (<workflow worktree>/.workflow)
	Git    gitx.Git // git in the workflow worktree
	Stderr io.Writer
	// Sparse writes what git changes outside a sparse cone.
	Sparse *sparse.Worktree
	// MainFetched is when this process last fetched the remote's main
	// with the workflow branch (FreshMain); it outlives one Branch.
	MainFetched *time.Time
}

func (w *Branch) gitWT() gitx.Git { return w.Git }

// Rel renders a path relative to the repository root.
func (w *Branch) Rel(p string) string { return w.Repo.Rel(p) }

func (w *Branch) materialize(from, to string) error { return w.Sparse.Materialize(from, to) }

// AutoPush reports whether mutations are pushed as they happen.
func (w *Branch) AutoPush() bool {
	return w.Config.WorkflowAutoPush && w.HasRemote()
}

func (w *Branch) remoteRef() string {
	return gitx.Tracking(w.Config.Remote, w.Repo.Branch)
}

// FreshFor is how long a pull (or a push that won) stands for the
// remote's state in a transition that reuses it: the check and prepare of
// one transition, not a build. Past it the transition pulls again.
const FreshFor = 10 * time.Second

// interruptedApprove is the kind of doctor's repair that records an
// interrupted approve's DONE: a stranded approve like approve's own.
const interruptedApprove = "interrupted_approve"

// StrandedApproves handles approves this clone committed and never pushed
// (killed between the commit and the push): with workflow_auto_push an
// approve publishes DONE and main together, so such a commit must not
// reach the remote without main. When local main is a fast-forward of the
// remote's, it returns the refspec that carries main along with the next
// push. When the remote's main has moved on meanwhile, those commits
// record work main cannot take as it is: they are dropped (the tasks are
// back where the remote has them, in QA), and the next approve redoes
// them from their branches (integrate.Main moves local main back to the
// remote's, as every commit only it has is on a task branch).
func (w *Branch) StrandedApproves(pr *PullResult) ([]string, error) {
	g, branch := w.Repo.Git, w.Repo.Branch
	subjects, err := g.Run("log", "--format=%s", pr.Remote+"..refs/heads/"+branch)
	if err != nil || !(strings.Contains("\n"+subjects, "\nburl: approve ") || strings.Contains(subjects, ": "+interruptedApprove+"\n") || strings.HasSuffix(subjects, ": "+interruptedApprove)) {
		return nil, err
	}
	main := w.Config.MainBranch
	if err := g.FetchTracking(w.Config.Remote, main); err != nil {
		// Unreachable: the push that follows finds out.
		return nil, nil
	}
	local, _ := g.Run("rev-parse", "-q", "--verify", "refs/heads/"+main)
	remote, _ := g.Run("rev-parse", "-q", "--verify", gitx.Tracking(w.Config.Remote, main))
	// The main to carry is the one those approves recorded, not local
	// main's tip: an approve in flight on this machine (it holds the main
	// lock, not the workflow lock) may have advanced local main past them,
	// and its work must not reach the remote before its DONE does.
	merged, err := w.unpushedMerged(pr.Remote)
	if err != nil {
		return nil, err
	}
	switch {
	case merged != "" && remote == "":
		return []string{merged + ":refs/heads/" + main}, nil
	case merged != "":
		if in, err := g.Test("merge-base", "--is-ancestor", merged, remote); err != nil || in {
			return nil, err
		}
		if ff, err := g.Test("merge-base", "--is-ancestor", remote, merged); err != nil {
			return nil, err
		} else if ff {
			return []string{merged + ":refs/heads/" + main}, nil
		}
	case local == "" || local == remote:
		return nil, nil
	default:
		if ahead, err := g.Test("merge-base", "--is-ancestor", remote, local); remote == "" || (err == nil && ahead) {
			return []string{local + ":refs/heads/" + main}, nil
		}
		if behind, err := g.Test("merge-base", "--is-ancestor", local, remote); err != nil || behind {
			return nil, err
		}
	}
	head, err := w.gitWT().Run("rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	if _, err := w.gitWT().Run("reset", "-q", "--hard", pr.Remote); err != nil {
		return nil, err
	}
	if err := w.materialize(head, pr.Remote); err != nil {
		return nil, err
	}
	fmt.Fprintf(w.Stderr, "burl: warning: dropped %d workflow commit(s) of this clone that never reached %s, among them an approve whose %s was not pushed before %s/%s moved on; approve those tasks again:\n%s\n",
		strings.Count(subjects, "\n")+1, w.Config.Remote, main, w.Config.Remote, main, indentLines(subjects))
	return nil, nil
}

// StrandedMerged is the newest merged_sha of this clone's approves that the
// remote's workflow branch (as last fetched) does not have yet: the main
// their DONE stands for. "" when there are none.
func (w *Branch) StrandedMerged() (string, error) {
	from, _ := w.Repo.Git.Run("rev-parse", "-q", "--verify", gitx.Tracking(w.Config.Remote, w.Repo.Branch))
	return w.unpushedMerged(from)
}

// unpushedMerged is StrandedMerged counted from from, the remote's tip.
// "" also when the remote has no workflow branch to compare with.
func (w *Branch) unpushedMerged(from string) (string, error) {
	if from == "" {
		return "", nil
	}
	g := w.Repo.Git
	out, err := g.Run("diff", "--no-renames", "--no-color", "--no-ext-diff", "-U0", from, "refs/heads/"+w.Repo.Branch,
		"--", filepath.ToSlash(filepath.Join(filepath.Base(w.Dir), bucket.EventsDirName)))
	if err != nil {
		return "", err
	}
	newest := ""
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "+{") {
			continue
		}
		var e struct {
			Action  string `json:"action"`
			Details struct {
				Merged      string `json:"merged_sha"`
				Interrupted string `json:"interrupted"`
			} `json:"details"`
		}
		if json.Unmarshal([]byte(l[1:]), &e) != nil || !gitx.ValidObjectID(e.Details.Merged) ||
			!(e.Action == "approve" || e.Action == "repair" && e.Details.Interrupted == "approve") {
			continue
		}
		// Approves on one machine land one after another (the main lock):
		// each merged_sha descends from the ones before.
		if newest == "" {
			newest = e.Details.Merged
		} else if later, err := g.Test("merge-base", "--is-ancestor", newest, e.Details.Merged); err == nil && later {
			newest = e.Details.Merged
		}
	}
	return newest, nil
}

// SettleStranded does to this clone's unpushed workflow commits what the
// next transition's pull does (StrandedApproves), for a caller that holds
// the workflow lock and is about to push them (doctor's repair): it pulls,
// drops approves whose main can no longer go with them, and returns the
// refspec carrying main when it must.
func (w *Branch) SettleStranded() ([]string, error) {
	pr, err := w.PullWorkflow()
	if err != nil || pr.Ahead == 0 {
		return nil, err
	}
	return w.StrandedApproves(pr)
}

// PushesRef reports whether refspecs already push to the destination of c.
func PushesRef(refspecs []string, c string) bool {
	_, dst, _ := strings.Cut(c, ":")
	for _, r := range refspecs {
		if _, d, _ := strings.Cut(r, ":"); d == dst {
			return true
		}
	}
	return false
}

func indentLines(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}

// PushResult is how one push of the workflow branch ended.
type PushResult int

const (
	PushWon     PushResult = iota // our commit is the remote's workflow branch
	PushLost                      // another machine moved the branch first: pull and redo
	PushLostRef                   // another pushed ref (main) moved: redoing cannot help
	PushRefused                   // the remote or a hook refused it, or it never got there
)

// Push pushes commit as the workflow branch plus extra refspecs, in one
// atomic push, and classifies the outcome from git's porcelain report. A
// win counts only when the report shows the ref updated to our own commit.
func (w *Branch) Push(commit string, extra []string) (PushResult, error) {
	target := "refs/heads/" + w.Repo.Branch
	args := []string{"push", "--porcelain", "--atomic", w.Config.Remote, commit + ":" + target}
	args = append(args, extra...)
	// The landing records go with the workflow branch that names their
	// hashes, in the same atomic push (DESIGN §22): asked every time, as
	// git tells an unchanged ref in the same round trip, at no cost.
	if !PushesRef(args, notes.PushSpec) {
		args = append(args, notes.PushSpec)
	}
	out, perr := w.Repo.Git.RunInput(nil, args...)
	lines := porcelain(string(out))
	l, ok := lines[target]
	switch {
	case perr == nil && ok && (l.flag == ' ' || l.flag == '*') && landed(commit, l.summary):
		return PushWon, nil
	case perr == nil && ok && l.flag == '=':
		// "Up to date": the remote already had this commit, which can only
		// be ours if an earlier report got lost.
		if w.remoteHas(commit) {
			return PushWon, nil
		}
		return PushRefused, fmt.Errorf("the remote reports %s up to date without our commit", target)
	case !ok || perr == nil:
		// No report for our ref: a local pre-push hook refused, or the
		// connection dropped. Settle the outcome with the remote itself.
		if w.remoteHas(commit) {
			return PushWon, nil
		}
		if perr == nil {
			perr = fmt.Errorf("unexpected push report: %s", strings.TrimSpace(string(out)))
		}
		return PushRefused, perr
	}
	for ref, other := range lines {
		// The notes lost only to another landing's notes, merged by the
		// next pull: redoing helps, as for the workflow branch.
		if ref != target && ref != notes.Ref && other.flag == '!' && !strings.Contains(other.summary, "atomic push failed") && raceLost(other.summary) {
			return PushLostRef, fmt.Errorf("%s %s", ref, other.summary)
		}
	}
	if raceLost(l.summary) {
		return PushLost, fmt.Errorf("%s %s", target, l.summary)
	}
	return PushRefused, fmt.Errorf("%s %s: %v", target, l.summary, perr)
}

// raceLost tells a push that lost a race (the ref moved since we read it,
// or the server could not lock it because another push was updating it)
// from one refused on purpose (a server hook, permissions).
func raceLost(summary string) bool {
	return strings.HasPrefix(summary, "[rejected]") ||
		strings.Contains(summary, "failed to update ref") ||
		strings.Contains(summary, "cannot lock ref") ||
		strings.Contains(summary, "failed to lock")
}

type pushLine struct {
	flag    byte
	summary string
}

// porcelain parses `git push --porcelain`: "<flag>\t<from>:<to>\t<summary>".
func porcelain(out string) map[string]pushLine {
	m := map[string]pushLine{}
	for _, l := range strings.Split(out, "\n") {
		parts := strings.Split(l, "\t")
		if len(parts) < 3 || len(parts[0]) != 1 {
			continue
		}
		_, to, ok := strings.Cut(parts[1], ":")
		if !ok {
			continue
		}
		m[to] = pushLine{flag: parts[0][0], summary: parts[2]}
	}
	return m
}

// landed reads a push summary ("2986e7d..3af356e" or "[new branch]") and
// says whether the ref now points at commit.
func landed(commit, summary string) bool {
	if summary == "[new branch]" {
		return true
	}
	_, after, ok := strings.Cut(summary, "..")
	return ok && after != "" && strings.HasPrefix(commit, after)
}

func (w *Branch) remoteHas(commit string) bool {
	out, err := w.Repo.Git.Run("ls-remote", w.Config.Remote, "refs/heads/"+w.Repo.Branch)
	return err == nil && strings.HasPrefix(out, commit)
}

// Divergence is how the local workflow branch relates to the remote's
// (as of the last fetch).
func (w *Branch) Divergence() (ahead, behind int, ok bool) {
	g := gitx.In(w.Repo.Root)
	out, err := g.Run("rev-list", "--left-right", "--count", w.Repo.Branch+"..."+w.remoteRef())
	if err != nil {
		return 0, 0, false
	}
	fmt.Sscanf(out, "%d %d", &ahead, &behind)
	return ahead, behind, true
}
