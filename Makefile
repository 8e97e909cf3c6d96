# Makefile - the printk maintainer tree workflow, one target per stage.
#
# Kernel tree, build output and mail output live outside this repository
# (default ~/.cache/printk-tree, see ci/lib.sh); override with
# PRINTK_CACHE=... or PRINTK_TREE=... on the command line.
SHELL := /bin/bash
export PRINTK_CACHE PRINTK_TREE

.PHONY: help deps setup topics export-topics lint build boot list list-stop send mail review pull bench ci check

help: ## list the targets
	@awk -F':.*## ' '/^[a-z-]+:.*## / { printf "  %-14s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

deps: ## install the Debian packages the stages need (apt, needs root; BASES="6.1 6.12" for both kernel sources)
	@tree-setup/install-deps.sh

setup: deps ## import each installed linux-source tarball of tree-setup/bases as distro/<version>
	@tree-setup/setup.sh

topics: ## regenerate topic/* and for-next from topics/ onto the base (BASE=6.12: topic/*-6.12, for-next-6.12)
	@topics/regen.sh

export-topics: ## save commits made on topic branches back into topics/
	@topics/export.sh

lint: ## checkpatch, sparse and coccinelle on every topic patch
	@ci/lint.sh

build: ## build vanilla, every topic and mutant, each in an incremental O= dir of its own
	@ci/build.sh

boot: ## boot the builds in QEMU, run the KTAP scenarios, print the table
	@ci/boot.sh

list: ## serve the printk list (public-inbox) on 127.0.0.1
	@mail/list.sh start

list-stop: ## stop the list's server
	@mail/list.sh stop

send: ## send the revisions up to V (make send V=5) to the list, with b4 send
	@mail/export.sh v$(or $(V),$(error make send needs the revision: make send V=5))

mail: ## send v1..v6 to the list, fetch them back, compile each revision
	@mail/export.sh

review: ## reviewers reply on the list; b4 trailers -u and b4 shazam take the trailers
	@mail/review.sh

pull: ## merge the applied series into for-linus, tag it, mail the pull request and b4 ty
	@mail/pull.sh

bench: ## printk cost and loss, series vs vanilla, and pipeline timings
	@ci/bench.sh

ci: ## setup, topics, lint, build, boot, mail, review, pull: the whole job, in order (then the other bases imported)
	@ci/pipeline.sh

check: ## the project's own tests
	@ci/run-tests.sh
