/*
 * test_normalize.c
 *		The query-text normalizer on known cases: every string form, both
 *		readings of standard_conforming_strings, comments hiding quotes,
 *		the numeric forms of PostgreSQL 16+, identifiers kept, anything
 *		unterminated hiding the rest, and the output bound.
 */
#include "tf_test.h"

typedef struct
{
	const char *in;
	const char *out;
} nq_case;

/* Runs the cases; fails with the first mismatch. */
#define NQ_CHECK(cases) do { \
	char		out_[512]; \
	size_t		i_; \
	for (i_ = 0; i_ < sizeof(cases) / sizeof(cases[0]); i_++) \
	{ \
		size_t		n_ = pgwt_tf_normalize_query(cases[i_].in, out_, sizeof(out_)); \
		CHECKF(strcmp(out_, cases[i_].out) == 0 && n_ == strlen(out_), \
			   "'%s' -> '%s' (want '%s')", cases[i_].in, out_, cases[i_].out); \
	} \
} while (0)

static void
test_normalize_string_forms(void)
{
	nq_case		cases[] = {
		{"SELECT 'plain', 'it''s'", "SELECT ?, ?"},
		{"SELECT E'it\\'s', e'\\\\', E'\\''", "SELECT ?, ?, ?"},
		/* E'\'' ends after the last quote: a reading without escapes leaks */
		{"SELECT E'\\'', 'secret'", "SELECT ?, ?"},
		{"SELECT B'1010', X'FF', b'0', x'ab'", "SELECT ?, ?, ?, ?"},
		/* no doubled quote in B''/X'': two literals back to back */
		{"SELECT X'AB''CD'", "SELECT ?"},
		{"SELECT N'secret', n'x'", "SELECT ?, ?"},
		{"SELECT U&'d\\0061t', u&'x''y'", "SELECT ?, ?"},
		{"SELECT U&'d!0061t' UESCAPE '!'", "SELECT ? UESCAPE ?"},
		/* a prefix letter only starts a string at an identifier's start */
		{"SELECT ex'secret', date'2020-01-01'", "SELECT ex?, date?"},
		{"SELECT 'a' 'b'", "SELECT ? ?"},
		{"SELECT '\xff\xfe secret \xc3'", "SELECT ?"},
		{"", ""},
	};

	NQ_CHECK(cases);
}

/*
 * standard_conforming_strings off makes \' an escaped quote in a plain
 * string; the normalizer must hide the literals of both readings.
 */
static void
test_normalize_both_readings(void)
{
	nq_case		cases[] = {
		/* on: 'it\' s ', ' secret ' ; off: 'it\'s' , 'secret' */
		{"SELECT 'it\\'s', 'secret'", "SELECT ?"},
		/* on: 'a\' , 'secret' ; off: 'a\', ' secret ' (unterminated) */
		{"SELECT 'a\\', 'secret'", "SELECT ?"},
		/* off: the comment is inside the string */
		{"SELECT 'x\\' -- ', 'secret'\n", "SELECT ?\n"},
		/* N'' is an ordinary string after NCHAR: the same two readings */
		{"SELECT N'a\\', 'secret'", "SELECT ?"},
		/* without a backslash both readings agree */
		{"SELECT 'a', b, 'c'", "SELECT ?, b, ?"},
	};

	NQ_CHECK(cases);
}

static void
test_normalize_comments(void)
{
	nq_case		cases[] = {
		{"SELECT 1 -- don't\n, 'secret'", "SELECT ? \n, ?"},
		{"SELECT 1 /* it's */, 'secret'", "SELECT ? , ?"},
		{"SELECT /* a /* it's */ 'secret' */ x", "SELECT  x"},
		{"SELECT a/**/b", "SELECT a b"},
		/* a comment starts inside an operator */
		{"SELECT 1+--'\n2", "SELECT ?+ \n?"},
		{"SELECT 1 /*/ 'secret' */", "SELECT ? "},
		/* comments may carry data too (tags, hints): hidden */
		{"/* user=alice */ SELECT 1", " SELECT ?"},
		{"SELECT 'a' -- don't\r, 'secret'", "SELECT ? \r, ?"},
	};

	NQ_CHECK(cases);
}

static void
test_normalize_continuation(void)
{
	nq_case		cases[] = {
		{"SELECT 'a'\n'b'", "SELECT ?"},
		{"SELECT 'a' -- don't\n  'b', c", "SELECT ?, c"},
		/* the continued part is lexed as E'': \' does not end it */
		{"SELECT E'a'\n'\\' , secret'", "SELECT ?"},
		/* ... and as B'' (no escapes, no doubled quote) */
		{"SELECT B'1'\n'\\' , 'secret'", "SELECT ? , ?"},
		/* no newline, no continuation */
		{"SELECT E'a' '\\' , secret'", "SELECT ? ?"},
	};

	NQ_CHECK(cases);
}

static void
test_normalize_numbers(void)
{
	nq_case		cases[] = {
		{"SELECT 1, 42, 1.5, .5, 5., 1e10, 1.5E-3, 2e+7, 1.e5", "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?"},
		{"SELECT 0x1F, 0X_ff, 0o17, 0O_7, 0b101, 0B_1", "SELECT ?, ?, ?, ?, ?, ?"},
		{"SELECT 1_000, 1_000.000_1, 1_0e1_0, .5_5", "SELECT ?, ?, ?, ?"},
		/* glued identifier characters go with the number (16+: junk) */
		{"SELECT 123abc, 1e, 0xZZ", "SELECT ?, ?, ?"},
		/* before 15, 1e'x' was 1 and E'x' */
		{"SELECT 1e'\\' , secret'", "SELECT ?"},
		{"select a1, t2.b from t2 where x=-3", "select a1, t2.b from t2 where x=-?"},
		{"SELECT arr[1:2], x..y", "SELECT arr[?:?], x..y"},
		{"SELECT 1$a$ secret $a$", "SELECT ?"},
	};

	NQ_CHECK(cases);
}

static void
test_normalize_dollar(void)
{
	nq_case		cases[] = {
		{"SELECT $$body 'x' 1$$, $tag$a$$b$tag$", "SELECT ?, ?"},
		{"SELECT $fn$ it's $x$ secret $x$ $fn$, 1", "SELECT ?, ?"},
		{"SELECT $a$ $ab$ secret $a$", "SELECT ?"},
		{"SELECT $1, $2::int, $10", "SELECT $1, $2::int, $10"},
		/* $ inside an identifier never opens a quote */
		{"SELECT a$b$c, x$$ FROM t", "SELECT a$b$c, x$$ FROM t"},
		{"SELECT $_\xc3\xa9$ secret $_\xc3\xa9$", "SELECT ?"},
		/* case matters in tags */
		{"SELECT $A$ secret $a$ more $A$", "SELECT ?"},
	};

	NQ_CHECK(cases);
}

static void
test_normalize_identifiers(void)
{
	nq_case		cases[] = {
		{"SELECT \"col 1\" FROM \"T'x\"", "SELECT \"col 1\" FROM \"T'x\""},
		{"SELECT \"a\"\"b'c\" FROM t WHERE x = 'secret'", "SELECT \"a\"\"b'c\" FROM t WHERE x = ?"},
		{"SELECT U&\"d\\0061t\", u&\"x\"\"y\"", "SELECT U&\"d\\0061t\", u&\"x\"\"y\""},
		{"SELECT caf\xc3\xa9, _x9, e, b, x, n, u FROM t1", "SELECT caf\xc3\xa9, _x9, e, b, x, n, u FROM t1"},
		{"SELECT u&v, U & 'x'", "SELECT u&v, U & ?"},
		{"SELECT ? , $", "SELECT ? , $"},
	};

	NQ_CHECK(cases);
}

static void
test_normalize_unterminated(void)
{
	nq_case		cases[] = {
		{"SELECT 'unterminated", "SELECT ?"},
		{"SELECT E'secret\\", "SELECT ?"},
		{"SELECT 'a' -- c\n'secret", "SELECT ?"},
		{"SELECT $x$secret", "SELECT ?"},
		{"SELECT /* secret", "SELECT "},
		{"SELECT /* /* */ secret", "SELECT "},
		{"SELECT -- secret", "SELECT "},
		{"SELECT \"secret", "SELECT ?"},
		{"SELECT U&\"secret", "SELECT ?"},
		{"SELECT B'secret", "SELECT ?"},
	};

	NQ_CHECK(cases);
}

static void
test_normalize_bounds(void)
{
	const char *q = "SELECT abc, 'secret', 42 -- c\n";
	char		full[128],
				cut[128];
	size_t		n,
				len;

	/* output is cut to the buffer and always terminated */
	CHECK(pgwt_tf_normalize_query("SELECT abc", cut, 4) == 3 && strcmp(cut, "SEL") == 0);
	cut[0] = 'x';
	CHECK(pgwt_tf_normalize_query("SELECT", cut, 1) == 0 && cut[0] == '\0');
	cut[0] = 'x';
	CHECK(pgwt_tf_normalize_query("SELECT", cut, 0) == 0 && cut[0] == 'x');
	/* every cut is a prefix of the whole, never longer than the input */
	n = pgwt_tf_normalize_query(q, full, sizeof(full));
	CHECK(n == strlen(full) && n <= strlen(q));
	for (len = 1; len <= n + 1; len++)
	{
		memset(cut, 0x55, sizeof(cut));
		CHECKF(pgwt_tf_normalize_query(q, cut, len) == len - 1 &&
			   strncmp(cut, full, len - 1) == 0 && cut[len - 1] == '\0' &&
			   (unsigned char) cut[len] == 0x55, "outlen %zu: '%s'", len, cut);
	}
}

int
main(void)
{
	RUN(test_normalize_string_forms);
	RUN(test_normalize_both_readings);
	RUN(test_normalize_comments);
	RUN(test_normalize_continuation);
	RUN(test_normalize_numbers);
	RUN(test_normalize_dollar);
	RUN(test_normalize_identifiers);
	RUN(test_normalize_unterminated);
	RUN(test_normalize_bounds);
	return TFT_END();
}
