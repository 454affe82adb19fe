# SPDX-License-Identifier: GPL-2.0
#
# vroce: out-of-tree build and the project's entry points.
#
#   make            build vroce.ko (and the demo module vroce_demo.ko) against
#                   installed kernel headers ($(KDIR))
#   make check      every check CI runs (installs what is missing first)
#   make demo       the main job on the emulated device (installs only what
#                   it uses)
#   make deps       install what 'make check' uses (PROFILE=demo: what
#                   'make demo' uses); make check and make demo do it too
#   make bench      MTR and data-path timings (C, Rust, rxe) and perftest, in the test
#                   kernels
#   make kunit      the KUnit suites in the C test kernel
#                   (VROCE_ABI_IMPL=rust: in the Rust one)
#   make bindings   regenerate bindings/vroce_abi_generated.rs (bindgen)
#   make rust-lint  rustfmt, clippy and the bindings check
#   make install    install vroce.ko for the headers' release (depmod,
#                   INSTALL_MOD_PATH, signed with VROCE_SIGN_KEY/_CERT
#                   if given) and the provider (DESTDIR)
#   make clean      remove everything the build made
#   make compile_commands.json  a compilation database for clangd
#   make help       list the targets
#
# KDIR defaults to the running kernel's build tree when it exists, else to
# the headers of the release scripts/install-deps.sh picked (the installed
# linux-source-6.12's, scripts/kernel-release.sh), else to the newest
# Debian linux-headers-6.12.*-amd64.

# Whether KDIR was given (make dkms then builds for its release alone).
KDIR_GIVEN := $(filter command line environment,$(origin KDIR))
ifeq ($(origin KDIR),undefined)
KDIR := $(or $(wildcard /lib/modules/$(shell uname -r)/build), \
	     $(shell scripts/kernel-release.sh --headers 2>/dev/null), \
	     $(shell ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n 1))
endif

# Kconfig symbols for an out-of-tree build: the headers know nothing of ours.
# The demo module is built too (so lint covers it), and the KUnit module
# where the target kernel has KUnit.
VROCE_KCONFIG := CONFIG_VROCE=m CONFIG_VROCE_HCA=y CONFIG_VROCE_DEMO=m
ifneq ($(KDIR),)
ifneq ($(shell grep -s '^CONFIG_KUNIT=[ym]' $(KDIR)/include/config/auto.conf),)
VROCE_KCONFIG += CONFIG_VROCE_KUNIT_TEST=m
endif
endif

KBUILD_ARGS = -C $(KDIR) M=$(CURDIR) $(VROCE_KCONFIG)
# What 'make install' deploys: the driver with its emulated HCA, not the
# demo ULP or the KUnit module.
DEPLOY_ARGS = -C $(KDIR) M=$(CURDIR) CONFIG_VROCE=m CONFIG_VROCE_HCA=y
# The release the headers are for (not the name of their directory), for
# modules_install and depmod; INSTALL_MOD_PATH stages the install. It is
# UTS_RELEASE, what the kernel reports and puts in vermagic:
# include/config/kernel.release of Debian's 6.1 headers holds the upstream
# version instead (6.1.192, 6.1.192-rt64 for 6.1.0-57-amd64, -rt-amd64).
KRELEASE = $(or $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
		$(KDIR)/include/generated/utsrelease.h 2>/dev/null), \
		$(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null))
# Installed under updates/ on every line (6.1's Kbuild defaults to extra/,
# 6.12's to updates/). Signing: with VROCE_SIGN_KEY and VROCE_SIGN_CERT
# set, the module is signed with them (the kernel's scripts/sign-file);
# without, it is not, and 'make install' says so. Distribution headers
# carry no signing key, so the kernel's own CONFIG_MODULE_SIG_ALL signing
# is always turned off.
VROCE_SIGN_HASH ?= sha256

.PHONY: all modules install clean check lint kunit deps demo bench bindings \
	rust-lint help compile_commands.json provider install-provider \
	deploy-modules dkms-source dkms dkms-remove deb

all: modules

modules install clean deploy-modules: kdir-set
modules:
	$(MAKE) $(KBUILD_ARGS) modules
# What DKMS builds (dkms.conf): vroce.ko alone.
deploy-modules:
	$(MAKE) $(DEPLOY_ARGS) modules
install: install-provider
	@test -n "$(KRELEASE)" || \
	{ echo "vroce: $(KDIR) has no kernel release (include/generated/utsrelease.h)" >&2; exit 1; }
	$(MAKE) $(DEPLOY_ARGS) modules
ifneq ($(VROCE_SIGN_KEY),)
	$(KDIR)/scripts/sign-file $(VROCE_SIGN_HASH) $(VROCE_SIGN_KEY) \
		$(VROCE_SIGN_CERT) vroce.ko
	@echo "vroce: vroce.ko signed with $(VROCE_SIGN_KEY)"
else
	@echo "vroce: vroce.ko is not signed (set VROCE_SIGN_KEY and VROCE_SIGN_CERT to sign it)"
endif
	$(MAKE) $(DEPLOY_ARGS) CONFIG_MODULE_SIG_ALL= \
		INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) KERNELRELEASE=$(KRELEASE) \
		INSTALL_MOD_DIR=updates modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KRELEASE)
clean:
	$(MAKE) $(KBUILD_ARGS) clean
	rm -f c/provider/libvroce-rdmav34.so

.PHONY: kdir-set
kdir-set:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
	{ echo "vroce: no kernel headers found; run scripts/install-deps.sh or set KDIR" >&2; exit 1; }

deps:
	scripts/install-deps.sh $(or $(PROFILE),check)

check:
	scripts/check.sh

lint: kdir-set
	scripts/lint.sh

kunit:
	VROCE_KUNIT_FILTER='$(FILTER)' scripts/kunit.sh

demo:
	scripts/demo.sh

bench:
	scripts/bench.sh

bindings:
	scripts/bindings.sh

rust-lint:
	scripts/rust-lint.sh

compile_commands.json:
	scripts/compile-commands.sh

# The rdma-core provider (user space): libvroce-rdmav34.so for Debian 12's
# libibverbs (rdma-core 44), and the file that tells libibverbs to load it.
PROVIDER_OUT ?= c/provider
IBVERBS_DIR ?= $(shell pkg-config --variable=libdir libibverbs 2>/dev/null || \
		 echo /usr/lib/x86_64-linux-gnu)/libibverbs
provider: $(PROVIDER_OUT)/libvroce-rdmav34.so
$(PROVIDER_OUT)/libvroce-rdmav34.so: c/provider/vroce_provider.c \
		c/provider/vroce_verbs_compat.h c/uapi/vroce-abi.h \
		c/provider/vroce_ifc.h c/ifc/vroce_wqe.h \
		c/provider/ifc/linux/bits.h c/provider/ifc/linux/sizes.h
	@mkdir -p $(dir $@)
	$(CC) -Ic/provider/ifc $(CPPFLAGS) $(CFLAGS) -O2 -g -fPIC -shared -Wall -Wextra -Werror \
		$(LDFLAGS) -Wl,--no-undefined -Wl,-soname,libvroce-rdmav34.so \
		-o $@ $< -libverbs
# DKMS: the tree copied to /usr/src/vroce-<version>, built and installed
# for every kernel of Debian 12's 6.1 and 6.12 lines (amd64, rt-amd64)
# whose headers are installed (the releases scripts/kernel-pick.sh picks:
# scripts/kernel-release.sh --all), or for KDIR's release alone when KDIR
# is given, or for DKMS_KERNELS (releases); dkms-remove leaves nothing
# behind for any.
DKMS_VERSION = $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
ifeq ($(KDIR_GIVEN),)
DKMS_KERNELS ?= $(shell scripts/kernel-release.sh --all | cut -d' ' -f1)
else
DKMS_KERNELS ?= $(KRELEASE)
endif
# What the module build reads: the DKMS source tree, for 'make dkms' and
# for the vroce-dkms package (scripts/debian/rules).
DKMS_SRC ?= /usr/src/vroce-$(DKMS_VERSION)
dkms-source:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -a Kbuild Kconfig Makefile dkms.conf c bindings $(DKMS_SRC)/
# An earlier 'make dkms' of this version is replaced, as DKMS's package
# scripts do (dkms remove --all first). Every kernel is tried; any failure
# fails the target at the end.
dkms:
	@ks='$(strip $(DKMS_KERNELS))'; \
	test -n "$$ks" || { echo "vroce: no 6.1 or 6.12 kernel headers installed; run scripts/install-deps.sh or set KDIR" >&2; exit 1; }; \
	if [ -n "$$(dkms status vroce/$(DKMS_VERSION))" ]; then \
		echo "vroce: replacing vroce/$(DKMS_VERSION) in DKMS"; \
		dkms remove vroce/$(DKMS_VERSION) --all || exit 1; \
	fi; \
	$(MAKE) --no-print-directory dkms-source && \
	dkms add vroce/$(DKMS_VERSION) || exit 1; \
	fail=; for k in $$ks; do \
		echo "vroce: DKMS build and install for $$k"; \
		{ dkms build vroce/$(DKMS_VERSION) -k $$k && \
		  dkms install vroce/$(DKMS_VERSION) -k $$k; } || fail="$$fail $$k"; \
	done; \
	test -z "$$fail" || { echo "vroce: DKMS failed for$$fail" >&2; exit 1; }
dkms-remove:
	dkms remove vroce/$(DKMS_VERSION) --all
	rm -rf /usr/src/vroce-$(DKMS_VERSION)

# Debian packages (scripts/debian/): vroce-dkms, libvroce and the source
# package, into $(DEB_OUT).
DEB_OUT ?= $(CURDIR)/deb
deb:
	VROCE_DEB_OUT=$(DEB_OUT) scripts/deb.sh

install-provider: provider
	install -D -m 0644 $(PROVIDER_OUT)/libvroce-rdmav34.so \
		$(DESTDIR)$(IBVERBS_DIR)/libvroce-rdmav34.so
	install -d $(DESTDIR)/etc/libibverbs.d
	echo 'driver vroce' >$(DESTDIR)/etc/libibverbs.d/vroce.driver

help:
	@echo 'vroce targets (README.md, Documentation/testing.rst):'
	@echo '  make demo        the main job on the emulated HCA, in the test kernel'
	@echo '  make check       every check CI runs: lint, layers, KUnit C and Rust,'
	@echo '                   uverbs, nodebug kernel, host harness and fuzzer'
	@echo '  make             build vroce.ko (and the demo ULP) against $$(KDIR)'
	@echo '  make modules     the same'
	@echo '  make install     vroce.ko for $$(KDIR)'"'"'s release (depmod; signed with'
	@echo '                   VROCE_SIGN_KEY/_CERT if given) and the provider'
	@echo '  make deploy-modules  vroce.ko alone against $$(KDIR) (what DKMS builds)'
	@echo '  make dkms-source the DKMS source tree in $$(DKMS_SRC) (/usr/src/vroce-<ver>)'
	@echo '  make dkms        add, build and install vroce with DKMS (dkms.conf) for'
	@echo '                   every installed 6.1/6.12 headers (KDIR=: that one)'
	@echo '  make dkms-remove remove it from DKMS, leaving nothing behind'
	@echo '  make deb         Debian packages vroce-dkms, libvroce, source (lintian)'
	@echo '  make clean       remove what the module build made'
	@echo '  make kunit       the KUnit suites in the C test kernel'
	@echo '                   (FILTER=suite[.case] glob: some of them)'
	@echo '                   (VROCE_ABI_IMPL=rust: the Rust one)'
	@echo '  make bench       benchmarks: MTR, data path and perftest; C, Rust, rxe'
	@echo '  make lint        checkpatch --strict, kernel-doc, W=1 + sparse, layers'
	@echo '  make rust-lint   rustfmt, clippy and the bindings check'
	@echo '  make bindings    regenerate bindings/vroce_abi_generated.rs'
	@echo '  make deps        install what make check needs and a fresh Debian 12'
	@echo '                   lacks (apt, as root; PROFILE=demo: what make demo needs)'
	@echo '  make provider    the rdma-core provider libvroce-rdmav34.so (c/provider/)'
	@echo '  make install-provider  install it and /etc/libibverbs.d/vroce.driver'
	@echo '  make compile_commands.json  compilation database for clangd/editors'
	@echo '  make help        this list'
	@echo 'One suite or case: see "Working on vroce" in README.md.'
