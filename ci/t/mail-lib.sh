# mail-lib.sh - what the mail tests (t0600, t0610) share: a clone of the
# kernel tree of make ci, mailed from by a maintainer of its own, to a list
# of its own; the export starts its server and stops it.
. "$(dirname "$0")/../test-lib.sh"

test_have_prereq KERNEL_TREE || skip_all "needs the kernel tree of make ci (run after make ci)"
command -v b4 >/dev/null || skip_all "b4 is not installed"
command -v public-inbox-httpd >/dev/null || skip_all "public-inbox is not installed (make deps)"
at_exit env -C / bash "$TOP/mail/list.sh" stop
use_kernel_tree
# Not the identity the patches in topics/ and mail/ were made with: the
# export must mail them as this maintainer.  A long domain, as real ones
# can be: b4's Message-Ids then do not fit a header line.
MAINTAINER_EMAIL=maintainer@users.noreply.maintainers.printk-list.test
MAINTAINER="Test Maintainer <$MAINTAINER_EMAIL>"
tgit config user.name "Test Maintainer"
tgit config user.email "$MAINTAINER_EMAIL"

export OUT=$TRASH/out
# The revisions' builds belong to make mail, not to these message checks.
export MAIL_NO_BUILD=1
export MAIL_COMMIT_DATE=$(date -u +%Y-%m-%dT00:00:00Z)

# Header $2 of message file $1, unfolded.
hdr() {
	awk -v name="$2" '
		/^$/ { exit }
		/^[ \t]/ { if (keep) { sub(/^[ \t]+/, " "); value = value $0 }; next }
		{ if (keep) exit; keep = (tolower($0) ~ "^" tolower(name) ":") }
		keep { value = substr($0, length(name) + 3) }
		END { print value }
	' "$1"
}
