# Unit tests of the extension's pure logic (no server): built with the
# project's sanitizer flags, run by test/suites/44-ext-unit.
#   make -f extension/test.mk        builds build/extension/san/test_wait_stats
#                                    test_histogram (common/histogram.h) and
#                                    test_parse_u64 (common/parse_u64.h)
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
include $(TOP)/mk/common.mk

SAN_DIR := $(BUILD)/extension/san
UNIT    := $(SAN_DIR)/test_wait_stats
HIST    := $(SAN_DIR)/test_histogram
PARSE   := $(SAN_DIR)/test_parse_u64
COMMON_HDRS := $(wildcard $(TOP)/common/*.h)

all: $(UNIT) $(HIST) $(PARSE)

$(UNIT): $(TOP)/extension/test_wait_stats.c $(TOP)/extension/wait_stats.h $(TOP)/extension/slot_pool.h $(COMMON_HDRS)
	@mkdir -p $(SAN_DIR)
	$(CC) $(CFLAGS_SAN) -o $@ $< $(LDFLAGS_SAN)

$(HIST): $(TOP)/test/unit/common/test_histogram.c $(COMMON_HDRS)
	@mkdir -p $(SAN_DIR)
	$(CC) $(CFLAGS_SAN) -o $@ $< $(LDFLAGS_SAN) -lm

$(PARSE): $(TOP)/test/unit/common/test_parse_u64.c $(COMMON_HDRS)
	@mkdir -p $(SAN_DIR)
	$(CC) $(CFLAGS_SAN) -o $@ $< $(LDFLAGS_SAN)

clean:
	rm -rf $(BUILD)/extension

.PHONY: all clean
