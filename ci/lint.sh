#!/usr/bin/env bash
# lint.sh - checkpatch, sparse and coccinelle on every topic patch
#
# checkpatch --strict (the tree's own) on each patch: an error fails,
# warnings are listed; accepted types are in ci/checkpatch.exceptions.
# sparse (make C=2) on kernel/printk and every file a topic touches, at
# the base and at each topic: a warning the topic adds fails.
# coccinelle: the cocci/ rules in report mode on the same files; reports a
# topic adds are listed.  Warnings are compared without line numbers.
# The tree-wide pr_cont.cocci candidate count of the base is printed too.
# The topics are applied from topics/ (TOPICS_DIR), not taken from the
# branches, so any topics directory can be linted.  Findings are kept per
# tree and per patch text in $OUT/lint/by-key (FORCE=1 redoes them).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
APPLY_WHO=lint
. "$TOP/topics/apply.sh"

LINT_OUT=$OUT/lint
CACHE=$LINT_OUT/by-key
OBJ=$BUILD_DIR/sparse

ignored_types() {
	awk -v t="$1" '!/^#/ && NF && ($2 == "*" || $2 == t) { print $1 }' \
		"$TOP/ci/checkpatch.exceptions" | paste -sd, -
}

# checkpatch on patch $1 of topic $2; prints the table cell.  The output
# for the same patch text with the same checks is reused (it is kept with
# the patch's path as @PATCH@).
checkpatch_cell() {
	local patch=$1 out=$LINT_OUT/$(basename "$1").checkpatch errors warnings key ignore
	ignore=$(ignored_types "$2")
	key=$CACHE/$(key_of "$(cat "$patch")" "$ignore" \
		"$(tgit rev-parse "$BASE_COMMIT:scripts")" "$(declare -f checkpatch_cell)").checkpatch
	if ! cached "$key"; then
		# Debian's python3 has python3-ply for checkpatch's SPDX check;
		# another python3 earlier in PATH may not.
		(cd "$WT" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict \
			--no-summary --terse --ignore "$ignore" "$patch") 2>&1 |
			sed "s|$patch|@PATCH@|g" >"$key.tmp" || true
		mv "$key.tmp" "$key"
	fi
	sed "s|@PATCH@|$patch|g" "$key" >"$out"
	touch "$key"
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

# "file:line:col: message" lines of $1, without line numbers, sorted.
normalized() {
	{ grep -E '^[^ ]+:[0-9]+:[0-9-]+: ' "$1" || true; } |
		sed -E "s#^($WT/)?([^:]+):[0-9]+:[0-9-]+: #\2: #" | sort -u
}

# Sparse warnings and coccinelle reports at commit $1, into $2.sparse and
# $2.cocci; $3... are the files (from topic_files) to check.  The
# findings of a tree checked before with the same files and rules are
# reused.
lint_state() {
	local commit=$1 out=$2 files=() f rule targets key
	shift 2
	key=$CACHE/$(key_of "$(tgit rev-parse "$commit^{tree}")" "$*" "$(build_inputs)" \
		"$(cat "$TOP"/cocci/*.cocci)" "$(declare -f lint_state sparse_targets normalized)")
	if cached "$key.cocci"; then
		cp "$key.sparse" "$out.sparse"
		cp "$key.cocci" "$out.cocci"
		touch "$key".*
		return
	fi
	git -C "$WT" checkout -q -f --detach "$commit"
	configure
	targets=$(sparse_targets "$@")
	# Compile first, so that C=2 prints sparse's output only.
	# shellcheck disable=SC2086
	kmake -s $targets >/dev/null 2>&1 || true
	# shellcheck disable=SC2086
	kmake -s C=2 $targets >"$out.sparse.log" 2>&1 || true
	grep -E ': (warning|error):' "$out.sparse.log" >"$out.sparse.raw" || true
	normalized "$out.sparse.raw" >"$out.sparse"

	for f in kernel/printk/*.c "$@"; do
		[[ $f == *.c && -f "$WT/$f" ]] && files+=("$WT/$f")
	done
	for rule in "$TOP"/cocci/*.cocci; do
		spatch --very-quiet -D report --no-includes --include-headers \
			--sp-file "$rule" "${files[@]}" 2>/dev/null || true
	done >"$out.cocci.raw"
	normalized "$out.cocci.raw" >"$out.cocci"
	cp "$out.sparse" "$key.sparse"
	cp "$out.cocci" "$key.tmp"
	mv "$key.tmp" "$key.cocci"
}

# pr_cont.cocci's candidates in the whole tree at commit $1, counted once
# per base and rule.
candidates() {
	local key
	key=$CACHE/$(key_of "$(cat "$TOP/cocci/pr_cont.cocci")" "$1").candidates
	if ! cached "$key"; then
		git -C "$WT" checkout -q -f --detach "$1"
		bash "$TOP/cocci/count-candidates.sh" "$WT" >"$key.tmp"
		mv "$key.tmp" "$key"
	fi
	sed -n 's/^\(rule .*\)$/lint: tree-wide pr_cont.cocci \1/p' "$key"
}

# What state $1 adds to the base's $2 (sparse or cocci) findings.
added() { comm -13 "$LINT_OUT/base.$2" "$LINT_OUT/$1.$2"; }

count_cell() {
	local n
	n=$(grep -c . <<<"$1" || true)
	[ "$n" = 0 ] && say clean || say "$n $2"
}

main() {
	local base dir tip parent patch files sparse cocci cp n=0 failed=0
	local -A tips
	local table=$LINT_OUT/table.md
	need_tree
	base=$(base_ref)
	BASE_COMMIT=$(tgit rev-parse "$base^{commit}")
	mkdir -p "$LINT_OUT"
	prune_cache "$CACHE"
	WT=$(stage_worktree lint)

	files=$(for dir in $(topic_dirs); do touched_files "$dir"; done | sort -u)
	# shellcheck disable=SC2086
	lint_state "$BASE_COMMIT" "$LINT_OUT/base" $files
	say "lint: $base: $(wc -l <"$LINT_OUT/base.sparse") sparse warning(s), $(wc -l <"$LINT_OUT/base.cocci") coccinelle report(s) in the checked files"
	candidates "$BASE_COMMIT"

	{
		say "| patch | checkpatch | sparse | coccinelle |"
		say "|---|---|---|---|"
	} >"$table"
	for dir in $(topic_dirs); do
		load_topic "$dir"
		parent=$BASE_COMMIT
		[ -z "$topic_depends" ] || parent=${tips[$topic_depends]}
		tip=$(build_topic "$dir" "$parent") || exit 1
		tips[$topic_name]=$tip
		# shellcheck disable=SC2086
		lint_state "$tip" "$LINT_OUT/$topic_name" $files
		sparse=$(added "$topic_name" sparse)
		cocci=$(added "$topic_name" cocci)
		[ -z "$sparse" ] || say "$sparse" | sed "s/^/lint: $topic_name: sparse: /"
		[ -z "$cocci" ] || say "$cocci" | sed "s/^/lint: $topic_name: coccinelle: /"
		for patch in $(topic_patches "$dir"); do
			cp=$(checkpatch_cell "$patch" "$topic_name")
			say "| $topic_name/$(basename "$patch") | $cp | $(count_cell "$sparse" "new warning(s)") | $(count_cell "$cocci" "new report(s)") |" >>"$table"
			say "lint: $topic_name: $(basename "$patch"): checkpatch $cp"
			grep -E ': (ERROR|WARNING|CHECK): ' "$LINT_OUT/$(basename "$patch").checkpatch" |
				sed 's/^/    /' || true
			[[ $cp == *error* || -n $sparse ]] && failed=$((failed + 1))
			n=$((n + 1))
		done
	done
	cat "$table"
	[ "$failed" = 0 ] || die "lint: $failed of $n patch(es) failed (checkpatch errors or new sparse warnings)"
	say "lint: $n patch(es) without checkpatch errors or new sparse warnings"
}

main "$@"
