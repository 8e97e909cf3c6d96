#!/usr/bin/env bash
# lint.sh - checkpatch, sparse and coccinelle on every topic patch
#
# checkpatch --strict (the tree's own) on each patch: any finding (error,
# warning or check) fails; accepted types are in ci/checkpatch.exceptions.
# sparse (make C=2) on kernel/printk and every file a topic touches, at
# the base and at each topic: a warning the topic adds fails.
# coccinelle: the cocci/ rules in report mode on the same files; reports a
# topic adds are listed.  Warnings are compared without line numbers.
# The tree-wide pr_cont.cocci candidate count of the base is printed too.
# The tools are checked before anything runs, and a tool that fails (as
# opposed to reporting findings) fails the stage: no finding is ever
# "clean" because its tool did not run.
# The topics are applied from topics/ (TOPICS_DIR), not taken from the
# branches, so any topics directory can be linted.  Findings are kept per
# tree, patch text and tool versions in $OUT/lint/by-key (FORCE=1 redoes
# them).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
APPLY_WHO=lint
. "$TOP/topics/apply.sh"

# Where the findings go, into LINT_OUT, CACHE and OBJ (sparse's build): a
# base other than the default (BASE=6.12) has its own.
lint_dirs() {
	SUFFIX=$(base_suffix)
	LINT_OUT=$OUT/lint$SUFFIX
	CACHE=$LINT_OUT/by-key
	OBJ=$BUILD_DIR/sparse$SUFFIX
}

# Each tool must be there and run, before any finding is trusted.
require_tools() {
	local tool package
	for tool in perl:perl sparse:sparse spatch:coccinelle; do
		package=${tool#*:} tool=${tool%:*}
		command -v "$tool" >/dev/null ||
			die "lint: $tool not found: install the Debian package '$package' (make deps)"
		"$tool" --version >/dev/null 2>&1 ||
			die "lint: '$tool --version' fails: $tool does not run (Debian package '$package')"
	done
}

require_checkpatch() {
	(cd "$WT" && checkpatch --version >/dev/null 2>&1) ||
		die "lint: $WT/scripts/checkpatch.pl --version fails"
}

# The tree's checkpatch.  Debian's python3 has python3-ply for its SPDX
# check; another python3 earlier in PATH may not.
checkpatch() { PATH=/usr/bin:$PATH perl scripts/checkpatch.pl "$@"; }

ignored_types() {
	awk -v t="$1" '!/^#/ && NF && ($2 == "*" || $2 == t) { print $1 }' \
		"$TOP/ci/checkpatch.exceptions" | paste -sd, -
}

# checkpatch on patch $1 of topic $2; prints the table cell.  The output
# for the same patch text with the same checks is reused (it is kept with
# the patch's path as @PATCH@).  checkpatch exits 1 on findings; an exit
# without a finding line is checkpatch failing.
checkpatch_cell() {
	local patch=$1 out errors warnings key ignore text scripts rc=0
	out=$LINT_OUT/$(basename "$patch").checkpatch
	ignore=$(ignored_types "$2")
	text=$(cat "$patch")
	scripts=$(tgit rev-parse "$BASE_COMMIT:scripts")
	key=$CACHE/$(key_of "$text" "$ignore" "$PERL_VERSION" "$scripts" \
		"$(declare -f checkpatch_cell checkpatch)").checkpatch
	if ! cached "$key"; then
		(cd "$WT" && checkpatch --strict --no-summary --terse --ignore "$ignore" "$patch") \
			>"$key.tmp" 2>&1 || rc=$?
		# 1 with findings is checkpatch's "not clean"; anything else failed.
		if [ "$rc" != 0 ] && { [ "$rc" != 1 ] || ! grep -qE ': (ERROR|WARNING|CHECK): ' "$key.tmp"; }; then
			cat "$key.tmp" >&2
			die "lint: checkpatch failed on $patch (exit $rc) without a finding"
		fi
		sed "s|$patch|@PATCH@|g" "$key.tmp" >"$key"
		rm "$key.tmp"
	fi
	sed "s|@PATCH@|$patch|g" "$key" >"$out"
	touch "$key"
	errors=$(matching -c ': ERROR: ' "$out")
	warnings=$(matching -c -E ': (WARNING|CHECK): ' "$out")
	if [ "$errors" -gt 0 ]; then
		say "$errors error(s)"
	elif [ "$warnings" -gt 0 ]; then
		say "$warnings warning(s)"
	else
		say clean
	fi
}

# Files touched by the patches of topic directory $1.
touched_files() {
	local patch patches
	load_topic "$1"
	read_lines patches base_patches "$1"
	for patch in "${patches[@]}"; do
		tgit apply --numstat "$patch" | cut -f3
	done
}

# "file:line:col: message" lines of $1, without line numbers, sorted.
normalized() {
	matching -E '^[^ ]+:[0-9]+:[0-9-]+: ' "$1" |
		sed -E "s#^($WT/)?([^:]+):[0-9]+:[0-9-]+: #\2: #" | sort -u
}

# Sparse warnings and coccinelle reports at commit $1, into $2.sparse and
# $2.cocci; $3... are the files (touched_files) to check.  The findings
# of a tree checked before with the same files, rules and tools are
# reused.  LINT_KEY names the state (its KCIDB build).  A compile or sparse failure, or spatch failing, fails the
# stage.
lint_state() {
	local commit=$1 out=$2 files=() f rule targets key tree
	shift 2
	tree=$(tgit rev-parse "$commit^{tree}")
	key=$CACHE/$(key_of "$tree" "$*" "$BUILD_INPUTS" "$RULES" "$SPARSE_VERSIONS" \
		"$(declare -f lint_state sparse_targets normalized)")
	LINT_KEY=lint-${key##*/}
	if cached "$key.cocci"; then
		cp "$key.sparse" "$out.sparse"
		cp "$key.cocci" "$out.cocci"
		touch "$key".*
		return
	fi
	git -C "$WT" checkout -q -f --detach "$commit"
	configure_once "$BUILD_INPUTS"
	read_lines targets sparse_targets "$@"
	# Compile first, so that C=2 prints sparse's output only.
	run_logged "lint: compile $(basename "$out")" "$out.compile.log" kmake -s "${targets[@]}"
	run_logged "lint: sparse $(basename "$out")" "$out.sparse.log" kmake -s C=2 "${targets[@]}"
	matching -E ': (warning|error):' "$out.sparse.log" >"$out.sparse.raw"
	normalized "$out.sparse.raw" >"$out.sparse"

	for f in kernel/printk/*.c "$@"; do
		[[ $f != *.c || ! -f "$WT/$f" ]] || files+=("$WT/$f")
	done
	: >"$out.cocci.raw"
	# A file spatch cannot parse is reported on stderr, with exit 0: that
	# is a failure too, not a clean file.
	for rule in "$TOP"/cocci/*.cocci; do
		spatch --very-quiet -D report --no-includes --include-headers \
			--sp-file "$rule" "${files[@]}" >>"$out.cocci.raw" 2>"$out.cocci.err" ||
			{ cat "$out.cocci.err" >&2; die "lint: spatch failed with $(basename "$rule")"; }
		[ ! -s "$out.cocci.err" ] ||
			{ cat "$out.cocci.err" >&2; die "lint: spatch reported errors with $(basename "$rule")"; }
	done
	normalized "$out.cocci.raw" >"$out.cocci"
	cp "$out.sparse" "$key.sparse"
	cp "$out.cocci" "$key.tmp"
	mv "$key.tmp" "$key.cocci"
}

# pr_cont.cocci's candidates in the whole tree at commit $1, counted once
# per base, rule and spatch.
candidates() {
	local key rule
	rule=$(cat "$TOP/cocci/pr_cont.cocci")
	key=$CACHE/$(key_of "$rule" "$1" "$SPARSE_VERSIONS").candidates
	if ! cached "$key"; then
		git -C "$WT" checkout -q -f --detach "$1"
		run_logged "lint: tree-wide pr_cont.cocci count" "$key.tmp" \
			bash "$TOP/cocci/count-candidates.sh" "$WT"
		mv "$key.tmp" "$key"
	fi
	sed -n 's/^\(rule .*\)$/lint: tree-wide pr_cont.cocci \1/p' "$key"
}

# What state $1 adds to the base's $2 (sparse or cocci) findings.
added() { comm -13 "$LINT_OUT/base.$2" "$LINT_OUT/$1.$2"; }

count_cell() {
	local n
	n=$(matching -c . <<<"$1")
	[ "$n" = 0 ] && say clean || say "$n $2"
}

# The lint state of commit $1 (branch $2) as a KCIDB build: sparse's
# compile in $OBJ.
state_build() {
	kcidb_build "$LINT_KEY" "$(kcidb_checkout "$1" "$2")" true "$LINT_OUT/$3.sparse.log" \
		"$(jq -cn --arg s "$3" '{lint_state: $s}')"
}

# kcidb_test for row $1 (patch $2) of the table: check $3, status $4,
# table cell $5, findings $6.
lint_test() {
	kcidb_test "$LINT_KEY" "lint.$3.$1" "$4" "$6" "" \
		"$(jq -cn --argjson row "$1" --arg patch "$2" --arg check "$3" --arg cell "$5" \
			'{row: $row, patch: $patch, check: $check, cell: $cell}')"
}

# The table of results.json $1: a row per patch, a column per check.
render_table() {
	say "| patch | checkpatch | sparse | coccinelle |"
	say "|---|---|---|---|"
	jq -r '.tests | group_by(.misc.row)[]
		| (map({key: .misc.check, value: .misc.cell}) | from_entries) as $c
		| "| \(.[0].misc.patch) | \($c.checkpatch) | \($c.sparse) | \($c.coccinelle) |"' "$1"
}

main() {
	local base dir tip parent patch patches files sparse cocci cp n=0 failed=0 row=()
	local table json
	local -A tips
	require_tools
	lint_dirs
	table=$LINT_OUT/table.md json=$LINT_OUT/results.json
	need_tree
	stage_lock lint
	# What every finding depends on besides the tree.
	BUILD_INPUTS=$(build_inputs)
	RULES=$(cat "$TOP"/cocci/*.cocci)
	SPARSE_VERSIONS=$(tool_versions sparse spatch)
	PERL_VERSION=$(tool_versions perl)
	apply_init
	load_topics
	base=$(base_ref)
	BASE_COMMIT=$(tgit rev-parse "$base^{commit}")
	mkdir -p "$LINT_OUT"
	prune_cache "$CACHE"
	WT=$(stage_worktree "lint$SUFFIX")
	require_checkpatch

	files=$(for dir in "${TOPIC_DIRS[@]}"; do touched_files "$dir"; done | sort -u)
	read_lines files say "$files"
	lint_state "$BASE_COMMIT" "$LINT_OUT/base" "${files[@]}"
	say "lint: $base: $(wc -l <"$LINT_OUT/base.sparse") sparse warning(s), $(wc -l <"$LINT_OUT/base.cocci") coccinelle report(s) in the checked files"
	candidates "$BASE_COMMIT"

	kcidb_start "$LINT_OUT/kcidb"
	for dir in "${TOPIC_DIRS[@]}"; do
		load_topic "$dir"
		parent=$BASE_COMMIT
		[ -z "$topic_depends" ] || parent=${tips[$topic_depends]}
		tip=$(build_topic "$dir" "$parent")
		tips[$topic_name]=$tip
		lint_state "$tip" "$LINT_OUT/$topic_name" "${files[@]}"
		state_build "$tip" "topic/$topic_name$SUFFIX" "$topic_name"
		sparse=$(added "$topic_name" sparse)
		cocci=$(added "$topic_name" cocci)
		[ -z "$sparse" ] || say "$sparse" | sed "s/^/lint: $topic_name: sparse: /"
		[ -z "$cocci" ] || say "$cocci" | sed "s/^/lint: $topic_name: coccinelle: /"
		read_lines patches base_patches "$dir"
		for patch in "${patches[@]}"; do
			cp=$(checkpatch_cell "$patch" "$topic_name")
			row=("$n" "$topic_name/$(basename "$patch")")
			lint_test "${row[@]}" checkpatch "$([ "$cp" = clean ] && say PASS || say FAIL)" "$cp" \
				"$(cat "$LINT_OUT/$(basename "$patch").checkpatch")"
			lint_test "${row[@]}" sparse "$([ -z "$sparse" ] && say PASS || say FAIL)" \
				"$(count_cell "$sparse" "new warning(s)")" "$sparse"
			lint_test "${row[@]}" coccinelle PASS "$(count_cell "$cocci" "new report(s)")" "$cocci"
			say "lint: $topic_name: $(basename "$patch"): checkpatch $cp"
			matching -E ': (ERROR|WARNING|CHECK): ' "$LINT_OUT/$(basename "$patch").checkpatch" |
				sed 's/^/    /'
			[[ $cp == clean && -z $sparse ]] || failed=$((failed + 1))
			n=$((n + 1))
		done
	done
	kcidb_write "$json"
	render_table "$json" >"$table"
	cat "$table"
	[ "$failed" = 0 ] || die "lint: $failed of $n patch(es) failed (checkpatch findings or new sparse warnings)"
	say "lint: $n patch(es) without checkpatch findings or new sparse warnings"
}

main "$@"
