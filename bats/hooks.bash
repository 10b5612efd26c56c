# Shared setup for the hooks tests.
# shellcheck shell=bash

# new_task_repo: new_burl_repo, TASK-001 ("Add jump": src/** allowed,
# src/net/** forbidden) claimed, its worktree in $WT, and burl's hooks
# installed. The working directory is $REPO.
new_task_repo() {
	new_burl_repo
	git burl add "Add jump" --affects-glob 'src/**' --must-not-touch 'src/net/**' >/dev/null
	WT=$(git burl claim TASK-001 | tail -n 1)
	[ -d "$WT" ] || { echo "claim printed no worktree: $WT"; return 1; }
	git burl hooks install >/dev/null
}

# hooks_dir: where git reads hooks for $REPO.
hooks_dir() {
	git -C "$REPO" rev-parse --path-format=absolute --git-path hooks
}
