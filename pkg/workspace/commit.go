package workspace

import "github.com/burl-dev/burl/pkg/gitx"

// HaveCommit reports whether commit sha (the head a task was submitted
// at) is in this clone, fetching the task's branch from remote first when
// it is not: another clone submitted it, and only a pushed branch brings
// its commits here. An unreachable remote or a branch it does not have is
// not an error: the answer is then no.
func HaveCommit(g gitx.Git, remote, branch, sha string) bool {
	if hasCommit(g, sha) {
		return true
	}
	if remote == "" || branch == "" {
		return false
	}
	return g.FetchTracking(remote, branch) == nil && hasCommit(g, sha)
}

func hasCommit(g gitx.Git, sha string) bool {
	return g.Has(sha + "^{commit}")
}
