# The extension's part of the top-level PGXS Makefile: objects, SQL scripts,
# regression tests and the build-time probe for the wait-event hooks.
OBJS = \
	extension/pg_wait_tracer.o

DATA = \
	extension/pg_wait_tracer.control \
	extension/pg_wait_tracer--0.1.sql

# Regression tests for a cluster that preloads the library; the test suites
# choose other sets (e.g. no_preload) by overriding REGRESS.
REGRESS = setup status
REGRESS_OUTDIR ?= $(TOP)/build/regress
REGRESS_OPTS = --inputdir=$(TOP) --outputdir=$(REGRESS_OUTDIR)

# The timed-pair hooks have no #define of their own: probe the header.
PGWT_SERVER_INC := $(shell $(PG_CONFIG) --includedir-server 2>/dev/null)
ifneq ($(shell grep -ls 'wait_event_begin_hook' $(PGWT_SERVER_INC)/utils/wait_event.h),)
PG_CPPFLAGS += -DPGWT_HAVE_WAIT_EVENT_HOOKS
endif
PG_CPPFLAGS += -I$(TOP) -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers
