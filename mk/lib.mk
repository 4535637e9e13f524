# A small static library, its ASan+UBSan twin and its sanitizer unit test.
# Set before including: LIB (name), OUT (object dir), SRCS, HDRS,
# TEST_SRC (the unit test's source) and optionally TEST_LIBS.
OPT_LIB := $(OUT)/lib$(LIB).a
SAN_LIB := $(OUT)/san/lib$(LIB).a
SAN_TEST := $(OUT)/san/$(basename $(notdir $(TEST_SRC)))

all: $(OPT_LIB) $(SAN_LIB) $(SAN_TEST)

$(OUT)/%.o: %.c $(HDRS)
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS_OPT) -c $< -o $@
$(OUT)/san/%.o: %.c $(HDRS)
	@mkdir -p $(OUT)/san
	$(CC) $(CFLAGS_SAN) -c $< -o $@

$(OPT_LIB): $(SRCS:%.c=$(OUT)/%.o)
	ar rcs $@ $^
$(SAN_LIB): $(SRCS:%.c=$(OUT)/san/%.o)
	ar rcs $@ $^

$(SAN_TEST): $(TEST_SRC) $(SAN_LIB)
	$(CC) $(CFLAGS_SAN) $< -o $@ $(SAN_LIB) $(LDFLAGS_SAN) $(TEST_LIBS)

clean:
	rm -rf $(OUT)

.PHONY: all clean
