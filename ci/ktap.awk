# ktap.awk - results of the KTAP scenarios in a guest console log
#
# Input: the serial console log of one boot; -v scenarios=ci/scenarios
# gives the splats each scenario may cause (its 4th column), -v panic_end
# the ERE of panic()'s last line (ci/boot.sh).  Output, one
# line per scenario that started:  <name> <pass|fail|hang> [lost=N] [detail]
# A scenario without a KTAP result hangs, unless it is a panic scenario
# and the kernel panicked: that passes if each of the PANIC_LINES lines
# printed from NMI before the panic reached the console once, or was
# reported lost (panic_status), and so did panic()'s last line,
# "---[ end Kernel panic ...", which it prints from NMI too, after the
# consoles were flushed.  Problems
# with the KTAP stream itself are reported as the pseudo scenario "ktap":
# no version line, no plan, or (when the guest got to its end) a plan
# that does not match the number of results.
BEGIN {
	if (panic_end == "") {
		print "ktap.awk: -v panic_end=ERE is not set" > "/dev/stderr"
		usage_error = 1
		exit 2
	}
	PANIC_LINES = 20
	splat = "WARNING: |BUG: |INFO: |cut here ]|Oops: |general protection fault|kernel BUG at|Kernel panic - not syncing"
	while ((getline line < scenarios) > 0) {
		if (line ~ /^#/ || line == "")
			continue
		n = split(line, f, /  +/)
		allowed[f[1]] = (n >= 4 && f[4] != "-") ? f[4] : "^$"
	}
}

{
	sub(/\r$/, "")
	# The console prefix, "[    1.234567][    T1] "
	sub(/^\[ *[0-9]+\.[0-9]+\](\[ *[TC][0-9]+\])? /, "")
}

/^KTAP version 1$/ { version = 1; next }
/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; next }
/^# pstest: start [0-9]+ / { current = $5; order[++started] = current; next }
/^# pstest: end$/ { ended = 1; next }

/^(not )?ok [0-9]+ / {
	name = $0
	sub(/^(not )?ok [0-9]+ /, "", name)
	reason = ""
	if (i = index(name, " # ")) {
		reason = substr(name, i + 3)
		name = substr(name, 1, i - 1)
	}
	results++
	result[name] = reason ~ /^SKIP/ ? "skip" : ($1 == "ok") ? "pass" : "fail"
	detail[name] = reason
	current = ""
	next
}

/^# [a-z_]+: .*lost [0-9]+$/ { lost[substr($2, 1, length($2) - 1)] = $NF }

# A splat while the kernel boots fails every scenario of the boot.
current == "" && $0 ~ splat && early == "" { early = $0 }
current == "" { next }

/^printk_safe_test: panic line [0-9]+$/ { panic_line[current, $NF]++ }
/^printk_safe_test: [a-z_]+ held [0-9]+$/ { held[current] += $NF }
/^Lost [0-9]+ message\(s\)!$/ { reported_lost[current] += $2 }
/Kernel panic - not syncing/ { panicked[current] = 1 }
$0 ~ panic_end { ended_panic[current] = 1 }

$0 ~ splat && $0 !~ allowed[current] && !(current in unexpected) {
	unexpected[current] = $0
}

# Each of the PANIC_LINES lines reached the console once, or was reported
# lost together with the messages the scenario says the buffers held
# ("<name> held N"), exactly; and panic() printed its last line.
function panic_status(name,    k, n, missing, twice, unprinted, lost) {
	for (k = 0; k < PANIC_LINES; k++) {
		n = panic_line[name, k] + 0
		if (n != 1)
			missing = missing " " k "(x" n ")"
		if (n == 0)
			unprinted++
		if (n > 1)
			twice = 1
	}
	lost = reported_lost[name] + 0
	if (twice || (unprinted && !lost && !held[name]))
		return "fail NMI lines not printed once each:" missing
	if (lost != unprinted + held[name])
		return "fail " unprinted + 0 " NMI line(s) not printed and " held[name] + 0 \
		    " held, but " lost " reported lost"
	if (!ended_panic[name])
		return "fail no '---[ end Kernel panic' line"
	if (unprinted)
		return "pass " PANIC_LINES - unprinted " NMI lines before the panic, " lost \
		    " reported lost (" held[name] + 0 " held), and its end line"
	return "pass " PANIC_LINES " NMI lines before the panic, and its end line"
}

END {
	if (usage_error)
		exit 2
	if (!version)
		print "ktap fail no 'KTAP version 1' line"
	else if (!plan)
		print "ktap fail no KTAP plan"
	else if (ended && results != plan)
		print "ktap fail plan 1.." plan " but " results " results"
	for (i = 1; i <= started; i++) {
		name = order[i]
		if (name in result)
			out = result[name] (detail[name] == "" ? "" : " " detail[name])
		else if (panicked[name] && allowed[name] ~ /Kernel panic/)
			out = panic_status(name)
		else
			out = "hang no result"
		if (out ~ /^pass/ && (name in unexpected))
			out = "fail unexpected: " unexpected[name]
		if (out ~ /^pass/ && early != "")
			out = "fail splat before the tests: " early
		if (name in lost)
			sub(/^[a-z]+/, "& lost=" lost[name], out)
		print name, out
	}
}
