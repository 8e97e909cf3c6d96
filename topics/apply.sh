# apply.sh - turn patches into commits, without a checkout
#
# Sourced by regen.sh, ci/lint.sh and mail/export.sh.  Patches are applied
# with git apply on a private index and committed with commit-tree, so no
# working tree is touched; the commits are only reachable through what the
# caller does with the tips printed.  A caller with an EXIT trap of its
# own removes $APPLY_TMP there.
APPLY_WHO=${APPLY_WHO:-topics}
APPLY_TMP=$(mktemp -d "${TMPDIR:-/tmp}/apply.XXXXXX")
INDEX=$APPLY_TMP/index
trap 'rm -rf "$APPLY_TMP"' EXIT

# Hunk number and header of the hunk of patch $1 for file $2 starting at old line $3.
hunk_of() {
	awk -v file="$2" -v line="$3" '
		/^diff --git / { in_file = ($3 == "a/" file); n = 0; next }
		in_file && /^@@ / {
			n++
			split($2, old, ",")
			if (-old[1] == line) { print "hunk #" n " (" $0 ")"; exit }
		}' "$1"
}

# Explain why patch $1 does not apply: one line per failing hunk.
describe_conflict() {
	local patch=$1 err=$2 file line
	grep '^error: patch failed: ' "$err" | sed 's/^error: patch failed: //' |
	while IFS= read -r loc; do
		file=${loc%:*} line=${loc##*:}
		say "  $file: $(hunk_of "$patch" "$file" "$line")"
	done
	grep -v '^error: patch failed: ' "$err" | sed 's/^/  /'
}

# Apply patch $1 on commit $2 (already in $INDEX); print the new commit,
# authored at $3 (default: the patch's date) and committed at $4 (default:
# the author date, so that the same patches give the same commits).
# Returns 2 when the patch is already in $2, 1 when it does not apply
# ($INDEX.err says why).
commit_patch() {
	local patch=$1 parent=$2 info author email date subject tree
	if ! GIT_INDEX_FILE=$INDEX tgit apply --cached --check "$patch" 2>"$INDEX.err"; then
		GIT_INDEX_FILE=$INDEX tgit apply --cached --check -R "$patch" 2>/dev/null && return 2
		return 1
	fi
	info=$(tgit mailinfo "$INDEX.msg" "$INDEX.patch" <"$patch")
	author=$(sed -n 's/^Author: //p' <<<"$info")
	email=$(sed -n 's/^Email: //p' <<<"$info")
	date=${3:-$(sed -n 's/^Date: //p' <<<"$info")}
	subject=$(sed -n 's/^Subject: //p' <<<"$info")
	GIT_INDEX_FILE=$INDEX tgit apply --cached "$INDEX.patch"
	tree=$(GIT_INDEX_FILE=$INDEX tgit write-tree)
	{ say "$subject"; say; cat "$INDEX.msg"; } |
		GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
		GIT_COMMITTER_DATE=${4:-$date} tgit commit-tree "$tree" -p "$parent"
}

# Build topic in $1 on commit $2; print its new tip.
build_topic() {
	local dir=$1 tip=$2 patch rc applied=0 inbase=0 commit
	GIT_INDEX_FILE=$INDEX tgit read-tree "$tip"
	for patch in $(topic_patches "$dir"); do
		rc=0
		commit=$(commit_patch "$patch" "$tip") || rc=$?
		case $rc in
		0) tip=$commit; applied=$((applied + 1)) ;;
		2) inbase=$((inbase + 1))
		   say "$APPLY_WHO: $topic_name: $(basename "$patch"): already in base, skipped" >&2 ;;
		*) {
			say "error: topic $topic_name: $(basename "$patch") does not apply:"
			describe_conflict "$patch" "$INDEX.err"
			say "nothing was changed in $PRINTK_TREE"
		   } >&2
		   return 1 ;;
		esac
	done
	say "$APPLY_WHO: $topic_name: $applied applied, $inbase already in base" >&2
	say "$tip"
}

