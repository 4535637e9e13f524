# Flags shared by every userspace C module (tracefmt, analysis, tracer,
# tools). Included by the sub-makefiles; the extension uses PGXS instead.
TOP      ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
CC       ?= cc
BUILD    := $(TOP)/build
BIN      := $(TOP)/bin
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CSTD     := -std=gnu11 -D_GNU_SOURCE
CFLAGS_COMMON := $(CSTD) $(WARN) -g -fPIC -I$(TOP)
CFLAGS_OPT    := $(CFLAGS_COMMON) -O2
# Sanitizer build of the same code: unit tests and fuzz smoke runs use it.
CFLAGS_SAN    := $(CFLAGS_COMMON) -O1 -fno-omit-frame-pointer \
                 -fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS_SAN   := -fsanitize=address,undefined
