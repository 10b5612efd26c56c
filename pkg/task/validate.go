package task

import (
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/burl-dev/burl/pkg/gitx"
)

// WorktreeRoot is the folder (relative to the repository root) every task
// worktree lives in: a task file naming a worktree anywhere else (.git/hooks,
// .burl, a symlink's target) is refused.
const WorktreeRoot = ".worktrees"

var listKeys = []string{KeyAffects, KeyAffectsGlobs, KeyMustNotTouch, KeyDependsOn, KeyTags}

func isListKey(k string) bool {
	for _, lk := range listKeys {
		if lk == k {
			return true
		}
	}
	return false
}

// KeyLine is the file line of key (0 when the task has no such key).
func (t *Task) KeyLine(key string) int {
	if i, ok := t.keys[key]; ok {
		return t.root.Content[i].Line + 1
	}
	return 0
}

// Validate checks what burl relies on in a parsed task. fileID is the ID
// taken from the file name ("" to skip that check). Errors are *ParseError
// with the file line of the offending key (or list entry).
func (t *Task) Validate(fileID string) error {
	line := t.KeyLine
	id := t.Str(KeyID)
	if id == "" {
		return perr(0, "missing required key %q", KeyID)
	}
	if _, ok := IDNumber(id); !ok {
		return perr(line(KeyID), "id %q is not of the form TASK-001", id)
	}
	if fileID != "" && id != fileID {
		return perr(line(KeyID), "id %s does not match the file name (%s)", id, fileID)
	}
	if strings.TrimSpace(t.Str(KeyTitle)) == "" {
		return perr(line(KeyTitle), "missing required key %q", KeyTitle)
	}
	if p := t.Str(KeyPriority); p != "" && PriorityRank(p) == len(Priorities) {
		return perr(line(KeyPriority), "priority %q is not one of %s", p, strings.Join(Priorities, ", "))
	}
	// Walk the keys in file order, not map order, so a file with several
	// problems always reports the same (first) one.
	for i := 0; i+1 < len(t.root.Content); i += 2 {
		k, v := t.root.Content[i].Value, t.root.Content[i+1]
		switch {
		case isListKey(k):
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				return perr(line(k), "%s must be a list", k)
			}
			for _, c := range v.Content {
				if c.Kind != yaml.ScalarNode {
					return perr(c.Line+1, "%s entries must be plain strings", k)
				}
				// Point at the offending entry itself, not at its key: a
				// list can be long.
				switch k {
				case KeyAffects, KeyAffectsGlobs, KeyMustNotTouch:
					if err := CheckRelPath(c.Value); err != nil {
						return perr(c.Line+1, "%s: %v", k, err)
					}
				case KeyDependsOn:
					if _, ok := IDNumber(c.Value); !ok {
						return perr(c.Line+1, "depends_on entry %q is not a task ID like TASK-001", c.Value)
					}
				}
			}
		case k == KeyQAAttempts:
			if s := t.Str(k); s != "" && strings.Trim(s, "0123456789") != "" {
				return perr(line(k), "%s must be a whole number, not %q", k, s)
			}
		}
	}
	// Every value below reaches git's argv or the filesystem: the workflow
	// branch is shared input, and a field that could be read as an
	// option, a revision expression or a path elsewhere makes the task
	// malformed rather than reach git.
	if wt := t.Worktree(); wt != "" {
		if err := CheckRelPath(wt); err != nil {
			return perr(line(KeyWorktree), "worktree: %v", err)
		}
		if c := path.Clean(wt); !strings.HasPrefix(c, WorktreeRoot+"/") {
			return perr(line(KeyWorktree), "worktree %q is not inside %s/, where burl keeps task worktrees", wt, WorktreeRoot)
		}
		for _, seg := range strings.Split(wt, "/") {
			if strings.EqualFold(seg, ".git") {
				return perr(line(KeyWorktree), "worktree %q goes through a .git folder", wt)
			}
		}
	}
	if b := t.Branch(); b != "" && !gitx.ValidBranch(b) {
		return perr(line(KeyBranch), "branch %q is not a valid short branch name (no refs/ prefix, no leading -, no spaces, control characters, .., ~^:?*[\\)", b)
	}
	for _, k := range []string{KeyBaseSHA, KeySubmittedSHA} {
		if v := t.Str(k); v != "" && !gitx.ValidObjectID(v) {
			return perr(line(k), "%s %q is not a full commit id (40 or 64 hex digits)", k, v)
		}
	}
	if a := t.Str(KeyAssignedTo); gitx.HasControl(a) {
		return perr(line(KeyAssignedTo), "%s holds a control character", KeyAssignedTo)
	}
	return nil
}
