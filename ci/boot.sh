#!/usr/bin/env bash
# boot.sh - boot every built kernel in QEMU and run the KTAP scenarios
#
# Each kernel of the build plan boots with the test initramfs
# (ci/guest/init.c): one boot runs the "main" scenarios of ci/scenarios,
# resumed after the scenario that hung, and each panic scenario gets a
# boot of its own.  ci/ktap.awk reads the console logs.  A scenario must
# pass on a kernel unless the topic that fixes it (topic_fixes in
# topic.conf) is not in that kernel; the others are shown, not judged.
# An image booted before with the same harness is not booted again (see
# boot_kernel; FORCE=1 boots all).
# The table goes to $OUT/boot/results.md.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BOOT_OUT=$OUT/boot
CACHE=$BOOT_OUT/by-key
ACCEL=${ACCEL:-tcg}		# ACCEL=kvm where KVM works
HANG_SECS=${HANG_SECS:-15}	# silence on the console that means a hang
BOOT_TIMEOUT=${BOOT_TIMEOUT:-300}
INITRAMFS=$BOOT_OUT/initramfs.cpio

make_initramfs() {
	local dir=$BOOT_OUT/initramfs
	mkdir -p "$dir"
	gcc -static -O2 -Wall -Werror -o "$dir/init" "$TOP/ci/guest/init.c"
	tgit show "$(base_ref):usr/gen_init_cpio.c" >"$dir/gen_init_cpio.c"
	gcc -O2 -o "$dir/gen_init_cpio" "$dir/gen_init_cpio.c"
	cat >"$dir/list" <<-LIST
	dir /dev 0755 0 0
	nod /dev/console 0600 0 0 c 5 1
	dir /proc 0755 0 0
	dir /sys 0755 0 0
	file /init $dir/init 0755 0 0
	LIST
	"$dir/gen_init_cpio" "$dir/list" >"$INITRAMFS"
}

# Start QEMU in the background ($! is its pid): kernel $1, extra command
# line $3, console to $2.
qemu_start() {
	: >"$2"
	qemu-system-x86_64 -accel "$ACCEL" -smp 4 -m 256 -display none \
		-monitor none -no-reboot -serial "file:$2" \
		-kernel "$1" -initrd "$INITRAMFS" \
		-append "console=ttyS0 panic=-1 log_buf_len=4M printk.devkmsg=on $3" \
		>/dev/null 2>&1 &
}

# Boot $1 with extra command line $3, console to $2; prints done or hang.
qemu_boot() {
	local log=$2 pid size last=-1 still=0 waited=0
	qemu_start "$1" "$log" "$3"
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		waited=$((waited + 1))
		size=$(stat -c %s "$log")
		if [ "$size" = "$last" ]; then
			still=$((still + 1))
		else
			still=0 last=$size
		fi
		if [ "$still" -ge "$HANG_SECS" ] || [ "$waited" -ge "$BOOT_TIMEOUT" ]; then
			kill "$pid"
			wait "$pid" 2>/dev/null || true
			say hang
			return
		fi
	done
	wait "$pid" || true
	say done
}

scenario_names() { awk -v boot="$1" '!/^#/ && NF && $2 == boot { print $1 }' "$TOP/ci/scenarios"; }

# Scenario results of console log $1; a hang names the log.
ktap() {
	awk -v scenarios="$TOP/ci/scenarios" -f "$TOP/ci/ktap.awk" "$1" |
		sed "s|^\([a-z_]* hang .*\)|\1 [$1]|"
}

# Run all scenarios on kernel $1; results in $BOOT_OUT/$1.results.
run_kernel() {
	local name=$1 image=$IMAGES/$1.bzImage res=$BOOT_OUT/$1.results
	local main from=1 n=0 log last scenario
	main=$(scenario_names main)
	: >"$res"
	while [ "$from" -le "$(wc -w <<<"$main")" ]; do
		n=$((n + 1))
		log=$BOOT_OUT/$name.main$n.log
		qemu_boot "$image" "$log" "pstest.from=$from" >/dev/null
		ktap "$log" >"$log.results"
		if grep -q '^ktap ' "$log.results"; then
			for scenario in $main; do
				say "$scenario fail boot did not reach the tests ($log)"
			done >>"$res"
			break
		fi
		cat "$log.results" >>"$res"
		last=$(tail -n 1 "$log.results" | cut -d' ' -f1)
		# Resume after the scenario that did not finish.
		from=$(($(grep -nx "$last" <<<"$main" | cut -d: -f1) + 1))
		grep -q "^$last hang" "$log.results" || break
	done
	for scenario in $(scenario_names own); do
		log=$BOOT_OUT/$name.$scenario.log
		qemu_boot "$image" "$log" "pstest.only=$scenario" >/dev/null
		ktap "$log" | grep "^$scenario " >>"$res" ||
			say "$scenario fail did not start ($log)" >>"$res"
	done
}

# Scenarios fixed by each topic, and the topics in each kernel.
declare -A FIXED_BY PARENT
load_fixes() {
	local dir s
	for dir in $(topic_dirs); do
		load_topic "$dir"
		PARENT[$topic_name]=$topic_depends
		for s in $topic_fixes; do
			FIXED_BY[$s]=$topic_name
		done
	done
}

# Does kernel $1 contain topic $2?
has_topic() {
	local t=$1
	[ "$1" = for-next ] && return 0
	while [ -n "$t" ] && [ "$t" != vanilla ]; do
		[ "$t" = "$2" ] && return 0
		t=${PARENT[$t]:-}
	done
	return 1
}

must_pass() {
	local fixer=${FIXED_BY[$2]:-}
	[ -z "$fixer" ] || has_topic "$1" "$fixer"
}

cell() {
	local status=$1 detail=$2 lost=
	[[ "$detail" =~ ^lost=([0-9]+) ]] && lost=" (lost ${BASH_REMATCH[1]})"
	printf '%s%s' "$status" "$lost"
}

# Kernels $@ in the order of the table: vanilla, the topics in series
# order, for-next.
table_order() {
	local dir k
	for k in vanilla $(for dir in $(topic_dirs); do load_topic "$dir"; say "$topic_name"; done) for-next; do
		[[ " $* " == *" $k "* ]] && say "$k"
	done
	return 0
}

# Result lines of kernel $1 that count: scenarios that must pass and did
# not.
counted_failures() {
	local s line
	for s in $(scenario_names main) $(scenario_names own); do
		line=$(grep -m1 "^$s " "$BOOT_OUT/$1.results" || say "$s missing")
		[[ "$line" == "$s pass"* ]] && continue
		! must_pass "$1" "$s" || say "$line"
	done
}

# The Markdown table and the list of failures; returns 1 on a failure.
report() {
	local kernels k s line status detail md=$BOOT_OUT/results.md
	mapfile -t kernels < <(table_order "$@")
	{
		say "# printk_safe boot scenarios"
		say
		say "$(date -u '+%Y-%m-%d %H:%M UTC'), QEMU $ACCEL -smp 4, base $(base_ref)."
		say "Cells: pass / fail / hang (lost N = messages reported lost)."
		say "A cell marked **!** must pass on that kernel and did not."
		say
		printf '| scenario |'; printf ' %s |' "${kernels[@]}"; say
		printf '|---|'; printf -- '---|%.0s' "${kernels[@]}"; say
		for s in $(scenario_names main) $(scenario_names own); do
			printf '| %s |' "$s"
			for k in "${kernels[@]}"; do
				line=$(grep -m1 "^$s " "$BOOT_OUT/$k.results" || say "$s missing")
				status=$(cut -d' ' -f2 <<<"$line")
				detail=$(cut -d' ' -f3- <<<"$line")
				printf ' %s' "$(cell "$status" "$detail")"
				if [ "$status" != pass ] && must_pass "$k" "$s"; then
					printf ' **!**'
				fi
				printf ' |'
			done
			say
		done
		say
		say "## Failures that count"
		say
		for k in "${kernels[@]}"; do
			counted_failures "$k" | while read -r line; do
				say "- $k: $line"
				[[ "$line" =~ \ hang\ .*\[(.*)\]$ ]] || continue
				say
				say "  Last 40 console lines:"
				say
				tail -n 40 "${BASH_REMATCH[1]}" | sed 's/^/      /'
			done
		done
	} >"$md"
	cat "$md"
	! grep -q '^- ' "$md"
}

# Boot kernel $1, unless the same image already passed these scenarios
# with this harness: then its results come from $CACHE.  Results with a
# failure that counts are not kept, so that the next run boots again.
boot_kernel() {
	local name=$1 start=$SECONDS key how=booted
	key=$CACHE/$(key_of "$(sha1sum <"$IMAGES/$name.bzImage")" "$HARNESS")
	if cached "$key.results"; then
		cp "$key.results" "$BOOT_OUT/$name.results"
		touch "$key.results"
		how="up to date"
	else
		run_kernel "$name"
		[ -n "$(counted_failures "$name")" ] || cp "$BOOT_OUT/$name.results" "$key.results"
	fi
	say "boot: $name: $how, $(grep -c ' pass' "$BOOT_OUT/$name.results") passed, $(grep -vc ' pass' "$BOOT_OUT/$name.results") not, $((SECONDS - start))s"
}

main() {
	local name refs kernels=()
	need_tree
	mkdir -p "$BOOT_OUT"
	prune_cache "$CACHE"
	# Everything a boot's results depend on besides the image.
	HARNESS=$(cat "$TOP"/ci/{boot.sh,ktap.awk,scenarios,guest/init.c}
		qemu-system-x86_64 --version
		say "$ACCEL $HANG_SECS $BOOT_TIMEOUT")
	make_initramfs
	load_fixes
	while read -r name refs; do
		[ -f "$IMAGES/$name.bzImage" ] || die "no image for $name: run 'make build' first"
		boot_kernel "$name"
		kernels+=("$name")
	done < <(build_plan)
	report "${kernels[@]}" || die "boot: scenarios failed where they must pass (see above, logs in $BOOT_OUT)"
}

# Sourced by the harness self-test for its functions.
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
