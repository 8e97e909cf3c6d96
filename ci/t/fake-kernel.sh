# shellcheck shell=bash
# fake-kernel.sh - a tiny stand-in for the Debian linux-source tarball
#
# The helpers are called in && chains of test cases, where errexit is
# off: their own commands are chained too, so that a failure shows.
#
# make_fake_tarball DIR SUBLEVEL [PATCHLEVEL]: writes DIR/linux-source-6.1.tar.xz
# (6.PATCHLEVEL) holding a "kernel" with the Debian top-level .gitignore
# rule and a printk.c, so the tree tools can be tested in seconds.
make_fake_tarball() {
	local dir=$1 sublevel=$2 series=6.${3:-1} src
	src=$dir/src.$series.$sublevel/linux-source-$series
	mkdir -p "$src/kernel/printk" &&
	printf 'VERSION = 6\nPATCHLEVEL = %s\nSUBLEVEL = %s\nEXTRAVERSION =\n' \
		"${series#6.}" "$sublevel" >"$src/Makefile" &&
	printf '/*\n!/debian/\n' >"$src/.gitignore" &&
	seq -f 'line %g;' 1 60 >"$src/kernel/printk/printk.c" &&
	echo "sublevel $sublevel" >"$src/kernel/printk/version.c" &&
	tar -cJf "$dir/linux-source-$series.tar.xz" -C "$(dirname "$src")" "linux-source-$series"
}

# make_topic TOPICS NN-NAME DEPENDS: an empty topic directory.
make_topic() {
	local dir=$1/$2
	mkdir -p "$dir" &&
	printf 'topic_name=%s\ntopic_seed=none\ntopic_depends=%s\n' \
		"${2#*-}" "${3:-}" >"$dir/topic.conf"
}

# make_patch TREE TOPICDIR SED-SCRIPT SUBJECT [FILE]: commit an edit of FILE
# (kernel/printk/printk.c) on a scratch branch of TREE and store it as a
# patch of the topic.
make_patch() {
	local tree=$1 dir script=$3 subject=$4 file=${5:-kernel/printk/printk.c} n
	dir=$(cd "$2" && pwd) &&
	n=$(find "$dir" -maxdepth 1 -name '*.patch' | wc -l) &&
	git -C "$tree" checkout -q --detach &&
	sed -i "$script" "$tree/$file" &&
	git -C "$tree" commit -q -a -m "$subject" &&
	git -C "$tree" format-patch -q --zero-commit --no-signature \
		--start-number $((n + 1)) -o "$dir" -1 &&
	git -C "$tree" checkout -q -
}

# make_fake_kbuild DIR SUBLEVEL [PATCHLEVEL]: the fake tarball with valid C in
# kernel/printk and just enough of kbuild for the lint and build stages: a
# Makefile with tinyconfig, olddefconfig, bzImage (a hash of .config and
# the objects, copies of the sources made when a source is newer, each
# noted in O/compiled; a source line with FAKE_WARNING gives a compiler
# warning when compiled,
# one with FAKE_W1_WARNING one at W=1;
# FAKE_BUILD_SECS makes it slow) and any object or directory as a goal
# (C=2 runs $CHECK, sparse, on its .c files), merge_config.sh, and a
# checkpatch.pl that finds PLANTED_ERROR and crashes on PLANTED_CRASH.
make_fake_kbuild() {
	local dir=$1 sublevel=$2 series=6.${3:-1} src
	make_fake_tarball "$dir" "$sublevel" "${series#6.}" &&
	src=$dir/src.$series.$sublevel/linux-source-$series &&
	seq -f 'static int printk_line_%g;' 1 60 >"$src/kernel/printk/printk.c" &&
	printf 'static const int sublevel = %s;\n' "$sublevel" >"$src/kernel/printk/version.c" &&
	printf '%s\n' 'static int printk_context;' \
		'static int printk_safe_enter(void) { return ++printk_context; }' \
		>"$src/kernel/printk/printk_safe.c" &&
	mkdir -p "$src/scripts/kconfig" &&
	cat >"$src/Makefile" <<-'MAKEFILE' &&
	VERSION = 6
	PATCHLEVEL = @PATCHLEVEL@
	SUBLEVEL = @SUBLEVEL@
	EXTRAVERSION =
	# A stand-in for kbuild (ci/t/fake-kernel.sh).
	.RECIPEPREFIX := >
	O ?= .
	CHECK ?= sparse
	srcs = $(sort $(shell find kernel -name '*.c'))
	MAKEFLAGS += -rR
	.PHONY: tinyconfig olddefconfig bzImage FORCE
	Makefile: ;
	tinyconfig:
	>@mkdir -p $(O) && echo CONFIG_FAKE_TINY=y >$(O)/.config
	olddefconfig: ;
	objs = $(patsubst %.c,$(O)/%.o,$(srcs))
	$(O)/%.o: %.c
	>@mkdir -p $(dir $@) && cp $< $@ && echo $< >>$(O)/compiled
	>@grep -Hn FAKE_WARNING $< | sed 's/^\([^:]*:[0-9]*\):.*/\1:1: warning: planted/' >&2 || true
	bzImage: $(objs)
	>@sleep $${FAKE_BUILD_SECS:-0}
	>@mkdir -p $(O)/arch/x86/boot
	>@cat $(O)/.config $(objs) | sha256sum >$(O)/arch/x86/boot/bzImage
	FORCE: ;
	$(filter-out tinyconfig olddefconfig bzImage,$(MAKECMDGOALS)): FORCE
	>@for f in $(if $(filter %/,$@),$(wildcard $@*.c),$(@:.o=.c)); do \
	>	if [ "$(C)" = 2 ]; then echo "  CHECK   $$f"; $(CHECK) $$f || exit; fi; \
	>	if [ "$(W)" = 1 ]; then grep -Hn FAKE_W1_WARNING $$f | sed 's/^\([^:]*:[0-9]*\):.*/\1:1: warning: planted at W=1/' >&2; fi; \
	>done
	MAKEFILE
	sed -i "s/@SUBLEVEL@/$sublevel/; s/@PATCHLEVEL@/${series#6.}/" "$src/Makefile" &&
	cat >"$src/scripts/kconfig/merge_config.sh" <<-'SH' &&
	#!/bin/sh
	# merge_config.sh -m -O DIR BASE FRAGMENT...: the fragments after BASE.
	[ "$1" = -m ] && [ "$2" = -O ] || exit 2
	out=$3
	shift 3
	cat "$@" >"$out/.config.new" && mv "$out/.config.new" "$out/.config"
	SH
	cat >"$src/scripts/checkpatch.pl" <<-'PERL' &&
	# A stand-in checkpatch: --version, an ERROR per PLANTED_ERROR, and
	# a crash on PLANTED_CRASH.
	if (grep { $_ eq '--version' } @ARGV) { print "Version: fake\n"; exit 0 }
	my $patch = $ARGV[-1];
	open(my $fh, '<', $patch) or die "$patch: $!";
	my $errors = 0;
	while (<$fh>) {
		die "checkpatch crashed\n" if /PLANTED_CRASH/;
		next unless /PLANTED_ERROR/;
		print "$patch:$.: ERROR: planted error\n";
		$errors++;
	}
	exit($errors ? 1 : 0);
	PERL
	chmod +x "$src/scripts/kconfig/merge_config.sh" &&
	tar -cJf "$dir/linux-source-$series.tar.xz" -C "$(dirname "$src")" "linux-source-$series"
}
