package runcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/bwrapbox"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/notes"
	"github.com/burl-dev/burl/pkg/runguard"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// What a run must not reach, beyond the repository (DESIGN §19): the git
// configuration burl's own git reads is pinned at start, the user's
// credentials are hidden from agents, burl's state directories are
// checked by identity after each run, and without a sandbox every ref is.

// PinConfig pins the git configuration for this watcher and everything it
// starts; agents get the user's own back (AgentEnviron).
func (c *Checker) PinConfig(w *workflow.Workflow) error {
	state := ""
	if st, err := trust.DefaultStore(); err == nil {
		state = filepath.Dir(st.Path)
	}
	p, err := runguard.PinGitConfig(w.Repo.Root, state)
	if err != nil {
		return err
	}
	if err := p.Setenv(); err != nil {
		p.Close()
		return err
	}
	c.Pin = p
	return nil
}

// AgentEnviron is watch's environment as an agent gets it: the user's own
// git configuration variables, without the variables sandbox_hide names,
// and never the forge token burl lands pull requests with (DESIGN §17: an
// agent holding it could merge its own request past its review).
func (c *Checker) AgentEnviron(a agents.Agent) []string {
	env := os.Environ()
	if c.Pin != nil {
		env = c.Pin.Restore(env)
	}
	drop := map[string]bool{"BURL_FORGE_TOKEN": true}
	for _, k := range bwrapbox.HiddenEnv(a.Hide) {
		drop[k] = true
	}
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv)
		}
	}
	return out
}

// hidden is what agent a's runs must not reach here.
func (c *Checker) hidden(w *workflow.Workflow, a agents.Agent, wt string) (*bwrapbox.Hide, error) {
	h, err := bwrapbox.Hidden(w.Repo.Root, a.Hide, w.Repo.Root, w.Repo.CommonDir, wt)
	if err != nil {
		return nil, err
	}
	for _, why := range h.Skipped {
		c.SayOnce("hide-skip:"+why, "sandbox_hide: not hidden: %s", why)
	}
	return h, nil
}

// stateDirs are the directories of burl's own state a run must not
// replace: the trust store's, the forge state's (in the git dir), the run
// logs folder. Each exists before the run, so that one made by the run is
// a replacement too.
func stateDirs(w *workflow.Workflow) []string {
	var out []string
	if st, err := trust.DefaultStore(); err == nil {
		out = append(out, filepath.Dir(st.Path))
	}
	out = append(out, filepath.Join(w.Repo.CommonDir, "burl"), w.LogsDir())
	for _, d := range out {
		_ = os.MkdirAll(d, 0o700)
	}
	return out
}

// halt stops every command of this watcher: a directory of burl's state
// was replaced, so what burl would read there (the commands trusted, the
// forge's answers) is no longer its own. It lifts when the directories
// are put back.
func (c *Checker) halt(r []runguard.Replacement) {
	c.mu.Lock()
	c.halted = append(c.halted, r...)
	c.mu.Unlock()
}

// HaltReason is why watch runs nothing now ("" when it may): a replaced
// state directory not yet put back.
func (c *Checker) HaltReason() string {
	c.mu.Lock()
	var still []runguard.Replacement
	for _, r := range c.halted {
		if !r.Restored() {
			still = append(still, r)
		}
	}
	lifted := len(c.halted) > 0 && len(still) == 0
	c.halted = still
	c.mu.Unlock()
	if lifted {
		c.Logf("the replaced directories are back; running commands again")
	}
	if len(still) == 0 {
		return ""
	}
	var what []string
	for _, r := range still {
		what = append(what, r.String())
	}
	return fmt.Sprintf("a run replaced %s, which leads to burl's own state (the trust store, the forge state, the logs): "+
		"watch runs no command until it is put back (move the directory there now aside and the original back: "+
		"find / -xdev -inum N names where it went), or restart watch once you have checked what it holds",
		strings.Join(what, "; "))
}

// explainer gives to burl the ref changes its own transitions made while
// the run of task id (branch own) lived, from since (DESIGN §19): main
// moved to a commit an approve landed (its event, or the intent it
// records first); a task branch created by its claim, moved by its
// approve's rebase or its submit, deleted by approve, clean or a merged
// pull request, or any of these while its lock is held (a transition
// under way), or moved exactly as its intent recorded before the move
// (approve --all's staging, a restack: stagedMove); the workflow branch fast-forwarded; the landing records'
// notes ref created by a landing or moved forward; a remote-tracking ref
// set to what the remote has; and the branches of the other tasks this
// watcher runs. Everything else is the run's, its own branch included
// (its commits reach that only through Receive, after this check).
//
// The workflow branch fast-forwarded by commits burl did not make (a
// subject is anyone's, DESIGN §24) is the run's: those are put in
// *foreign, and the branch is left where it is, as rewinding it would
// drop burl's own transitions made on top of them meanwhile.
func (c *Checker) explainer(w *workflow.Workflow, own string, since time.Time, foreign *[]string) runguard.Explain {
	evs, _, _ := events.Read(w.EventsDir(), events.Filter{Since: since.Add(-2 * time.Second)})
	landed := map[string]bool{}
	values := map[string]map[string]bool{} // task branch -> commits it was set to
	acted := map[string]map[string]bool{}  // task branch -> actions
	taskOf := map[string]string{}          // task branch -> id
	branches := map[string]string{}
	branchOf := func(id string) string {
		b, ok := branches[id]
		if !ok {
			if e, err := w.Get(id); err == nil && e.Task != nil {
				b = e.Task.Branch()
			}
			branches[id] = b
		}
		return b
	}
	note := func(b, id, action string, shas ...string) {
		if b == "" {
			return
		}
		taskOf[b] = id
		if acted[b] == nil {
			acted[b], values[b] = map[string]bool{}, map[string]bool{}
		}
		acted[b][action] = true
		for _, v := range shas {
			values[b][v] = true
		}
	}
	for _, e := range evs {
		str := func(k string) string { v, _ := e.Details[k].(string); return v }
		if m := str("merged_sha"); m != "" {
			landed[m] = true
		}
		if e.TaskID() == "" {
			continue
		}
		b := str("branch")
		if b == "" {
			b = branchOf(e.TaskID())
		}
		// The commits a task branch may move to: what submit recorded,
		// what approve landed, where a restack replayed it.
		heads := []string{str("submitted_sha"), str("merged_sha")}
		if e.Action == "restack" {
			heads = append(heads, str("head"))
		}
		note(b, e.TaskID(), e.Action, heads...)
	}
	// An approve under way moved main before its event: its intent,
	// recorded first, names where to (DESIGN §15).
	ins, _ := integrate.Intents(w.Repo.CommonDir)
	for _, in := range ins {
		landed[in.Merged] = true
	}
	for _, id := range c.Held() {
		// The run's own branch is not moved while it lives: its commits
		// go to the run's git dir, taken in after the check.
		if b := branchOf(id); b != own {
			note(b, id, "held")
		}
	}
	mainRef := "refs/heads/" + w.Config.MainBranch
	flowRef := "refs/heads/" + w.Repo.Branch
	remotes := map[string]map[string]string{}
	return func(c runguard.RefChange) bool {
		switch {
		case strings.HasPrefix(c.Name, "refs/remotes/"):
			return remoteHas(w, remotes, c)
		case c.Name == mainRef:
			tracking, _ := w.Repo.Git.Run("rev-parse", "-q", "--verify", gitx.Tracking(w.Config.Remote, w.Config.MainBranch))
			return c.New != "" && (landed[c.New] || c.New == tracking)
		case c.Name == flowRef:
			ok, _ := w.Repo.Git.Test("merge-base", "--is-ancestor", c.Old, c.New)
			if !ok || c.Old == "" || c.New == "" {
				return false
			}
			theirs, err := w.NotBurls(w.Repo.Git, c.Old, c.New)
			if err != nil {
				theirs = []string{"(its commits " + gitx.Short(c.Old) + ".." + gitx.Short(c.New) + " could not be read: " + err.Error() + ")"}
			}
			*foreign = append(*foreign, theirs...)
			return true
		case c.Name == notes.Ref || strings.HasPrefix(c.Name, "refs/burl/notes/"):
			// The landing records (DESIGN §22): a landing during the run
			// creates the ref or adds a notes commit, a pull merges the
			// remote's in; never a deletion or a rewrite. A note forged
			// this way is verify's `!`: its hash is not the one the
			// landing's event recorded.
			if c.New == "" {
				return false
			}
			if c.Old == "" {
				return len(landed) > 0 || strings.HasPrefix(c.Name, "refs/burl/notes/")
			}
			ok, _ := w.Repo.Git.Test("merge-base", "--is-ancestor", c.Old, c.New)
			return ok
		}
		b, ok := strings.CutPrefix(c.Name, "refs/heads/")
		if !ok {
			return false
		}
		if b != own && stagedMove(w, b, c, values[b]) {
			return true
		}
		if acted[b] == nil {
			// A claim under way creates its branch under its task's lock
			// before its event is written, and may have finished since
			// the events were read: burl's if it holds that lock now, or
			// committed the claim of this branch since the run began.
			return c.Old == "" && b != own && claimedSince(w, b, since)
		}
		if acted[b]["held"] || w.Locks.Held(taskOf[b]) {
			return true
		}
		switch {
		case c.Old == "":
			return acted[b]["claim"]
		case c.New == "":
			return acted[b]["approve"] || acted[b]["clean"] || acted[b]["pr_merged"]
		}
		return acted[b]["approve"] || values[b][c.New]
	}
}

// claimedSince reports whether task branch b was created by a claim of
// its task that is under way (the task's lock held) or was committed at
// or after since.
func claimedSince(w *workflow.Workflow, b string, since time.Time) bool {
	id, ok := workflow.IDForBranch(b)
	if !ok {
		return false
	}
	if w.Locks.Held(id) {
		return true
	}
	e, err := w.TaskForBranch(b)
	if err != nil || e == nil || e.Bucket != workflow.Doing {
		return false
	}
	started, err := time.Parse(time.RFC3339, e.Task.Str(task.KeyStartedAt))
	return err == nil && !started.Before(since.Truncate(time.Second))
}

// remoteHas reports whether a remote-tracking ref was set to what its
// remote has now (or removed where the remote has no such branch). One
// ls-remote per remote, only when a tracking ref changed.
func remoteHas(w *workflow.Workflow, cache map[string]map[string]string, c runguard.RefChange) bool {
	rest := strings.TrimPrefix(c.Name, "refs/remotes/")
	remote, branch, ok := strings.Cut(rest, "/")
	if !ok {
		return false
	}
	if branch == "HEAD" && (strings.HasPrefix(c.New, "ref: ") || c.New == "") {
		return true // the remote's default branch, which fetch sets
	}
	refs, seen := cache[remote]
	if !seen {
		refs = map[string]string{}
		if out, err := w.Repo.Git.Run("ls-remote", "--heads", remote); err == nil {
			for _, l := range strings.Split(out, "\n") {
				if sha, name, ok := strings.Cut(l, "\t"); ok {
					refs[name] = sha
				}
			}
		} else {
			refs = nil
		}
		cache[remote] = refs
	}
	if refs == nil {
		return false
	}
	return refs["refs/heads/"+branch] == c.New
}
