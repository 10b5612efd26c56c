# bash completion for `git burl` (burl: parallel agents on one repository).
# shellcheck shell=bash
# shellcheck disable=SC2154 # cur and prev are set by git's completion before it calls _git_burl
#
# git's own completion calls _git_burl for `git burl <TAB>`. install.sh puts
# this file where bash-completion loads it on demand (as git-burl); to load it
# by hand, source it after git's completion, e.g. in ~/.bashrc:
#   source /usr/share/bash-completion/completions/git
#   source /path/to/git-burl.bash
#
# Task IDs come from the file names in the workflow's bucket folders
# (<repo>/.burl/.workflow/<BUCKET>/TASK-001-slug.md), so completing them costs
# two git calls and a directory listing, never a burl command.

__git_burl_verbs="init add accept status inbox show claim scope worktree submit validate approve diff conflicts reject block unblock hold unhold stop edit cancel release trust watch drain mcp monitor stats log lock doctor clean sync verify hook hooks completion"

# __git_burl_workflow_dir: the workflow folder of the repository git would
# use here (honouring `git -C`); nothing outside a burl repository.
__git_burl_workflow_dir ()
{
	local common wt
	common="$(__git rev-parse --path-format=absolute --git-common-dir)" || return
	wt="$(__git config --get burl.worktree)"
	# The workflow worktree lives in the main worktree, which with the
	# standard layout is the parent of the common git dir.
	case "$common" in
	*/.git) printf '%s\n' "${common%/.git}/${wt:-.burl}/.workflow" ;;
	esac
}

# __git_burl_task_ids BUCKET...: the IDs of the tasks in those buckets.
__git_burl_task_ids ()
{
	local dir b f n
	dir="$(__git_burl_workflow_dir)"
	[ -n "$dir" ] || return
	for b in "$@"; do
		# DONE keeps its tasks in month shards (DONE/2026-11/).
		for f in "$dir/$b"/TASK-*.md "$dir/$b"/[0-9][0-9][0-9][0-9]-[0-9][0-9]/TASK-*.md; do
			[ -e "$f" ] || continue
			f="${f##*/}"
			n="${f#TASK-}"
			n="${n%%[!0-9]*}"
			[ -n "$n" ] && printf 'TASK-%s\n' "$n"
		done
	done
}

# __git_burl_locks: the names of the locks held now (TASK-001, workflow, claim).
__git_burl_locks ()
{
	local dir f
	dir="$(__git_burl_workflow_dir)"
	[ -n "$dir" ] || return
	for f in "$dir/locks"/*.lock; do
		[ -e "$f" ] || continue
		f="${f##*/}"
		printf '%s\n' "${f%.lock}"
	done
}

__git_burl_complete_ids ()
{
	__gitcomp "$(__git_burl_task_ids "$@")"
}

_git_burl ()
{
	local verb
	verb="$(__git_find_on_cmdline "$__git_burl_verbs")"
	if [ -z "$verb" ]; then
		case "$cur" in
		-*) __gitcomp "--help --version --exec-path" ;;
		*) __gitcomp "$__git_burl_verbs help" ;;
		esac
		return
	fi

	# The value of an option, given as --opt=<TAB> or --opt <TAB>.
	local opt="" val="$cur"
	case "$cur" in
	--*=*) opt="${cur%%=*}" val="${cur#*=}" ;;
	*) case "$prev" in --*) opt="$prev" ;; esac ;;
	esac
	case "$opt" in
	--priority)
		__gitcomp "critical high medium low" "" "$val"
		return
		;;
	--depends-on|--remove-depends-on|--task)
		__gitcomp "$(__git_burl_task_ids READY DOING QA DONE BLOCKED)" "" "$val"
		return
		;;
	--action)
		__gitcomp "init add claim submit validate approve reject block unblock hold unhold edit cancel release lock_clear lock_cleared clean repair sync scope scope_request scope_denied stop run_start run_end lease lease_expired pr_open pr_merged pr_closed pr_changes_requested review review_start checks_failed run_tampered restack accept drain" "" "$val"
		return
		;;
	--affects|--affects-glob|--must-not-touch|--remove|--body-file|--from|--description|--ac|--reason|--tags|--verify|--title|--add-ac|--add-tag|--remove-tag|--max-cost-usd|--since|--by|--main-branch|--remote)
		# Nothing to offer; git's completion falls back to file names.
		COMPREPLY=()
		return
		;;
	esac

	case "$cur" in
	--*)
		local flags="--json --help"
		case "$verb" in
		init) flags="$flags --main-branch= --remote= --hooks" ;;
		add) flags="$flags --priority= --affects= --affects-glob= --must-not-touch= --depends-on= --tags= --verify= --body-file= --description= --ac= --from= --propose --discovered-from=" ;;
		scope) flags="$flags --affects= --affects-glob= --must-not-touch= --remove= --reason= --grant --deny=" ;;
		worktree) flags="$flags --ensure" ;;
		reject|block|release|hold|cancel) flags="$flags --reason=" ;;
		stop) flags="$flags --hold --reason=" ;;
		unblock) flags="$flags --claim" ;;
		claim) flags="$flags --force" ;;
		edit) flags="$flags --title= --description= --ac= --add-ac= --priority= --tags= --add-tag= --remove-tag= --depends-on= --remove-depends-on= --max-cost-usd= --editor" ;;
		log) flags="$flags --task= --action= --since= --follow" ;;
		lock|hooks) flags="$flags --force" ;;
		doctor) flags="$flags --repair --force" ;;
		clean) flags="$flags --yes --force" ;;
		trust) flags="$flags --yes" ;;
		sync) flags="$flags --pull --push --settle" ;;
		verify) flags="$flags --allow= --signed" ;;
		status) flags="$flags --open --bucket= --since=" ;;
		stats) flags="$flags --since= --by=" ;;
		watch) flags="$flags --once --interval= --print-command=" ;;
		approve) flags="$flags --all --dry-run --accept-landed" ;;
		drain) flags="$flags --wait" ;;
		monitor) flags="--once --html= --help" ;;
		mcp) flags="--dir= --help" ;;
		esac
		__gitcomp "$flags"
		return
		;;
	esac

	case "$verb" in
	claim) __git_burl_complete_ids READY ;;
	submit|release|stop) __git_burl_complete_ids DOING ;;
	scope) __git_burl_complete_ids READY DOING BLOCKED QA ;;
	completion)
		case "$(__git_find_on_cmdline "bash zsh fish")" in
		"") __gitcomp "bash zsh fish" ;;
		esac
		;;
	validate|approve|reject) __git_burl_complete_ids QA ;;
	unblock) __git_burl_complete_ids BLOCKED ;;
	accept) __git_burl_complete_ids PROPOSED ;;
	hold|unhold) __git_burl_complete_ids READY BLOCKED DOING ;;
	edit|cancel) __git_burl_complete_ids READY DOING QA BLOCKED PROPOSED ;;
	show|block|worktree|diff) __git_burl_complete_ids READY DOING QA DONE BLOCKED ;;
	hook)
		case "$(__git_find_on_cmdline "commit-msg pre-push")" in
		"") __gitcomp "commit-msg pre-push" ;;
		*) COMPREPLY=() ;;
		esac
		;;
	hooks)
		case "$(__git_find_on_cmdline "install uninstall status")" in
		"") __gitcomp "install uninstall status" ;;
		esac
		;;
	lock)
		case "$(__git_find_on_cmdline "list clear")" in
		"") __gitcomp "list clear" ;;
		clear) __gitcomp "$(__git_burl_locks)" ;;
		esac
		;;
	*) COMPREPLY=() ;;
	esac
}
