# Unit tests of the extension's pure logic (no server): built with the
# project's sanitizer flags, run by test/suites/44-ext-unit.
#   make -f extension/test.mk        builds build/extension/san/test_wait_stats
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
include $(TOP)/mk/common.mk

SAN_DIR := $(BUILD)/extension/san
UNIT    := $(SAN_DIR)/test_wait_stats

all: $(UNIT)

$(UNIT): $(TOP)/extension/test_wait_stats.c $(TOP)/extension/wait_stats.h
	@mkdir -p $(SAN_DIR)
	$(CC) $(CFLAGS_SAN) -o $@ $< $(LDFLAGS_SAN)

clean:
	rm -rf $(BUILD)/extension

.PHONY: all clean
