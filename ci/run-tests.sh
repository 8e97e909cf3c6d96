#!/usr/bin/env bash
# run-tests.sh - run the project's own tests (make check) under prove's
# harness, TAP::Harness
#
# Every ci/t/t*.sh script and cocci/run-tests.sh prints TAP (or the
# scripts named on the command line).  The harness checks each script's
# plan, exit status and output: a script that dies part way, plans wrong
# or exits non-zero is a failure even where its lines said ok.  A case
# skipped ("ok N # SKIP why") or a script skipped ("1..0 # SKIP why") is
# counted as a skip, never as a pass.  Ends with one line:
# "N passed, N failed, N skipped".
# TEST_JOBS scripts run at a time (default: one per CPU), each one's
# output shown whole when it ends; each script has a cache of its own
# (test-lib.sh), so that they cannot meet.  The mail tests, the longest,
# start first and the others run beside them.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
	local first=("$TOP/ci/t/t0600-mail.sh" "$TOP/ci/t/t0610-mail-6.12.sh") tests=("$@") script
	if [ $# = 0 ]; then
		tests=("${first[@]}")
		for script in "$TOP"/ci/t/t[0-9]*.sh "$TOP/cocci/run-tests.sh"; do
			[[ " ${first[*]} " == *" $script "* ]] || tests+=("$script")
		done
	fi
	# A failure is reported by the harness and the totals line.
	TEST_JOBS=${TEST_JOBS:-$(nproc)} perl - "${tests[@]}" <<-'PERL' || exit 1
	use strict;
	use warnings;
	use TAP::Harness;

	# The File formatter on a terminal too: the Console one shows nothing
	# of a script while another runs.
	my $harness = TAP::Harness->new({ exec => ['bash'], verbosity => 1, merge => 1, timer => 1,
					  jobs => $ENV{TEST_JOBS},
					  formatter_class => 'TAP::Formatter::File' });
	my $aggregate = $harness->runtests(@ARGV);
	my ($passed, $failed, $skipped) = (0, 0, 0);
	for my $script ($aggregate->descriptions) {
		my ($parser) = $aggregate->parsers($script);
		if ($parser->skip_all) {
			$skipped++;
			next;
		}
		$skipped += $parser->skipped;
		$passed += $parser->passed - $parser->skipped;
		$failed += $parser->failed;
		# The script itself failed: a plan that does not match, or an
		# exit status that its failed cases do not explain.
		if ($parser->parse_errors ||
		    (($parser->exit || $parser->wait) && !$parser->failed)) {
			print "not ok - $script: ", join('; ', $parser->parse_errors,
				$parser->exit ? "exit status " . $parser->exit : (),
				$parser->wait ? "wait status " . $parser->wait : ()), "\n";
			$failed++;
		}
	}
	print "$passed passed, $failed failed, $skipped skipped\n";
	exit($failed ? 1 : 0);
	PERL
}

main "$@"
