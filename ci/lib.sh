# shellcheck shell=bash
# lib.sh - shared settings and helpers for the printk maintainer tree scripts
#
# Sourced by every stage script.  Sourcing only sets variables, traps and
# functions: nothing here can fail, so that a machine without any of the
# packages still gets as far as 'make deps'.  Kernel sources and build
# output live outside this repository, under $PRINTK_CACHE.
set -Eeuo pipefail
shopt -s inherit_errexit
# Sourced once per process: a second time would forget the at_exit list.
[ -z "${PRINTK_LIB_LOADED:-}" ] || return 0
PRINTK_LIB_LOADED=1

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PRINTK_CACHE=${PRINTK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/printk-tree}
# The kernel git tree; the one variable to point the scripts elsewhere.
PRINTK_TREE=${PRINTK_TREE:-$PRINTK_CACHE/linux}
TOPICS_DIR=${TOPICS_DIR:-$TOP/topics}
# Mutants: patches that each break one property of the series (ci/scenarios).
MUTANTS_DIR=${MUTANTS_DIR:-$TOP/ci/mutants}
# Configurations for-next is also built in, each on top of ci/kernel.config.
CONFIGS_DIR=${CONFIGS_DIR:-$TOP/ci/configs}
OUT=${OUT:-$PRINTK_CACHE/out}
BUILD_DIR=${BUILD_DIR:-$PRINTK_CACHE/build}
IMAGES=$PRINTK_CACHE/images
# The distro kernels the tree follows, the default base first.
BASES_FILE=${BASES_FILE:-$TOP/tree-setup/bases}
export PRINTK_CACHE PRINTK_TREE

say() { printf '%s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }

# grep where no match is an answer, not a failure (an error still is).
matching() { grep "$@" || [ $? = 1 ]; }

# The exit status of a failure that has been reported already, by die or
# by the ERR trap: the shells around it pass it on without a second
# message, so every failure is named once, where it happened.  (An
# unusual number: a tool's own exit 86 would pass unnamed.)
REPORTED=86
die() {
	printf 'error: %s\n' "$*" >&2
	exit "$REPORTED"
}

# The ERR trap: the failing command, where it is, and the calls that led
# there (a failure in a wrapper such as tgit names its caller too).
on_err() {
	local rc=$1 statuses=$2 line=$3 cmd=$4 file=${BASH_SOURCE[1]} i
	[ "$rc" != "$REPORTED" ] || exit "$REPORTED"
	# A function that returned non-zero is reported at its call, the
	# line shown here.
	[[ $cmd != return* || ! -r $file ]] || cmd=$(sed -n "${line}s/^[[:space:]]*//p" "$file")
	[ "$statuses" = "$rc" ] || cmd="$cmd (pipeline exit statuses: $statuses)"
	printf '%s:%s: %s failed (exit %s)\n' "${file#"$TOP/"}" "$line" "$cmd" "$rc" >&2
	for ((i = 1; i < ${#FUNCNAME[@]} - 1; i++)); do
		printf '  in %s, called at %s:%s\n' "${FUNCNAME[i]}" \
			"${BASH_SOURCE[i + 1]#"$TOP/"}" "${BASH_LINENO[i]}" >&2
	done
	exit "$REPORTED"
}
trap 'on_err $? "${PIPESTATUS[*]}" "$LINENO" "$BASH_COMMAND"' ERR

# Cleanup: commands registered with at_exit run when the script ends, and
# every process it started in the background (QEMU, a build under a
# heartbeat) is killed, whether it ends normally, on an error, on Ctrl-C
# or on a timeout's TERM.  Subshells do not inherit the EXIT trap.
AT_EXIT=()
at_exit() { AT_EXIT+=("$(printf '%q ' "$@")"); }

# Process $1 and its descendants, deepest first.
process_tree() {
	local child children=()
	read_lines children pgrep -P "$1" || true
	for child in "${children[@]}"; do
		process_tree "$child"
	done
	say "$1"
}

# Kill process $1 and its descendants, and wait for $1 if it is ours:
# stopped first, so that none forks after the list is taken, then sent
# TERM and let go; KILL for what is left after 5 s.
kill_tree() {
	local pids tries=50
	read_lines pids process_tree "$1"
	kill -STOP "${pids[@]}" 2>/dev/null || true
	read_lines pids process_tree "$1"
	kill -TERM "${pids[@]}" 2>/dev/null || true
	kill -CONT "${pids[@]}" 2>/dev/null || true
	while kill -0 "${pids[@]}" 2>/dev/null && [ $((tries -= 1)) -gt 0 ]; do
		sleep 0.1
	done
	kill -KILL "${pids[@]}" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# Kill the children of process $1 (by default the script) and theirs.
kill_children() {
	local child children
	read_lines children pgrep -P "${1:-$$}" || true
	for child in "${children[@]}"; do
		kill_tree "$child"
	done
}

run_at_exit() {
	local rc=$? cmd
	# A second Ctrl-C must not cut the cleanup short.
	trap '' INT TERM
	trap - ERR
	set +e
	kill_children
	# Last registered, first run: a server a test starts is stopped
	# before its scratch directory, which holds the pid file, goes.
	for ((cmd = ${#AT_EXIT[@]} - 1; cmd >= 0; cmd--)); do
		eval "${AT_EXIT[cmd]}"
	done
	exit "$rc"
}
trap run_at_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# scratch_dir NAME PREFIX: a new directory in $NAME, removed at exit.
# (Not in a command substitution: its subshell would forget the at_exit.)
scratch_dir() {
	local -n _dir=$1
	_dir=$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX")
	at_exit rm -rf "$_dir"
}

# read_lines NAME CMD...: the output lines of CMD into array NAME.  A
# failure of CMD stops the caller (a process substitution would hide it).
read_lines() {
	local -n _lines=$1
	local _out
	shift
	_out=$("$@")
	_lines=()
	[ -z "$_out" ] || mapfile -t _lines <<<"$_out"
}

# One stage at a time per cache: the stages share the kernel tree, its
# worktrees, the O= directories and the result caches.  A stage run by
# another one (make ci runs make build) holds the lock already: it
# inherits the locked descriptor 9.
stage_lock() {
	local lock=$PRINTK_CACHE/lock holder pid
	mkdir -p "$PRINTK_CACHE"
	if [ "/proc/$$/fd/9" -ef "$lock" ] && flock -n 9; then
		return
	fi
	exec 9>>"$lock"
	if ! flock -n 9; then
		holder=$(cat "$lock") pid=${holder%% *}
		kill -0 "$pid" 2>/dev/null ||
			die "make ${holder#* } (pid $pid) has ended, but processes it started still hold $lock: $(lock_holders "$lock"); stop them"
		die "make ${holder#* } is already running (pid $pid) on $PRINTK_CACHE; wait for it or stop it"
	fi
	say "$$ $1" >"$lock"
	# What make ci knew passed (for every base) may not hold after a
	# stage run on its own.
	[ "$1" = ci ] || rm -f "$OUT"/ci-passed*
}

# The processes that have lock file $1 open: "pid (command)", ...
lock_holders() {
	local fd pid holders=()
	for fd in /proc/[0-9]*/fd/*; do
		[ "$fd" -ef "$1" ] 2>/dev/null || continue
		pid=${fd#/proc/} pid=${pid%%/*}
		holders+=("$pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true))")
	done
	say "${holders[*]:-none found}"
}

# Long steps say when they start, where their log is, and every
# $HEARTBEAT seconds that they still run.
HEARTBEAT=${HEARTBEAT:-60}

# run_logged WHAT LOG CMD...: CMD with its output in LOG.  CMD runs in the
# background with errexit in force (a function too); when it fails, the
# end of its log is shown and the stage dies.  Not to be called in a
# condition: errexit would be off in CMD too.
run_logged() {
	local what=$1 log=$2 pid hb rc=0
	shift 2
	say "$what: started (log: $log)"
	"$@" >"$log" 2>&1 &
	pid=$!
	(
		# Not holding the stage lock: it may outlive its kill by a moment.
		exec 9>&-
		start=$SECONDS
		while sleep "$HEARTBEAT"; do
			say "$what: still running after $((SECONDS - start)) s (log: $log)"
		done
	) &
	hb=$!
	wait "$pid" || rc=$?
	kill_tree "$hb"
	[ "$rc" = 0 ] || {
		tail -n 30 "$log" | sed 's/^/  /' >&2
		die "$what failed (exit $rc, log: $log)"
	}
}

# git on the kernel tree
tgit() { git -C "$PRINTK_TREE" "$@"; }

# A git tree at $1: a clone or a worktree (where .git is a file).
is_git_tree() { [ -e "$1/.git" ] && git -C "$1" rev-parse --git-dir >/dev/null 2>&1; }

need_tree() {
	is_git_tree "$PRINTK_TREE" ||
		die "no kernel tree at $PRINTK_TREE (run 'make setup' first)"
}

# The distro kernels the tree follows (tree-setup/bases): their series
# (6.1, 6.12) into BASE_SERIES, the first being the default base, and
# the Debian package that installs each into BASE_PACKAGE.
load_bases() {
	local series pkg
	BASE_SERIES=()
	declare -gA BASE_PACKAGE=()
	[ -f "$BASES_FILE" ] || die "no list of bases $BASES_FILE"
	while read -r series pkg; do
		[[ -n $series && $series != \#* ]] || continue
		[[ $series =~ ^[0-9]+\.[0-9]+$ && -n $pkg ]] ||
			die "$BASES_FILE: '$series $pkg' is not 'SERIES PACKAGE' (e.g. '6.1 linux-source')"
		BASE_SERIES+=("$series")
		BASE_PACKAGE[$series]=$pkg
	done <"$BASES_FILE"
	[ "${#BASE_SERIES[@]}" -gt 0 ] || die "$BASES_FILE names no base"
}

# The series (6.1) of kernel version $1 (6.1.192, 6.1.192-3).
version_series() {
	[[ $1 =~ ^([0-9]+\.[0-9]+)\. ]] || die "'$1' is not a kernel version"
	say "${BASH_REMATCH[1]}"
}

# Die unless series $1 is one tree-setup/bases lists; $2 says who asked.
need_series() {
	[ -n "${BASE_PACKAGE[$1]:-}" ] ||
		die "$2: $1 is not a base the tree follows (tree-setup/bases: ${BASE_SERIES[*]})"
}

# The series the stages work on: BASE=6.12 or BASE=distro/6.12.118 names
# one, else the default (the first of tree-setup/bases).  Which tarball
# is newest never decides it.
base_series() {
	local series
	load_bases
	case ${BASE:-} in
	'') series=${BASE_SERIES[0]} ;;
	distro/*) series=$(version_series "${BASE#distro/}") ;;
	[0-9]*.[0-9]*) series=$BASE ;;
	# Any other commit (a test's HEAD) stands for the default base.
	*) series=${BASE_SERIES[0]} ;;
	esac
	need_series "$series" "BASE=${BASE:-}"
	say "$series"
}

# What names the branches of the current base: nothing on the default
# base (for-next, topic/NAME), -<series> on another (for-next-6.12), the
# way stable maintainers keep one queue per branch.
base_suffix() {
	local series
	series=$(base_series)
	load_bases
	[ "$series" = "${BASE_SERIES[0]}" ] || say "-$series"
}

# Branch $1 of the current base.
base_branch() { say "$1$(base_suffix)"; }

# The base commit-ish the stages work on: BASE=<ref>, or the newest
# distro/<series>.* tag of the base's series (BASE=6.12, default the
# first of tree-setup/bases); the mail stages use the base each revision
# was made on instead.
base_ref() {
	local series tag others
	if [ -n "${BASE:-}" ] && ! [[ $BASE =~ ^[0-9]+\.[0-9]+$ ]]; then
		tgit rev-parse -q --verify "$BASE^{commit}" >/dev/null ||
			die "base '$BASE' does not exist in $PRINTK_TREE"
		say "$BASE"
		return
	fi
	series=$(base_series)
	tag=$(tgit tag -l "distro/$series.*" --sort=-v:refname | sed -n 1p)
	if [ -z "$tag" ]; then
		load_bases
		others=$(tgit tag -l 'distro/*' | paste -sd' ')
		die "no distro/$series.* base tag in $PRINTK_TREE${others:+ (it has $others)}: install ${BASE_PACKAGE[$series]} ('make deps BASES=$series') and run 'make setup'"
	fi
	say "$tag"
}

# Apply "update REF NEW OLD" lines from stdin as one transaction (a ref
# that moved meanwhile fails it, and nothing is updated), and keep the
# maintainer's checkout in step when it is on one of the refs.  Each step
# is checked here: callers may call it in a condition.
update_refs() {
	local old new
	old=$(tgit rev-parse -q --verify HEAD || true)
	tgit update-ref --stdin || return
	new=$(tgit rev-parse -q --verify HEAD || true)
	if tgit symbolic-ref -q HEAD >/dev/null && [ -n "$old" ] && [ "$old" != "$new" ]; then
		tgit read-tree -m -u "$old" "$new" || return
	fi
}

# Read a topic's metadata: every field a topic.conf may set is reset
# first, so nothing leaks from the topic read before.
#
# On a base other than the default a topic may be already in the base:
# topic_superseded[SERIES]="FILE: STRING" names code of that base that
# does what the topic does (regeneration checks the base has it) and
# topic_superseded_why[SERIES] says how.  Its patches for a base whose
# code differs are a variant, in the topic's subdirectory SERIES/, and
# topic_on_base[SERIES] says what that base has and what the topic adds.
load_topic() {
	topic_name= topic_subject= topic_seed= topic_depends= topic_fixes= topic_in_base=
	declare -gA topic_superseded=() topic_superseded_why=() topic_on_base=()
	# shellcheck source=/dev/null
	. "$1/topic.conf"
	[ -n "$topic_name" ] || die "$1/topic.conf: topic_name is not set"
}

# Check the per-base parts of the loaded topic in directory $1: each
# names a base tree-setup/bases lists, and a variant says what it is for.
check_topic_bases() {
	local dir=$1 series sub
	load_bases
	for series in "${!topic_superseded[@]}"; do
		need_series "$series" "$dir/topic.conf: topic_superseded[$series]"
		[[ ${topic_superseded[$series]} == ?*': '?* ]] ||
			die "$dir/topic.conf: topic_superseded[$series] is not 'FILE: STRING'"
		[ -n "${topic_superseded_why[$series]:-}" ] ||
			die "$dir/topic.conf: topic_superseded[$series] without topic_superseded_why[$series]"
	done
	for sub in "$dir"/*/; do
		[ -d "$sub" ] || continue
		sub=${sub%/}
		series=$(basename "$sub")
		need_series "$series" "topic $topic_name: variant $sub"
		compgen -G "$sub/*.patch" >/dev/null || die "topic $topic_name: variant $sub has no patches"
		[ -n "${topic_on_base[$series]:-}" ] ||
			die "$dir/topic.conf: variant $series/ without topic_on_base[$series] (what $series has, what the topic adds there)"
	done
	for series in "${!topic_on_base[@]}"; do
		need_series "$series" "$dir/topic.conf: topic_on_base[$series]"
	done
}

# All topics of $TOPICS_DIR, checked, into TOPIC_DIRS (series order) and
# TOPIC_DIR[name]: every NN-name directory is a topic, with a topic.conf,
# a name of its own, a dependency on an earlier topic, and patches that
# are mails (git format-patch).
load_topics() {
	local dir patch
	TOPIC_DIRS=()
	declare -gA TOPIC_DIR=()
	[ -d "$TOPICS_DIR" ] || die "no topics directory $TOPICS_DIR"
	for dir in "$TOPICS_DIR"/[0-9]*/; do
		[ -d "$dir" ] || continue
		dir=${dir%/}
		[ -f "$dir/topic.conf" ] ||
			die "$dir: no topic.conf (every NN-name directory of $TOPICS_DIR is a topic)"
		load_topic "$dir"
		[ -z "${TOPIC_DIR[$topic_name]:-}" ] ||
			die "$dir/topic.conf: topic_name '$topic_name' is taken by ${TOPIC_DIR[$topic_name]}"
		[ -z "$topic_depends" ] || [ -n "${TOPIC_DIR[$topic_depends]:-}" ] ||
			die "$dir/topic.conf: topic_depends '$topic_depends' is not an earlier topic"
		check_topic_bases "$dir"
		for patch in "$dir"/*.patch "$dir"/*/*.patch; do
			[ -f "$patch" ] || continue
			grep -q '^From: ' "$patch" && grep -q '^Subject: ' "$patch" ||
				die "topic $topic_name: $patch is not a mail (no From: or Subject: header): write it with git format-patch"
		done
		TOPIC_DIR[$topic_name]=$dir
		TOPIC_DIRS+=("$dir")
	done
}

# Patches of a topic, in order.
topic_patches() {
	local p
	for p in "$1"/*.patch; do
		[ ! -f "$p" ] || say "$p"
	done
}

# The topic holding test code; every built kernel includes it.
SELFTEST_TOPIC=selftest

# The kernels the build and boot stages work on, in build order: a name,
# then the branches merged for it.  Each topic is built on its own
# (bisectable); all of them get the selftest topic so they run the same
# scenarios.  Topics based on the base come first, so that the stacked
# ones, which change include/linux/printk.h, rebuild the tree only once.
# Each mutant, $MUTANTS_DIR/NAME.patch, is kernel mutant-NAME: on the
# kernel of the topic it breaks (mutant_topic), so that an edit of
# another topic neither rebuilds nor boots it again, else on for-next.
# Each configuration, $CONFIGS_DIR/NAME.config, is kernel config-NAME:
# for-next with that fragment on top of ci/kernel.config.  On a base other
# than the default (BASE=6.12) every name has the base's suffix
# (vanilla-6.12, for-next-6.12, mutant-NAME-6.12: mutant_patch), and the
# configurations, written for the default base, are not built.
full_plan() {
	local dir base patch conf s name topic
	base=$(base_ref)
	s=$(base_suffix)
	load_topics
	say "vanilla$s $base topic/$SELFTEST_TOPIC$s"
	for dir in "${TOPIC_DIRS[@]}"; do
		load_topic "$dir"
		[ "$topic_name" = "$SELFTEST_TOPIC" ] ||
			say "${topic_depends:+1}0 $topic_name$s topic/$topic_name$s topic/$SELFTEST_TOPIC$s"
	done | sort -s -k1,1 | cut -d' ' -f2-
	say "for-next$s for-next$s"
	for patch in "$MUTANTS_DIR"/*.patch; do
		[ -e "$patch" ] || continue
		name=$(basename "$patch" .patch)
		topic=$(mutant_topic "$name")
		if [ -n "$topic" ]; then
			say "mutant-$name$s topic/$topic$s topic/$SELFTEST_TOPIC$s mutant:$name"
		else
			say "mutant-$name$s for-next$s mutant:$name"
		fi
	done
	[ -z "$s" ] || return 0
	for conf in "$CONFIGS_DIR"/*.config; do
		[ ! -e "$conf" ] || say "config-$(basename "$conf" .config) for-next"
	done
}

# The config fragment of kernel $1, config-NAME: ci/configs/NAME.config.
config_of() { say "$CONFIGS_DIR/${1#config-}.config"; }

# Is kernel $1 a configuration that is built but not booted?
compile_only() { [[ $1 == config-* ]] && grep -qx '# compile only' "$(config_of "$1")"; }

# The plan, or the kernels BUILDS="name..." names from it.
build_plan() {
	local all name names=()
	all=$(full_plan)
	if [ -z "${BUILDS:-}" ]; then
		say "$all"
		return
	fi
	read -r -a names <<<"$BUILDS"
	[ "${#names[@]}" -gt 0 ] || die "BUILDS is set but names no kernel"
	for name in "${names[@]}"; do
		grep -q "^$name " <<<"$all" ||
			die "BUILDS: no kernel '$name' in the build plan (kernels: $(cut -d' ' -f1 <<<"$all" | paste -sd' '))"
	done
	grep -E "^($(IFS='|' && say "${names[*]}")) " <<<"$all"
}

# The maintainer's identity, git config user.name and user.email of git
# command "$@", into AS_NAME and AS_EMAIL.  The topics and the mail series
# are committed and signed off as the maintainer: never an identity made
# up here.
maintainer_identity() {
	local key
	for key in user.name user.email; do
		"$@" config "$key" >/dev/null ||
			die "git config $key is not set: the commits, From: and Signed-off-by: of the series are the maintainer's (git config --global $key ...)"
	done
	AS_NAME=$("$@" config user.name) AS_EMAIL=$("$@" config user.email)
}

# The topic whose code mutant $1 breaks, from the "Mutates: TOPIC" line
# of $MUTANTS_DIR/$1.patch (on every base: a variant breaks the same
# code); none: it breaks for-next.  load_topics first.
mutant_topic() {
	local patch=$MUTANTS_DIR/$1.patch topic
	topic=$(sed -n '/^diff /q; s/^Mutates: *//p' "$patch")
	[ -z "$topic" ] || [ -n "${TOPIC_DIR[$topic]:-}" ] && [ "$topic" != "$SELFTEST_TOPIC" ] ||
		die "$patch: Mutates: '$topic' is not a topic of the series (topics: ${!TOPIC_DIR[*]}; $SELFTEST_TOPIC is in every kernel)"
	say "$topic"
}

# The patch of mutant $1 on the current base: $MUTANTS_DIR/<series>/$1.patch
# where the code it breaks differs there, else $MUTANTS_DIR/$1.patch.
mutant_patch() {
	local variant
	variant=$MUTANTS_DIR/$(base_series)/$1.patch
	if [ -f "$variant" ]; then
		say "$variant"
	else
		say "$MUTANTS_DIR/$1.patch"
	fi
}

# Commit $1 (named $3) with mutant $2 applied.  A mutant touches only
# kernel/printk/*.c and the other .c files the series changes (no
# header): rebuilding it takes seconds.
mutant_commit() {
	local patch index tree date files allowed others
	patch=$(mutant_patch "$2")
	index=$(tgit rev-parse --absolute-git-dir)/mutant.index
	files=$(tgit apply --numstat "$patch" | cut -f3) ||
		die "$patch is not a patch"
	allowed=$(tgit diff --name-only "$(base_ref)" "$1" -- '*.c')
	others=$(grep -vx 'kernel/printk/[^/]*\.c' <<<"$files" | grep -vxF -f <(say "$allowed") || true)
	[ -z "$others" ] ||
		die "$patch changes files that are neither kernel/printk/*.c nor .c files of the series: $(paste -sd' ' <<<"$others")"
	GIT_INDEX_FILE=$index tgit read-tree "$1"
	GIT_INDEX_FILE=$index tgit apply --cached "$patch" ||
		die "$patch does not apply to $3 (git apply says why above)"
	tree=$(GIT_INDEX_FILE=$index tgit write-tree)
	rm -f "$index"
	date=$(tgit log -1 --format=%ad --date=raw "$1")
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		tgit commit-tree "$tree" -p "$1" -m "mutant $2"
}

# A commit with the trees of all refs in $@ merged (the ref itself if
# one); an argument mutant:NAME applies that mutant instead.
merged_commit() {
	local tip tree date ref name=$1
	tip=$(tgit rev-parse "$1^{commit}")
	shift
	for ref in "$@"; do
		if [[ $ref == mutant:* ]]; then
			tip=$(mutant_commit "$tip" "${ref#mutant:}" "$name")
			continue
		fi
		tgit merge-base --is-ancestor "$ref" "$tip" && continue
		tree=$(tgit merge-tree --write-tree "$tip" "$ref") ||
			die "$ref does not merge cleanly into $tip"
		date=$(tgit log -1 --format=%ad --date=raw "$ref")
		tip=$(GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
			tgit commit-tree "$tree" -p "$tip" -p "$ref" -m "Merge $ref")
	done
	say "$tip"
}

# A git worktree of the kernel tree for a stage, created on first use.
# Stages call it holding the stage lock, so no run of ours is in git
# there: a git lock in it was left by a run that was killed.
stage_worktree() {
	local wt=$PRINTK_CACHE/worktrees/$1 gitdir lock
	if ! is_git_tree "$wt"; then
		rm -rf "$wt"
		tgit worktree prune
		tgit worktree add -q --detach "$wt" "$(base_ref)" >&2
	fi
	gitdir=$(git -C "$wt" rev-parse --absolute-git-dir)
	for lock in "$gitdir/index.lock" "$gitdir/HEAD.lock"; do
		[ -e "$lock" ] || continue
		warn "removing $lock, left by a run that was killed"
		rm -f "$lock"
	done
	say "$wt"
}

# Result caching: a stage keeps what it found for a state under a key of
# everything that state's result depends on (tree, config, the code and
# the tools that produced it), and skips the work when the key comes
# round again, as ccache does for one file.  FORCE=1 redoes everything.
key_of() { say "$*" | sha1sum | cut -c1-20; }
cached() { [ -z "${FORCE:-}" ] && [ -e "$1" ]; }

# The versions of tools $@, for the keys of what they produce.
tool_versions() {
	local tool
	for tool in "$@"; do
		case $tool in
		perl) perl -e 'print "perl $^V\n"' ;;
		ld) ld --version | sed -n 1p ;;
		*) "$tool" --version 2>&1 | sed -n 1p ;;
		esac
	done
}

# Entries of cache directory $1 not used for two weeks go.
prune_cache() {
	mkdir -p "$1"
	find "$1" -type f -mtime +14 -delete
}

# make in worktree $WT with output in $OBJ (both set by the caller).  The
# build is reproducible: the same tree and config give the same bzImage.
JOBS=${JOBS:-$(($(nproc) + 1))}
export CCACHE_DIR=${CCACHE_DIR:-$PRINTK_CACHE/ccache}
# ccache's depend mode keys a result by the headers of the compiler's own
# dependency file (Kbuild's -Wp,-MMD), so a miss does not run the
# preprocessor a second time: a cold kernel/ lib/ mm/ took 149 s so, 200 s
# in the default mode and 137 s without ccache.  The objects are the same.
export CCACHE_DEPEND=1
kmake() {
	make -C "$WT" O="$OBJ" -j"$JOBS" CC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="printk-tree" KBUILD_BUILD_USER=printk \
		KBUILD_BUILD_HOST=printk-tree KBUILD_BUILD_VERSION=1 "$@"
}

# The config fragments on top of tinyconfig, later ones win:
# ci/kernel.config and the one $KCONFIG_EXTRA names.
config_fragments() { printf '%s\n' "$TOP/ci/kernel.config" ${KCONFIG_EXTRA:+"$KCONFIG_EXTRA"}; }

# What a build in $OBJ depends on besides the tree: the fragments, how
# they are applied and built, and the compiler and linker.
build_inputs() {
	local fragments
	read_lines fragments config_fragments
	cat "${fragments[@]}"
	declare -f kmake config_fragments configure
	tool_versions gcc ld
}

# Objects for sparse (ci/lint.sh) and for a build of the changed files
# only (ci/build.sh): kernel/printk/ and the x86-buildable .c files in $@.
sparse_targets() {
	local f
	say kernel/printk/
	for f in "$@"; do
		case $f in
		arch/x86/*.c | arch/*) [[ $f == arch/x86/* ]] || continue ;;
		esac
		[[ $f != *.c || $f == kernel/printk/* ]] || say "${f%.c}.o"
	done
}

# configure $2 (strict), unless $OBJ was configured last for the same
# build inputs $1 and Kconfig files of $WT's checkout: it takes seconds.
configure_once() {
	local kconfig key
	kconfig=$(git -C "$WT" ls-tree -r HEAD -- '*Kconfig*' scripts/kconfig kernel/configs arch/x86/configs)
	key=$(key_of "$1" "$kconfig")
	[ -f "$OBJ/.config" ] && [ "$(cat "$OBJ/.configured" 2>/dev/null)" = "$key" ] && return
	rm -f "$OBJ/.configured"
	configure "${2:-}"
	say "$key" >"$OBJ/.configured"
}

# tinyconfig + config_fragments in $OBJ.  With "strict", every option of
# the fragments must be in the result.  The old .config (and its mtime) is
# kept when nothing changed, so that an unchanged config rebuilds nothing.
configure() {
	local missing fragments
	read_lines fragments config_fragments
	mkdir -p "$OBJ"
	[ ! -f "$OBJ/.config" ] || cp -p "$OBJ/.config" "$OBJ/.config.prev"
	kmake -s tinyconfig >/dev/null
	"$WT/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" \
		"${fragments[@]}" >/dev/null
	kmake -s olddefconfig >/dev/null
	# A later fragment overrides an earlier one, as in merge_config.sh;
	# "# CONFIG_X is not set" wants CONFIG_X absent.
	missing=$(cat "${fragments[@]}" | awk -v config="$OBJ/.config" '
		BEGIN { while ((getline l < config) > 0) if (l ~ /^CONFIG_/) have[substr(l, 1, index(l, "=") - 1)] = l }
		/^CONFIG_/ { want[substr($0, 1, index($0, "=") - 1)] = $0 }
		/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { want[$2] = "" }
		END {
			for (o in want)
				if (want[o] == "" && o in have)
					print "# " o " is not set"
				else if (want[o] != "" && have[o] != want[o])
					print want[o]
		}')
	[ "${1:-}" != strict ] || [ -z "$missing" ] ||
		die "config options of ${fragments[*]#"$TOP/"} not in the final .config (missing dependency?):
$missing"
	if [ -f "$OBJ/.config.prev" ] && cmp -s "$OBJ/.config" "$OBJ/.config.prev"; then
		mv "$OBJ/.config.prev" "$OBJ/.config"
	fi
	rm -f "$OBJ/.config.prev"
}

# Results as data, in the shape of KernelCI's KCIDB v4 reports: a stage
# collects checkouts (trees), builds and tests (lint checks, boot
# scenarios) with kcidb_* into $KCIDB, and kcidb_write puts them into one
# JSON file, from which its Markdown tables are rendered.
KCIDB_ORIGIN=printk_tree

kcidb_start() {
	KCIDB=$1
	mkdir -p "$KCIDB"
	: >"$KCIDB/checkouts"
	: >"$KCIDB/builds"
	: >"$KCIDB/tests"
}

# kcidb_checkout COMMIT BRANCH: the checkout of COMMIT's tree; prints its id.
kcidb_checkout() {
	local id
	id=$KCIDB_ORIGIN:$(tgit rev-parse "$1^{tree}")
	jq -cn --arg id "$id" --arg origin "$KCIDB_ORIGIN" --arg commit "$(tgit rev-parse "$1^{commit}")" \
		--arg branch "$2" '{id: $id, origin: $origin, tree_name: "printk-tree",
			git_commit_hash: $commit, git_repository_branch: $branch, valid: true}' \
		>>"$KCIDB/checkouts"
	say "$id"
}

# kcidb_build ID CHECKOUT-ID VALID LOG MISC-JSON
kcidb_build() {
	jq -cn --arg id "$KCIDB_ORIGIN:$1" --arg origin "$KCIDB_ORIGIN" --arg checkout "$2" \
		--argjson valid "$3" --arg log "file://$4" --argjson misc "$5" \
		'{id: $id, origin: $origin, checkout_id: $checkout, architecture: "x86_64",
		  config_name: "ci/kernel.config", valid: $valid, log_url: $log, misc: $misc}' \
		>>"$KCIDB/builds"
}

# The KCIDB test object, as a jq function of its build id, path, status
# (PASS, FAIL, ERROR: the test did not complete, or SKIP), comment, log
# file ("" for none) and misc object.
KCIDB_TEST_JQ='def kcidb_test($build; $path; $status; $comment; $log; $misc):
	if ["PASS", "FAIL", "ERROR", "SKIP"] | index([$status]) then . else
		error("kcidb_test: bad status \($status | tojson) of \($path)") end
	| {id: "\($origin):\($build):\($path)", origin: $origin,
	   build_id: "\($origin):\($build)", path: $path, status: $status,
	   comment: $comment, misc: $misc}
	  + (if $log == "" then {} else {log_url: "file://\($log)"} end);'

# kcidb_test BUILD-ID PATH STATUS COMMENT LOG MISC-JSON
kcidb_test() {
	jq -cn --arg origin "$KCIDB_ORIGIN" --arg build "$1" --arg path "$2" --arg status "$3" \
		--arg comment "$4" --arg log "$5" --argjson misc "$6" \
		"$KCIDB_TEST_JQ"' kcidb_test($build; $path; $status; $comment; $log; $misc)' \
		>>"$KCIDB/tests"
}

# kcidb_tests BUILD-ID MISC [JQ-ARG...]: one test per line of standard
# input, with one jq for them all.  A line is PATH, STATUS, COMMENT, LOG
# and more fields, tab-separated (none holds a tab or a newline); MISC is
# the jq expression of its misc object, over $f, the line's fields.
kcidb_tests() {
	local build=$1 misc=$2
	shift 2
	jq -cR --arg origin "$KCIDB_ORIGIN" --arg build "$build" "$@" \
		"$KCIDB_TEST_JQ"' split("\t") as $f | kcidb_test($build; $f[0]; $f[1]; $f[2]; $f[3]; '"$misc"')' \
		>>"$KCIDB/tests"
}

# The collected objects as a KCIDB v4.3 report in file $1.
kcidb_write() {
	jq -n --slurpfile checkouts "$KCIDB/checkouts" --slurpfile builds "$KCIDB/builds" \
		--slurpfile tests "$KCIDB/tests" \
		'{version: {major: 4, minor: 3}, checkouts: ($checkouts | unique_by(.id)),
		  builds: ($builds | unique_by(.id)), tests: $tests}' >"$1.tmp"
	mv "$1.tmp" "$1"
}
