// Package upkeep holds the verbs that set up and keep the repository's
// machinery in order rather than move a task: init, hooks, trust, lock,
// doctor, clean, worktree, sync and completion.
package upkeep
