#!/usr/bin/env bash
# lint.sh - checkpatch, sparse and coccinelle on every topic patch
#
# checkpatch --strict (the tree's own) on each patch: an error fails,
# warnings are listed; accepted types are in ci/checkpatch.exceptions.
# sparse (make C=2) on kernel/printk and every file the topic touches,
# at the base and at each topic: a warning the topic adds fails.
# coccinelle: the cocci/ rules in report mode on the touched files.
# The topics are applied from topics/ (TOPICS_DIR), not taken from the
# branches, so any topics directory can be linted.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
APPLY_WHO=lint
. "$TOP/topics/apply.sh"

LINT_OUT=$OUT/lint
OBJ=$BUILD_DIR/sparse

ignored_types() {
	awk -v t="$1" '!/^#/ && NF && ($2 == "*" || $2 == t) { print $1 }' \
		"$TOP/ci/checkpatch.exceptions" | paste -sd, -
}

# checkpatch on patch $1 of topic $2; prints the table cell.
checkpatch_cell() {
	local patch=$1 out=$LINT_OUT/$(basename "$1").checkpatch errors warnings
	# Debian's python3 has python3-ply for checkpatch's SPDX check;
	# another python3 earlier in PATH may not.
	(cd "$WT" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict \
		--no-summary --terse --ignore "$(ignored_types "$2")" "$patch") \
		>"$out" 2>&1 || true
	errors=$(grep -c ': ERROR: ' "$out" || true)
	warnings=$(grep -c -E ': (WARNING|CHECK): ' "$out" || true)
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
	local patch
	for patch in $(topic_patches "$1"); do
		tgit apply --numstat "$patch" | cut -f3
	done | sort -u
}

# Objects for sparse: kernel/printk/ and the x86-buildable .c files in $@.
sparse_targets() {
	local f
	say kernel/printk/
	for f in "$@"; do
		case $f in
		arch/x86/*.c | arch/*) [[ $f == arch/x86/* ]] || continue ;;
		esac
		[[ $f == *.c && $f != kernel/printk/* ]] && say "${f%.c}.o"
	done
	return 0
}

# Sparse warnings at commit $1 on targets $2..., without line numbers.
sparse_warnings() {
	local commit=$1 log
	shift
	log=$LINT_OUT/sparse.log
	git -C "$WT" checkout -q -f --detach "$commit"
	configure
	# Compile first, so that C=2 prints sparse's output only.
	kmake -s "$@" >/dev/null 2>&1 || true
	kmake -s C=2 "$@" >"$log" 2>&1 || true
	{ grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log" || true; } |
		sed -E 's#^([^:]+):[0-9]+:[0-9]+: #\1: #' | sort -u
}

# Coccinelle reports of the cocci/ rules on the .c files $@ at the
# current worktree state.
cocci_reports() {
	local rule files=()
	for f in "$@"; do
		[[ $f == *.c && -f "$WT/$f" ]] && files+=("$WT/$f")
	done
	[ ${#files[@]} -gt 0 ] || return 0
	for rule in "$TOP"/cocci/*.cocci; do
		spatch --very-quiet -D report --no-includes --include-headers \
			--sp-file "$rule" "${files[@]}" 2>/dev/null || true
	done | grep -E '^[^ ]+:[0-9]+:' || true
}

main() {
	local base base_commit dir tip parent patch targets new n=0 failed=0
	local -A tips
	local table=$LINT_OUT/table.md
	need_tree
	base=$(base_ref)
	base_commit=$(tgit rev-parse "$base^{commit}")
	mkdir -p "$LINT_OUT"
	WT=$(stage_worktree lint)

	targets=$(for dir in $(topic_dirs); do touched_files "$dir"; done | sort -u)
	# shellcheck disable=SC2086
	sparse_warnings "$base_commit" $(sparse_targets $targets) >"$LINT_OUT/base.sparse"
	say "lint: $base: $(wc -l <"$LINT_OUT/base.sparse") sparse warning(s) in the checked files"

	{
		say "| patch | checkpatch | sparse | coccinelle |"
		say "|---|---|---|---|"
	} >"$table"
	for dir in $(topic_dirs); do
		load_topic "$dir"
		parent=$base_commit
		[ -z "$topic_depends" ] || parent=${tips[$topic_depends]}
		tip=$(build_topic "$dir" "$parent") || exit 1
		tips[$topic_name]=$tip
		# shellcheck disable=SC2086
		sparse_warnings "$tip" $(sparse_targets $targets) >"$LINT_OUT/$topic_name.sparse"
		new=$(comm -13 "$LINT_OUT/base.sparse" "$LINT_OUT/$topic_name.sparse")
		[ -z "$new" ] || say "$new" | sed "s/^/lint: $topic_name: sparse: /"
		for patch in $(topic_patches "$dir"); do
			local cp sp cc
			cp=$(checkpatch_cell "$patch" "$topic_name")
			sp=clean
			[ -z "$new" ] || sp="$(wc -l <<<"$new") new warning(s)"
			cc=$(cocci_reports $(touched_files "$dir") | wc -l)
			[ "$cc" = 0 ] && cc=clean || cc="$cc report(s)"
			say "| $topic_name/$(basename "$patch") | $cp | $sp | $cc |" >>"$table"
			say "lint: $topic_name: $(basename "$patch"): checkpatch $cp, sparse $sp, coccinelle $cc"
			grep -E ': (ERROR|WARNING|CHECK): ' "$LINT_OUT/$(basename "$patch").checkpatch" |
				sed 's/^/    /' || true
			[[ $cp == *error* || $sp != clean ]] && failed=$((failed + 1))
			n=$((n + 1))
		done
	done
	cat "$table"
	[ "$failed" = 0 ] || die "lint: $failed of $n patch(es) failed (checkpatch errors or new sparse warnings)"
	say "lint: $n patch(es) clean of errors and new sparse warnings"
}

main "$@"
