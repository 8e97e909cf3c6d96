#!/usr/bin/env bash
# t0610-mail-6.12.sh - the series on 6.12: mail/export.sh, review.sh and
# pull.sh with BASE=6.12 send it as a b4 series of its own and take it
# into for-next-6.12 and for-linus-6.12, leaving the default base's alone
#
# On a clone of the kernel tree of make ci, with a list of its own
# (mail-lib.sh), as t0600 for the default base.
. "$(dirname "$0")/mail-lib.sh"

tgit rev-parse -q --verify "distro/6.12.118^{commit}" >/dev/null ||
	skip_all "needs distro/6.12.118 (make ci imports it where linux-source-6.12 is installed)"

test_expect_success 'the 6.12 series is a b4 series of its own, made of the 6.12 variants' '
	BASE=6.12 bash "$TOP/mail/export.sh" >log 2>&1 &&
	test_grep "^mail: v1: sent as <.*>, 6 patches + cover" log &&
	test_grep "^mail: v2: sent as <.*>, 6 patches + cover" log &&
	test_grep "^mail: v3: sent as <.*>, 6 patches + cover" log &&
	cover=$OUT/mail-6.12/v1/0000.eml &&
	test "$(hdr "$cover" Subject)" = "[PATCH RFC 0/6] printk: keep what 6.12'"'"'s ringbuffer drops in printk_safe buffers" &&
	test_grep "^change-id: $(cat "$TOP/mail/6.12/change-id")\$" "$cover" &&
	test_grep "^base-commit: $(tgit rev-parse "distro/6.12.118^{commit}")\$" "$cover" &&
	test_grep "(is_printk_legacy_deferred())" "$cover" &&
	cover2=$OUT/mail-6.12/v2/0000.eml &&
	test_grep "^Subject: \[PATCH RFC v2 0/6\] " "$cover2" &&
	test_grep "^- Link to v1: .*$(hdr "$cover" Message-Id | tr -d "<>")" "$cover2" &&
	test_grep "^- the flush lock is an owner word" "$cover2" &&
	test_grep "^Changes in v3:" "$OUT/mail-6.12/v3/0000.eml" &&
	test "$(tgit rev-parse "mail-6.12/v3^{tree}")" = "$(tgit rev-parse "topic/panic-locks-6.12^{tree}")" &&
	test "$(tgit rev-parse "mail-6.12/v1^{tree}")" != "$(tgit rev-parse "mail-6.12/v2^{tree}")" &&
	test "$(tgit rev-parse "mail-6.12/v2^{tree}")" != "$(tgit rev-parse "mail-6.12/v3^{tree}")" &&
	# 3 covers and 3 x 6 patches, on a list of its own
	test "$(list_count)" = 21 &&
	# tagged as sent, and nothing else
	printf "refs/tags/sent/printk-safe-6.12-v%s\n" 1 2 3 >expect &&
	tgit for-each-ref --format="%(refname)" refs/tags/sent/ >actual &&
	test_cmp expect actual
'

test_expect_success 'the 6.12 series: review applies v3 on 6.12 into for-next-6.12, pull sends for-linus-6.12' '
	# the round of make ci on the default base, which use_kernel_tree
	# leaves out, is not touched by the 6.12 round, nor is anything else
	tag61=printk-for-$(base_ref | sed "s|^distro/||") &&
	tgit fetch -q --no-tags "$REAL_TREE" refs/heads/for-linus:refs/heads/for-linus \
		"refs/heads/applied/printk-safe-v*:refs/heads/applied/printk-safe-v*" \
		"refs/tags/$tag61:refs/tags/$tag61" &&
	tgit for-each-ref --format="%(refname) %(objectname)" | grep -v "6\.12" >default.before &&
	test_grep "^refs/tags/$tag61 " default.before &&
	base612=$(tgit rev-parse "distro/6.12.118^{commit}") &&
	{ BASE=6.12 bash "$TOP/mail/review.sh" >log 2>&1 || { cat log; return 1; }; } &&
	test_grep "^review: v3: 4 replies posted to <.*>, 0 already on the list" log &&
	b=applied/printk-safe-6.12-v3 &&
	test "$(tgit rev-parse $b^{tree})" = "$(tgit rev-parse mail-6.12/v3^{tree})" &&
	test "$(tgit rev-parse $b~6)" = "$base612" &&
	tgit log -1 --format=%B $b~4 | grep -qxF "Reviewed-by: Rita Reviewer <rita.reviewer@printk-list.test>" &&
	tgit log -1 --format=%B $b | grep -qxF "Acked-by: Andy Acker <andy.acker@printk-list.test>" &&
	test "$(tgit log --format=%B $b~6..$b | grep -c "^Tested-by: ")" = 6 &&
	test_grep "^review: v3: for-next-6.12 holds 6 of the 6 patches of $b" log &&
	tgit merge-base --is-ancestor $b for-next-6.12 &&
	{ BASE=6.12 bash "$TOP/mail/pull.sh" >log 2>&1 || { cat log; return 1; }; } &&
	tag=printk-for-6.12.118 &&
	test "$(tgit rev-parse "for-linus-6.12^2")" = "$(tgit rev-parse $b)" &&
	test "$(tgit rev-parse "for-linus-6.12^1")" = "$base612" &&
	test "$(tgit rev-parse "$tag^{commit}")" = "$(tgit rev-parse for-linus-6.12)" &&
	test_grep "^pull: pull request for $tag sent to the list" log &&
	test_grep "^pull: b4 ty: 1 thank-you(s) sent" log &&
	tgit for-each-ref --format="%(refname) %(objectname)" | grep -v "6\.12" >default.after &&
	test_cmp default.before default.after
'

test_done
