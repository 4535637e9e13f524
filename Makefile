# pg_wait_tracer: one Makefile for the whole tree.
#
#   make            build the extension (PGXS, for PG_CONFIG) and the
#                   userspace programs into bin/
#   make install    extension into the PG_CONFIG server, programs to PREFIX
#   make test       every test layer; ends with "N passed, N failed, N skipped"
#   make demo       the main job: a throwaway cluster, known waits, the profile
#   make bench      the default benchmark set (records under bench/records/)
#   make deps       install the Debian packages the project needs
#   make deb        the Debian packages into build/deb/ (scripts/build-deb)
#   make clean
#
# The extension part is PGXS; the userspace modules have their own small
# makefiles (tracefmt/, analysis/, tracer/, tools/) sharing mk/common.mk.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PREFIX ?= /usr/local
PG_CONFIG ?= $(firstword $(wildcard /usr/lib/postgresql/15/bin/pg_config) pg_config)

# Userspace modules, lowest layer first; a folder joins when it has a Makefile.
USERSPACE_DIRS := $(foreach d,tracefmt analysis analysis/policy bpf tracer/watch tracer/control tracer tools bench,$(if $(wildcard $(TOP)/$(d)/Makefile),$(d)))

# ---- the extension (PGXS) -------------------------------------------------
MODULE_big = pg_wait_tracer
MODULEDIR  = extension
include $(TOP)/extension/extension.mk

PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(wildcard $(PGXS)),)
include $(PGXS)
else
all install installcheck:
	@echo "No PGXS for PG_CONFIG=$(PG_CONFIG): run 'make deps' (or set PG_CONFIG)." >&2; exit 1
endif

.DEFAULT_GOAL := all

# ---- userspace --------------------------------------------------------------
.PHONY: userspace userspace-clean install-bin test demo bench bench-full deps ext-clean deb

# PGWT_EXT_ONLY=1 builds and installs the extension alone (the test suites
# build it for several servers from copies of the tree).
ifndef PGWT_EXT_ONLY
all: userspace
install: install-bin
endif

userspace:
	@for d in $(USERSPACE_DIRS); do $(MAKE) --no-print-directory -C $(TOP)/$$d all || exit 1; done

install-bin: userspace
	install -d '$(DESTDIR)$(PREFIX)/bin'
	@for f in $(wildcard $(TOP)/bin/*); do \
	  echo "install $$f -> $(DESTDIR)$(PREFIX)/bin"; install -m 755 "$$f" '$(DESTDIR)$(PREFIX)/bin/'; done

clean: userspace-clean
userspace-clean:
	@for d in $(USERSPACE_DIRS); do $(MAKE) --no-print-directory -C $(TOP)/$$d clean; done
	rm -rf $(TOP)/bin $(TOP)/build

# Only the extension's objects, so the same tree can be rebuilt for another
# server (the test suites build it for each PG_CONFIG in turn).
ext-clean:
	rm -f $(OBJS) $(MODULE_big).so $(MODULE_big).bc $(OBJS:.o=.bc)
	rm -rf results regression.diffs regression.out

# ---- the README's commands ------------------------------------------------
deps:
	@$(TOP)/scripts/deps

test:
	@$(TOP)/scripts/deps
	@$(TOP)/test/run

demo:
	@$(TOP)/scripts/deps
	@$(TOP)/scripts/demo

bench:
	@$(TOP)/scripts/deps
	@$(TOP)/bench/run --set default

bench-full:
	@$(TOP)/scripts/deps
	@$(TOP)/bench/run --set full

deb:
	@$(TOP)/scripts/deps
	@$(TOP)/scripts/build-deb
