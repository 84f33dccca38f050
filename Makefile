# SPDX-License-Identifier: GPL-2.0
#
# kportreserve workbench: graft this tree onto Debian's Linux source,
# build it with the kernel's own tools and test it in UML and QEMU.
#
#   make demo      boot the kernel with an example policy and watch it work
#                  (DEMO=real: on make e2e's Debian system, real programs)
#   make check     every test; each stage ends with "NAME: N passed, N failed"
#   make deb       the Debian packages in build/deb (DEB_KERNEL=0: no kernel)
#   make e2e       kportreserve on a Debian 13 (trixie) system booted with systemd
#
# KVER=7.2 (default) or 6.12 picks the kernel series; V=1 shows the build.

KVER ?= 7.2
export KVER
WB := tools/workbench

.PHONY: all deps graft kunit kernel kernel-debug print-kernel selftest \
	selftest-debug upstream bench demo shell lint docs fuzz admin patches mutants stages \
	workbench e2e check deb clean help

all: check

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@$(WB)/deps.sh

graft: deps
	@$(WB)/graft.sh

kunit: deps
	@$(WB)/kunit.sh

kernel: deps
	@$(WB)/kernel.sh >/dev/null

kernel-debug: deps
	@$(WB)/kernel.sh debug >/dev/null

# The path of the bootable image, and nothing else on standard output.
print-kernel: deps
	@$(WB)/print-kernel.sh

selftest: deps
	@$(WB)/selftest.sh

selftest-debug: deps
	@$(WB)/selftest.sh debug

# The kernel's own bind, Landlock and LSM tests, with and without kportreserve.
upstream: deps
	@$(WB)/upstream.sh

# bind() against the same kernel without kportreserve and against Landlock,
# in a guest whose clock counts instructions (build/bench-$(KVER)).
bench: deps
	@$(WB)/bench.sh

demo: deps
	@DEMO=$(DEMO) $(WB)/demo.sh

shell: deps
	@$(WB)/shell.sh

lint: deps
	@$(WB)/lint.sh

# Each stage of the LSM split into patches (tools/workbench/series),
# built from the plain test kernel and booted with the selftests of what
# it has (build/stages-$(KVER)).
stages: deps
	@$(WB)/stages.sh

# The git format-patch series against pristine Linux, checked with
# checkpatch.pl --strict and git am (build/patches-$(KVER)).
patches: deps
	@$(WB)/patches.sh

# kernel-doc -Wall on the sources, docutils on the admin guide and README.
docs: deps
	@$(WB)/docs.sh

# kportreserve(8) against a fake securityfs directory.
admin: deps
	@$(WB)/admin.sh

# make fuzz SECONDS=600 fuzzes the parser for ten minutes.
fuzz: deps
	@$(WB)/fuzz.sh $(SECONDS)

# The kportreserve package (the command, its man page, the unit and
# /etc/kportreserve/) with debhelper, checked with lintian, and the
# distribution-shaped kernel with the kernel's bindeb-pkg; DEB_KERNEL=0
# leaves the kernel out.
DEB_KERNEL ?= 1
deb: deps
	@DEB_KERNEL=$(DEB_KERNEL) $(WB)/deb.sh

# Each deliberate defect of tools/workbench/mutants/ must fail a test.
mutants: deps
	@$(WB)/mutants.sh

# The VM lanes fail on the kernel's reports: the workbench's own test.
workbench: deps
	@$(WB)/workbench.sh

# A Debian trixie image (mmdebstrap, cached in build/e2e; E2E_SUITE=bookworm
# for Debian 12) with the kportreserve and kernel packages installed by
# apt, booted four times with systemd as PID 1 (the last with SELinux
# enforcing); a stage of make check.
e2e: deps
	@$(WB)/e2e.sh

check: deps
	@$(WB)/check.sh

clean:
	rm -rf build
