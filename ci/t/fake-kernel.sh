# fake-kernel.sh - a tiny stand-in for the Debian linux-source tarball
#
# make_fake_tarball DIR SUBLEVEL: writes DIR/linux-source-6.1.tar.xz holding a
# "kernel" with the Debian top-level .gitignore rule and a printk.c, so the
# tree tools can be tested in seconds.
make_fake_tarball() {
	local dir=$1 sublevel=$2 src
	src=$dir/src.$sublevel/linux-source-6.1
	mkdir -p "$src/kernel/printk"
	printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = %s\nEXTRAVERSION =\n' \
		"$sublevel" >"$src/Makefile"
	printf '/*\n!/debian/\n' >"$src/.gitignore"
	seq -f 'line %g;' 1 60 >"$src/kernel/printk/printk.c"
	echo "sublevel $sublevel" >"$src/kernel/printk/version.c"
	tar -cJf "$dir/linux-source-6.1.tar.xz" -C "$(dirname "$src")" linux-source-6.1
}

# make_topic TOPICS NN-NAME DEPENDS: an empty topic directory.
make_topic() {
	local dir=$1/$2
	mkdir -p "$dir"
	printf 'topic_name=%s\ntopic_seed=none\ntopic_depends=%s\n' \
		"${2#*-}" "${3:-}" >"$dir/topic.conf"
}

# make_patch TREE TOPICDIR SED-SCRIPT SUBJECT: commit an edit of printk.c on a
# scratch branch of TREE and store it as a patch of the topic.
make_patch() {
	local tree=$1 dir script=$3 subject=$4 n
	dir=$(cd "$2" && pwd)
	n=$(ls "$dir"/*.patch 2>/dev/null | wc -l)
	git -C "$tree" checkout -q --detach
	sed -i "$script" "$tree/kernel/printk/printk.c"
	git -C "$tree" commit -q -a -m "$subject"
	git -C "$tree" format-patch -q --zero-commit --no-signature \
		--start-number $((n + 1)) -o "$dir" -1
	git -C "$tree" checkout -q -
}
