// Package provenance tells burl's commits on the workflow branch from
// anyone else's by the events they record (DESIGN §24).
package provenance

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/gitx"
)

// Branch is the workflow branch, for what its commits record.
type Branch struct {
	Dir string   // the workflow folder (<workflow worktree>/.workflow)
	Git gitx.Git // git in the workflow worktree
}

func (w *Branch) gitWT() gitx.Git { return w.Git }

// Provenance, not names (DESIGN §24): a commit on the workflow branch is
// burl's when it records, in the same commit, the event of what it did.
// Its subject alone ("burl: scope TASK-001") proves nothing: anyone can
// write one.

// addedEvents is, for each commit git lists with args (revisions or a
// range), the event lines it adds to the log; a commit that adds none is
// absent. g is any worktree's git: the paths are the branch's own.
func (w *Branch) addedEvents(g gitx.Git, args ...string) (map[string][]events.Event, error) {
	dir := filepath.ToSlash(filepath.Join(filepath.Base(w.Dir), bucket.EventsDirName))
	cmd := append([]string{"-c", "core.quotePath=true", "log", "--format=%x01%H", "--no-renames", "-p", "-U0",
		"--no-ext-diff", "--no-textconv", "--no-color"}, args...)
	out, err := g.Run(append(cmd, "--", ":(top,glob)"+dir+"/**")...)
	if err != nil {
		return nil, err
	}
	got := map[string][]events.Event{}
	for _, block := range strings.Split(out, "\x01") {
		sha, patch, _ := strings.Cut(block, "\n")
		if sha = strings.TrimSpace(sha); sha == "" {
			continue
		}
		for _, l := range strings.Split(patch, "\n") {
			line, ok := strings.CutPrefix(l, "+")
			if !ok || strings.HasPrefix(line, "++") {
				continue
			}
			var e events.Event
			if json.Unmarshal([]byte(line), &e) == nil && e.Action != "" {
				got[sha] = append(got[sha], e)
			}
		}
	}
	return got, nil
}

// Recorded reports, for each commit of shards (its sha and the event
// log shards it changed), the actions of task id whose events that commit
// records itself: a commit whose subject says "claim TASK-001" or "scope
// TASK-001" did so only when it holds that event. What a commit adds to a
// shard is read through cat-file, the shard in the commit and in its
// parent: the lines it has that its parent's lacks (as many times as they
// are added: the log only grows, and a line moved is no line added).
func (w *Branch) Recorded(id string, shards map[string][]string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	var names []string
	var owner []string
	for sha, paths := range shards {
		for _, p := range paths {
			names = append(names, sha+"^:"+p, sha+":"+p)
			owner = append(owner, sha, sha)
		}
	}
	var before map[string]int
	err := w.gitWT().Cat(names, true, func(i int, _, kind string, body []byte) error {
		if kind != "blob" {
			body = nil
		}
		if i%2 == 0 {
			before = map[string]int{}
			for _, l := range strings.Split(string(body), "\n") {
				before[l]++
			}
			return nil
		}
		for _, l := range strings.Split(string(body), "\n") {
			if before[l] > 0 {
				before[l]--
				continue
			}
			var e events.Event
			if json.Unmarshal([]byte(l), &e) == nil && e.Action != "" && e.TaskID() == id {
				sha := owner[i]
				if out[sha] == nil {
					out[sha] = map[string]bool{}
				}
				out[sha][e.Action] = true
			}
		}
		return nil
	})
	return out, err
}

// NotBurls are the commits of old..new on the workflow branch that burl
// did not make ("<short sha> <subject>"): their subject is not burl's,
// or they record no event. With sandbox: none a run during which the
// workflow branch gained one fails (run_tampered). g is burl's own git
// of the repository (its configuration pinned).
func (w *Branch) NotBurls(g gitx.Git, old, new string) ([]string, error) {
	list, err := g.Run("log", "--format=%H%x00%s", "--end-of-options", old+".."+new)
	if err != nil || list == "" {
		return nil, err
	}
	evs, err := w.addedEvents(g, "--end-of-options", old+".."+new)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(list, "\n") {
		sha, subject, _ := strings.Cut(l, "\x00")
		if !strings.HasPrefix(subject, "burl: ") || len(evs[sha]) == 0 {
			out = append(out, gitx.Short(sha)+" "+subject)
		}
	}
	return out, nil
}
