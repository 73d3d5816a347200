# SPDX-License-Identifier: GPL-2.0
#
# irn: a loss-tolerant software RoCEv2 RDMA device.
#
#   make            build rdma_irn.ko against KDIR
#   make demo       install what is missing, build, and run the quick
#                   lossless-against-lossy comparison; prints the tables
#   make compare    the full comparison (COMPARE_ARGS="--quick", "--help";
#                   "--one-guest": both ends in one guest, irn and TCP only)
#   make results DIR=results/compare-DATE  publish that finished comparison:
#                   Documentation/results.rst, its plots, README's headline
#   make check      the CI tier: KUnit and the quick cut of the integration
#                   tests under QEMU, ends with "N passed, N failed"
#   make check T=NAME        one test (scripts/tests/NAME.sh, debug:NAME on
#                   the debug kernel, kunit:SUITE.CASE)
#   make check-full every test whole, both kernels (the release gate)
#   make check-debug  every test on the KASAN/lockdep/kmemleak kernel
#   make check-6.12 the CI tier's integration tests on Debian's 6.12 line
#   make lint       checkpatch --strict, sparse and W=1
#   make bench      stock rdma_rxe against irn on a lossless link, taking
#                   turns in one boot, with ratios (compare.sh --preset
#                   bench; BENCH_ARGS="--rounds 5")
#   make incast     N senders through a switch guest to one receiver, per
#                   congestion control (INCAST_ARGS="--help")
#   make mpbench    multipath on two shaped cables: sprayed against pinned,
#                   a lossy and a cut cable, rxe and gbn beside them
#                   (MPBENCH_ARGS="--help")
#   make install    modules_install + depmod for KDIR's kernel
#
# KDIR defaults to the running kernel's build tree, or to Debian 12's 6.1
# headers when the running kernel has none (as on a build host).

KVER_RUNNING := $(shell uname -r)
KDIR_DEBIAN := $(firstword $(wildcard /usr/src/linux-headers-6.1.*-amd64))
ifneq ($(wildcard /lib/modules/$(KVER_RUNNING)/build/Makefile),)
KDIR ?= /lib/modules/$(KVER_RUNNING)/build
else
KDIR ?= $(KDIR_DEBIAN)
endif

.PHONY: all module modules clean install dkms-install lint deps check kunit \
	integration check-full check-debug check-6.12 demo compare results bench \
	incast mpbench help

DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC := /usr/src/irn-$(DKMS_VERSION)

all: module

module modules:
	@test -n "$(KDIR)" || { echo "irn: no kernel build tree; run 'make deps' or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	@test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	@test ! -f tools/Makefile || $(MAKE) -C tools clean

install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra modules_install
	depmod -a $(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null || echo $(KVER_RUNNING))

# Installs the sources for DKMS, which then builds and installs the module
# for every installed kernel with headers (DKMS_KERNELS="6.1.0-57-amd64"
# picks), and again on kernel upgrades.
DKMS_KERNELS ?= $(patsubst /lib/modules/%/build/Makefile,%,$(wildcard /lib/modules/*/build/Makefile))
dkms-install:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r Kbuild dkms.conf drivers include kunit $(DKMS_SRC)/
	dkms add -m irn -v $(DKMS_VERSION) || true
	@test -n "$(DKMS_KERNELS)" || { echo "dkms-install: no kernel headers in /lib/modules/*/build"; exit 1; }
	for k in $(DKMS_KERNELS); do dkms install -m irn -v $(DKMS_VERSION) -k $$k || exit 1; done

deps:
	scripts/deps.sh

lint:
	scripts/lint.sh

kunit:
	scripts/check.sh --kunit-only

integration:
	scripts/check.sh --integration-only

# T=NAME: one test (see scripts/check.sh --help)
check:
	scripts/check.sh --tier ci $(if $(T),"$(T)")

check-full:
	scripts/check.sh --tier full $(if $(T),"$(T)")

check-debug:
	scripts/check.sh --tier full --debug $(if $(T),"$(T)")

# KUnit and the debug kernel are the harness's own 6.1 builds: not here.
check-6.12:
	IRN_KERNEL_LINE=6.12 IRN_CHECK_DEBUG=0 \
		scripts/check.sh --tier ci --integration-only $(if $(T),"$(T)")

# demo.sh installs what is missing, then runs compare.sh --preset demo
demo:
	scripts/demo.sh

compare:
	scripts/compare.sh $(COMPARE_ARGS)

# DIR: the results folder of a finished make compare
results:
	@test -n "$(DIR)" || { echo "irn: make results DIR=results/compare-DATE (a finished make compare)" >&2; exit 1; }
	scripts/compare.sh --publish "$(DIR)"

bench:
	scripts/compare.sh --preset bench $(BENCH_ARGS)

incast:
	scripts/incast.sh $(INCAST_ARGS)

mpbench:
	scripts/mpbench.sh $(MPBENCH_ARGS)

help:
	@sed -n '3,32p' Makefile
