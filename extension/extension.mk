# The extension's part of the top-level PGXS Makefile: objects, SQL scripts,
# regression tests and the build-time probe for the wait-event hooks.
OBJS = \
	extension/pg_wait_tracer.o \
	extension/gucs.o \
	extension/clock.o \
	extension/coop_hooks.o \
	extension/backend_slots.o \
	extension/query_table.o \
	extension/views.o \
	extension/sampler.o \
	extension/sampler_views.o \
	extension/trace_ring.o \
	extension/trace_records.o \
	extension/trace_statements.o \
	extension/escalation_logic.o \
	extension/trace_capture.o \
	extension/trace_markers.o \
	extension/trace_worker.o \
	extension/trace_names.o \
	extension/trace_views.o \
	extension/memory.o \
	extension/escalation.o \
	extension/history.o \
	extension/trace_samples.o \
	common/json_min.o \
	common/esc_protocol.o

DATA = \
	extension/pg_wait_tracer.control \
	extension/pg_wait_tracer--0.1.sql \
	extension/pg_wait_tracer--0.1--0.2.sql \
	extension/pg_wait_tracer--0.2--0.3.sql \
	extension/pg_wait_tracer--0.3--0.4.sql \
	extension/pg_wait_tracer--0.4--0.5.sql \
	extension/pg_wait_tracer--0.5--0.6.sql \
	extension/pg_wait_tracer--0.6--0.7.sql \
	extension/pg_wait_tracer--0.7--0.8.sql \
	extension/pg_wait_tracer--0.8--0.9.sql

# Regression tests for a cluster that preloads the library (and loads
# pg_stat_statements with compute_query_id = on); the test suites choose
# other sets (e.g. no_preload) by overriding REGRESS.
REGRESS = setup status coop_truth permissions sampler trace history_range history_columns escalation precision histogram upgrade
REGRESS_OUTDIR ?= $(TOP)/build/regress
REGRESS_OPTS = --inputdir=$(TOP) --outputdir=$(REGRESS_OUTDIR)

# The timed-pair hooks have no #define of their own: probe the header.
# (On PostgreSQL 18+ the coop code is compiled either way and finds the
# hooks at run time; the probe only decides who declares them.)
PGWT_SERVER_INC := $(shell $(PG_CONFIG) --includedir-server 2>/dev/null)
# 13 and 14 are refused here, with the reason, rather than by a compiler
# error deep in a file (docs/VERSIONS.md): the extension reserves its shared
# memory in shmem_request_hook, which PostgreSQL 15 introduced.
PGWT_PG_MAJOR := $(shell $(PG_CONFIG) --version 2>/dev/null | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p')
ifneq ($(filter 9 10 11 12 13 14,$(PGWT_PG_MAJOR)),)
$(error pg_wait_tracer's extension needs PostgreSQL 15 or later, and $(PG_CONFIG) is PostgreSQL $(PGWT_PG_MAJOR): it reserves shared memory through shmem_request_hook (15+); the external tracer (bin/pg_wait_tracer) serves 13, see docs/VERSIONS.md)
endif
ifneq ($(shell grep -ls 'wait_event_begin_hook' $(PGWT_SERVER_INC)/utils/wait_event.h),)
PG_CPPFLAGS += -DPGWT_HAVE_WAIT_EVENT_HOOKS
endif
PG_CPPFLAGS += -I$(TOP) -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers

# The trace writer and the escalation policy come from the userspace
# libraries (position-independent, no globals, no exit), built inside this
# tree: the test suites build the extension from a copy without build/.
# Linked in this order: analysis (its range loader) calls into tracefmt.
PGWT_STATIC_LIBS = $(TOP)/build/analysis/libpgwt_analysis.a \
	$(TOP)/build/tracefmt/libpgwt_tracefmt.a \
	$(TOP)/build/policy/libpgwt_policy.a
SHLIB_LINK += $(PGWT_STATIC_LIBS) -llz4 -lm
$(MODULE_big).so: $(PGWT_STATIC_LIBS)
# Always asked of the libraries' own makefiles, which know their sources: a
# library left from an earlier build of this tree is brought up to date.
$(TOP)/build/tracefmt/libpgwt_tracefmt.a: pgwt-force
	$(MAKE) -C $(TOP)/tracefmt $@
$(TOP)/build/analysis/libpgwt_analysis.a: pgwt-force
	$(MAKE) -C $(TOP)/analysis $@
$(TOP)/build/policy/libpgwt_policy.a: pgwt-force
	$(MAKE) -C $(TOP)/analysis/policy $@
.PHONY: pgwt-force
pgwt-force:
