# shellcheck shell=bash
# apply.sh - turn patches into commits, without a checkout
#
# Sourced by regen.sh, ci/lint.sh and mail/export.sh, which call
# apply_init first.  Patches are applied with git apply on a private index
# and committed with commit-tree, so no working tree is touched; the
# commits are only reachable through what the caller does with the tips
# printed.
APPLY_WHO=${APPLY_WHO:-topics}

# What a patch that does not apply does: stop the caller (die), or be
# reported, build_topic printing "conflict" for a tip (report).
APPLY_CONFLICT=${APPLY_CONFLICT:-die}

# The private index and its scratch files, removed at exit.
apply_init() {
	scratch_dir APPLY_TMP apply
	INDEX=$APPLY_TMP/index
	# The series of the base: picks topic variants and checks what a
	# topic says its base has.
	APPLY_SERIES=$(base_series)
	# Commits applied from the list, by "parent tree" (regen.sh fills it).
	declare -gA LIST_COMMITS=()
}

# The message of commit $1 without its trailers.
message_text() {
	local msg
	msg=$(tgit log -1 --format=%B "$1")
	grep -vxFf <(git interpret-trailers --parse <<<"$msg") <<<"$msg" || true
}

# Commit $1 made from patch $2, or the commit applied from the list in its
# place: the one with the same parent, tree and message but for the
# trailers.  That one carries the review's trailers (and the author who
# mailed it), and for-next then holds the very commits a pull request of
# the applied series sends.
from_list() {
	local own=$1 listed
	listed=${LIST_COMMITS[$(tgit log -1 --format='%P %T' "$own")]:-}
	if [ -n "$listed" ] && [ "$(message_text "$listed")" != "$(message_text "$own")" ]; then
		say "$APPLY_WHO: $topic_name: $(basename "$2"): its message differs from $(tgit rev-parse --short "$listed"), applied from the list: taken from topics/" >&2
		listed=
	fi
	say "${listed:-$own}"
}

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
	local patch=$1 err=$2 file line loc
	matching '^error: patch failed: ' "$err" | sed 's/^error: patch failed: //' |
	while IFS= read -r loc; do
		file=${loc%:*} line=${loc##*:}
		say "  $file: $(hunk_of "$patch" "$file" "$line")"
	done
	matching -v '^error: patch failed: ' "$err" | sed 's/^/  /'
}

# How patch $1 goes onto the tree in $INDEX: "applies", "in-base" (it is
# there already) or "conflict" ($INDEX.err says why).
patch_state() {
	if GIT_INDEX_FILE=$INDEX tgit apply --cached --check "$1" 2>"$INDEX.err"; then
		say applies
	elif GIT_INDEX_FILE=$INDEX tgit apply --cached --check -R "$1" 2>/dev/null; then
		say in-base
	else
		say conflict
	fi
}

# Apply patch $1, which applies, on commit $2 (already in $INDEX); print
# the new commit, authored at $3 (default: the patch's date) and committed
# at $4 (default: the author date, so that the same patches give the same
# commits).  The author is the patch's, or AS_NAME <AS_EMAIL> when set,
# who then also replaces the patch author's Signed-off-by.
commit_patch() {
	local patch=$1 parent=$2 info author email date subject tree sob
	info=$(tgit mailinfo "$INDEX.msg" "$INDEX.patch" <"$patch")
	author=$(sed -n 's/^Author: //p' <<<"$info")
	email=$(sed -n 's/^Email: //p' <<<"$info")
	date=${3:-$(sed -n 's/^Date: //p' <<<"$info")}
	subject=$(sed -n 's/^Subject: //p' <<<"$info")
	[ -n "$author" ] && [ -n "$email" ] && [ -n "$subject" ] ||
		die "$patch: no author or subject in its mail headers (From:, Subject:)"
	sob="Signed-off-by: $author <$email>"
	[ -z "${AS_NAME:-}" ] || author=$AS_NAME email=$AS_EMAIL
	GIT_INDEX_FILE=$INDEX tgit apply --cached "$INDEX.patch"
	tree=$(GIT_INDEX_FILE=$INDEX tgit write-tree)
	{ say "$subject"; say; cat "$INDEX.msg"; } |
		awk -v old="$sob" -v new="Signed-off-by: $author <$email>" '$0 == old { $0 = new } { print }' |
		GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
		GIT_COMMITTER_DATE=${4:-$date} tgit commit-tree "$tree" -p "$parent"
}

# Where commit $1 has the code topic_superseded[$APPLY_SERIES] names:
# "FILE:LINE: STRING", or nothing.
superseded_at() {
	local spec=${topic_superseded[$APPLY_SERIES]} hit
	hit=$(tgit grep -n -F -e "${spec#*: }" "$1" -- "${spec%%: *}" | sed -n 1p) || true
	[ -z "$hit" ] || say "${spec%%: *}:$(cut -d: -f3 <<<"$hit"): ${spec#*: }"
}

# The loaded topic on a base that has what it does: its tip stays $1.
build_superseded() {
	local tip=$1 at
	at=$(superseded_at "$tip")
	[ -n "$at" ] ||
		die "topic $topic_name: topic_superseded[$APPLY_SERIES] says ${topic_superseded[$APPLY_SERIES]%%: *} has '${topic_superseded[$APPLY_SERIES]#*: }', which $(tgit describe --tags --always "$tip") does not: the topic is not in this base"
	say "$APPLY_WHO: $topic_name: already in base: ${topic_superseded_why[$APPLY_SERIES]} ($at)" >&2
	say "$tip"
}

# The patches of the topic loaded from directory $1 on this base: its
# variant $1/<series> where it has one, none where the base has it.
base_patches() {
	[ -z "${topic_superseded[$APPLY_SERIES]:-}" ] || return 0
	if [ -d "$1/$APPLY_SERIES" ]; then
		topic_patches "$1/$APPLY_SERIES"
	else
		topic_patches "$1"
	fi
}

# Build the loaded topic (topic_name) from directory $1 on commit $2;
# print its new tip, or "conflict" when a patch does not apply and
# APPLY_CONFLICT=report.
build_topic() {
	local dir=$1 tip=$2 patch patches own applied=0 inbase=0 listed=0 how=applied
	if [ -n "${topic_superseded[$APPLY_SERIES]:-}" ]; then
		build_superseded "$tip"
		return
	fi
	[ ! -d "$dir/$APPLY_SERIES" ] || how="applied as the $APPLY_SERIES variant"
	read_lines patches base_patches "$dir"
	GIT_INDEX_FILE=$INDEX tgit read-tree "$tip"
	for patch in "${patches[@]}"; do
		case $(patch_state "$patch") in
		applies)
			own=$(commit_patch "$patch" "$tip")
			tip=$(from_list "$own" "$patch")
			[ "$tip" = "$own" ] || listed=$((listed + 1))
			applied=$((applied + 1)) ;;
		in-base)
			inbase=$((inbase + 1))
			say "$APPLY_WHO: $topic_name: $(basename "$patch"): already in base, skipped" >&2 ;;
		conflict)
			{
				say "error: topic $topic_name: $(basename "$patch") does not apply:"
				describe_conflict "$patch" "$INDEX.err"
			} >&2
			if [ "$APPLY_CONFLICT" = report ]; then
				say conflict
				return
			fi
			say "nothing was changed in $PRINTK_TREE" >&2
			return "$REPORTED" ;;
		esac
	done
	say "$APPLY_WHO: $topic_name: $applied $how${LIST_COMMITS[*]:+ ($listed as applied from the list)}, $inbase already in base" >&2
	say "$tip"
}
