// Package conflict predicts textual conflicts between in-flight tasks, and
// between each of them and main, from their real diffs: git merge-tree
// --write-tree merges two commits in memory (git 2.38+), touching no
// worktree, index or ref. All the merges of one prediction go to a single
// `git merge-tree --stdin`, so fifty tasks cost one git process, not 1,275.
package conflict

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
)

// Main is the name a conflict with the main branch gives as B.
const Main = "main"

// Tip is an in-flight task: its ID and the commit its branch is at.
type Tip struct {
	ID   string
	Head string
}

// Pair is a predicted conflict: merging A's and B's work (B is Main for
// the main branch) stops on Files.
type Pair struct {
	A     string   `json:"a"`
	B     string   `json:"b"`
	Files []string `json:"files"`
}

// Predict merges every tip with main (the commit mainSHA) and every two
// tips with each other, and returns the merges that conflict, each
// against main first, then pairs in the order of tips. Tips must be full
// commit ids; equal heads are not merged with each other.
func Predict(g gitx.Git, mainSHA string, tips []Tip) ([]Pair, error) {
	return predict(g, mainSHA, tips, nil)
}

// With predicts the conflicts of one task's work t with main and with the
// work of each of others: the merges a claim needs, not every pair.
func With(g gitx.Git, mainSHA string, t Tip, others []Tip) ([]Pair, error) {
	ms := []merge{{t.ID, Main, t.Head, mainSHA}}
	for _, o := range others {
		if o.ID != t.ID && o.Head != t.Head {
			ms = append(ms, merge{t.ID, o.ID, t.Head, o.Head})
		}
	}
	return run(g, ms, map[string][]string{})
}

// merge is one prediction: tasks a and b (b may be Main) at commits ra, rb.
type merge struct{ a, b, ra, rb string }

func (m merge) key() string { return m.ra + " " + m.rb }

func mergesOf(mainSHA string, tips []Tip) []merge {
	var ms []merge
	for _, t := range tips {
		ms = append(ms, merge{t.ID, Main, t.Head, mainSHA})
	}
	for i := range tips {
		for j := i + 1; j < len(tips); j++ {
			if tips[i].Head != tips[j].Head {
				ms = append(ms, merge{tips[i].ID, tips[j].ID, tips[i].Head, tips[j].Head})
			}
		}
	}
	return ms
}

// predict runs the merges known does not answer (known: merge key ->
// conflicting files, nil when clean; it learns the new answers).
func predict(g gitx.Git, mainSHA string, tips []Tip, known map[string][]string) ([]Pair, error) {
	if len(tips) == 0 {
		return nil, nil
	}
	if known == nil {
		known = map[string][]string{}
	}
	return run(g, mergesOf(mainSHA, tips), known)
}

// run answers the merges all, in one git process for those known (merge
// key -> conflicting files, nil when clean) does not answer yet; known
// learns the new answers.
func run(g gitx.Git, all []merge, known map[string][]string) ([]Pair, error) {
	var todo []merge
	var in bytes.Buffer
	for _, m := range all {
		for _, r := range []string{m.ra, m.rb} {
			if !gitx.ValidObjectID(r) {
				return nil, errs.New(errs.User, "conflict prediction takes full commit ids, not %q", r)
			}
		}
		if _, ok := known[m.key()]; ok {
			continue
		}
		todo = append(todo, m)
		fmt.Fprintf(&in, "%s %s\n", m.ra, m.rb)
	}
	if len(todo) > 0 {
		out, err := g.RunInput(in.Bytes(), "merge-tree", "--stdin", "--write-tree", "--name-only", "-z", "--no-messages")
		if err != nil {
			return nil, errs.Wrap(err, errs.Git, "git merge-tree could not predict the merges")
		}
		results, err := parse(out, len(todo))
		if err != nil {
			return nil, err
		}
		for i, files := range results {
			known[todo[i].key()] = files
		}
	}
	var pairs []Pair
	for _, m := range all {
		if files := known[m.key()]; files != nil {
			pairs = append(pairs, Pair{A: m.a, B: m.b, Files: files})
		}
	}
	return pairs, nil
}

// parse reads n records of `merge-tree --stdin -z --name-only
// --no-messages`: "<status>\0<tree>\0" then the conflicted paths, each
// "\0"-ended, then "\0". Status 1 is clean, 0 a conflict (the reverse of
// the exit codes of a single merge). A clean merge gives nil; a conflict
// its sorted, distinct paths (never empty: git names what stopped it).
func parse(out []byte, n int) ([][]string, error) {
	fields := strings.Split(string(out), "\x00")
	var res [][]string
	i := 0
	for len(res) < n {
		if i+1 >= len(fields) {
			return nil, errs.New(errs.Git, "git merge-tree answered %d of %d merges", len(res), n)
		}
		status := fields[i]
		i += 2 // status, tree
		var files []string
		for i < len(fields) && fields[i] != "" {
			files = append(files, fields[i])
			i++
		}
		i++ // the empty field that ends the record
		switch status {
		case "1":
			res = append(res, nil)
		case "0":
			files = distinct(files)
			if len(files) == 0 {
				// A conflict git names no path for (say, a rename/rename
				// of a directory): still a conflict, not a clean merge.
				files = []string{"(no single file: see git merge-tree)"}
			}
			res = append(res, files)
		default:
			return nil, errs.New(errs.Git, "git merge-tree gave status %q for a merge", status)
		}
	}
	return res, nil
}

func distinct(files []string) []string {
	sort.Strings(files)
	out := files[:0]
	for i, f := range files {
		if i == 0 || f != files[i-1] {
			out = append(out, f)
		}
	}
	return out
}
