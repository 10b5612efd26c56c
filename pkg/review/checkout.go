package review

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/burl-dev/burl/pkg/gitx"
)

// Checkout makes dir a disposable repository of its own at head, for the
// reviewer to read, build and try things in: the shared object store is
// its read-only alternate, the task's branch (checked out, at head) and
// main (at base) its only refs. Nothing the reviewer does there (an edit,
// a commit, a hook it plants) reaches the task: burl reads only the
// verdict file afterwards and removes the whole directory, and runs no git
// in it after the reviewer started.
func Checkout(dir, objects, branch, head, mainBranch, base string) error {
	g := gitx.Git{Dir: dir, OwnRepo: true}
	// No template: no sample hooks, nothing of the user's init.templateDir.
	parent := gitx.Git{Dir: filepath.Dir(dir), OwnRepo: true}
	if _, err := parent.Run("init", "-q", "--template=", dir); err != nil {
		return err
	}
	// The attributes of the head are the author's: none of them may pick
	// a filter driver (or a conversion) for burl's checkout. info/attributes
	// comes before every .gitattributes of the tree.
	for p, data := range map[string]string{
		filepath.Join("objects", "info", "alternates"): objects + "\n",
		filepath.Join("info", "attributes"):            "* -filter -text -ident -working-tree-encoding\n",
	} {
		p = filepath.Join(dir, ".git", p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return err
		}
	}
	for _, ref := range [][2]string{{mainBranch, base}, {branch, head}} {
		if ref[0] == "" || ref[1] == "" {
			continue
		}
		if _, err := g.Run("update-ref", "refs/heads/"+ref[0], ref[1]); err != nil {
			return fmt.Errorf("the review's checkout: %w", err)
		}
	}
	if _, err := g.Run("symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
		return err
	}
	_, err := g.Run("reset", "-q", "--hard", head)
	return err
}
