/*
 * fuzz_normalize.c
 *		libFuzzer target for the query-text normalizer, with a property:
 *		no byte of a literal survives.
 *
 * Most inputs drive a generator of SQL-ish statements made of whole
 * tokens (identifiers, keywords, operators, $n, quoted identifiers, --
 * and nested C comments, every string form with continuations, dollar
 * quotes, every numeric form) joined by whitespace, and one marker
 * literal holding SECRETMARK (or the digits 31415926) somewhere. The
 * statement is written under one reading of standard_conforming_strings
 * (picked by the input), so the generator knows which bytes are
 * literals. Kept text is lowercase and has digits only in $n; literal
 * and comment contents use capitals and digits. The output must hold
 * neither the marker nor any such capital or stray digit. When no plain
 * string holds a backslash (both readings agree) and nothing was cut,
 * the output must equal the generator's own normalization exactly.
 * Other inputs are raw bytes: bounds only. In both, the output fits the
 * buffer (sized exactly, so ASan sees any overrun), is terminated, is no
 * longer than the input, and a smaller buffer gets a prefix of it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tracefmt.h"

#define FZ_SQL_MAX		4096
#define FZ_TOKENS_MAX	160
#define FZ_MARKER		"SECRETMARK"
#define FZ_MARKER_NUM	"31415926"
/* Capitals literal and comment contents use; kept text has none of them.
 * B E N U X are left out: a cut may leave a string prefix as a word. */
#define FZ_CAPS			"ACDFGHIJKLMOPQRSTVWYZ"

typedef enum
{
	FZ_LAST_NONE,
	FZ_LAST_QUOTE,				/* a '..'-form string: another would continue it */
	FZ_LAST_OTHER,
} fz_last;

typedef struct
{
	const uint8_t *d;
	size_t		n,
				pos;
	bool		scs_off;		/* the reading the statement is written for */
	char		sql[FZ_SQL_MAX + 1];
	size_t		len;
	bool		full;			/* the statement was cut at FZ_SQL_MAX */
	char		exp[FZ_SQL_MAX + 1];	/* the expected normalization */
	size_t		elen;
	bool		pending,
				pending_lit;
	bool		exact;			/* exp is valid */
	fz_last		last;
	bool		prev_self;		/* the last token was one of ( ) , ; [ ] */
} fz_gen;

static unsigned
fz_byte(fz_gen *g)
{
	return g->pos < g->n ? g->d[g->pos++] : 0;
}

static void
fz_put(fz_gen *g, const char *s, size_t n)
{
	for (; n > 0 && !g->full; n--, s++)
	{
		if (g->len == FZ_SQL_MAX)
			g->full = true;
		else
			g->sql[g->len++] = *s;
	}
}

static void
fz_flush(fz_gen *g)
{
	if (g->pending)
	{
		char		ph = g->pending_lit ? '?' : ' ';

		if (ph == '?' || (g->elen > 0 && !strchr(" \t\n\r", g->exp[g->elen - 1])))
			g->exp[g->elen++] = ph;
		g->pending = g->pending_lit = false;
	}
}

static void
fz_keep(fz_gen *g, const char *s, size_t n)
{
	fz_flush(g);
	memcpy(g->exp + g->elen, s, n <= FZ_SQL_MAX - g->elen ? n : FZ_SQL_MAX - g->elen);
	g->elen += n <= FZ_SQL_MAX - g->elen ? n : FZ_SQL_MAX - g->elen;
	fz_put(g, s, n);
}

static void
fz_keeps(fz_gen *g, const char *s)
{
	fz_keep(g, s, strlen(s));
}

static void
fz_hide(fz_gen *g, const char *s, size_t n, bool literal)
{
	g->pending = true;
	g->pending_lit |= literal;
	fz_put(g, s, n);
}

/* A byte of literal or comment content (never NUL). */
static char
fz_content_char(fz_gen *g)
{
	static const char other[] = "0123456789'\\\"$-/*;, \n\t(){}";
	unsigned	b = fz_byte(g);

	if (b < 0x80)
		return b % 2 ? FZ_CAPS[b % (sizeof(FZ_CAPS) - 1)] : other[b % (sizeof(other) - 1)];
	return (char) b;			/* any high byte, valid UTF-8 or not */
}

/* Content of n bytes into buf (n < size); the marker inside if asked. */
static size_t
fz_content(fz_gen *g, char *buf, size_t size, bool marker)
{
	size_t		n = fz_byte(g) % 24,
				at,
				i;

	if (n + sizeof(FZ_MARKER) >= size)
		n = size - sizeof(FZ_MARKER) - 1;
	for (i = 0; i < n; i++)
		buf[i] = fz_content_char(g);
	if (marker)
	{
		at = n ? fz_byte(g) % (n + 1) : 0;
		memmove(buf + at + strlen(FZ_MARKER), buf + at, n - at);
		memcpy(buf + at, FZ_MARKER, strlen(FZ_MARKER));
		n += strlen(FZ_MARKER);
	}
	return n;
}

/* Keeps whitespace between tokens (none next to ( ) , ; [ ] sometimes). */
static void
fz_separator(fz_gen *g, bool next_self)
{
	static const char *const seps[] = {" ", "\n", "\t", "  ", "\r\n", " \f"};
	unsigned	b = fz_byte(g);

	if ((g->prev_self || next_self) && b % 3 == 0)
		return;
	fz_keeps(g, seps[b % (sizeof(seps) / sizeof(seps[0]))]);
}

static void
fz_identifier(fz_gen *g)
{
	static const char first[] = "abcdefghijklmnopqrstuvwxyz_";
	static const char rest[] = "abcdefghijklmnopqrstuvwxyz_$";
	char		buf[16];
	size_t		n = 1 + fz_byte(g) % 8,
				i;

	for (i = 0; i < n; i++)
	{
		unsigned	b = fz_byte(g);

		if (b >= 0xc0)
			buf[i] = (char) b;	/* identifiers take any high byte */
		else
			buf[i] = i ? rest[b % (sizeof(rest) - 1)] : first[b % (sizeof(first) - 1)];
	}
	fz_keep(g, buf, n);
}

static void
fz_word(fz_gen *g)
{
	static const char *const words[] = {
		"select", "from", "where", "and", "uescape", "e", "b", "x", "n", "u",
		"date", "int", "as", "is", "null", "values", "insert", "into", "u&v",
	};

	fz_keeps(g, words[fz_byte(g) % (sizeof(words) / sizeof(words[0]))]);
}

static void
fz_operator(fz_gen *g)
{
	static const char *const ops[] = {
		"+", "-", "*", "/", "=", "<>", "::", "||", "..", ".", "&", "%", "^",
		"~", "!=", "->>", "@", "#", "?", ":", "<=", "=>", ":=", "$", "|", "`",
	};

	fz_keeps(g, ops[fz_byte(g) % (sizeof(ops) / sizeof(ops[0]))]);
}

static void
fz_param(fz_gen *g)
{
	char		buf[8];
	unsigned	b = fz_byte(g);

	buf[0] = '$';
	buf[1] = (char) ('1' + b % 9);
	buf[2] = (char) ('0' + (b / 9) % 10);
	fz_keep(g, buf, b & 0x80 ? 3 : 2);
}

static void
fz_quoted_ident(fz_gen *g)
{
	static const char inner[] = "abcdefghijklmnopqrstuvwxyz '\\$-/*;.\n";
	char		buf[64];
	size_t		n = 1 + fz_byte(g) % 12,
				o = 0,
				i;
	unsigned	b = fz_byte(g);

	if (b & 1)
	{
		memcpy(buf, "u&", 2);
		o = 2;
	}
	buf[o++] = '"';
	for (i = 0; i < n; i++)
	{
		b = fz_byte(g);
		if (b % 16 == 0)
		{
			buf[o++] = '"';		/* doubled */
			buf[o++] = '"';
		}
		else if (b >= 0xc0)
			buf[o++] = (char) b;
		else
			buf[o++] = inner[b % (sizeof(inner) - 1)];
	}
	buf[o++] = '"';
	fz_keep(g, buf, o);
}

static void
fz_line_comment(fz_gen *g)
{
	char		buf[64];
	size_t		n,
				i;

	memcpy(buf, "--", 2);
	n = fz_content(g, buf + 2, sizeof(buf) - 2, false);
	for (i = 2; i < n + 2; i++)
		if (buf[i] == '\n' || buf[i] == '\r')
			buf[i] = 'Q';
	fz_hide(g, buf, n + 2, false);
	fz_keeps(g, "\n");
}

/* Comment content with no "/" "*" or "*" "/" inside and no * or / at an
 * end (which would join the delimiters around it). */
static size_t
fz_comment_text(fz_gen *g, char *buf, size_t size)
{
	size_t		n = fz_content(g, buf, size, false),
				i;

	for (i = 0; i < n; i++)
	{
		bool		edge = i == 0 || i + 1 == n;

		if ((buf[i] == '*' || buf[i] == '/') &&
			(edge || (i > 0 && (buf[i - 1] == '*' || buf[i - 1] == '/'))))
			buf[i] = 'Q';
	}
	return n;
}

static void
fz_block_comment(fz_gen *g, int depth)
{
	char		buf[64];
	size_t		n;

	fz_hide(g, "/*", 2, false);
	n = fz_comment_text(g, buf, sizeof(buf));
	fz_hide(g, buf, n, false);
	if (depth < 3 && fz_byte(g) % 3 == 0)
	{
		fz_block_comment(g, depth + 1);
		n = fz_comment_text(g, buf, sizeof(buf));
		fz_hide(g, buf, n, false);
	}
	fz_hide(g, "*/", 2, false);
}

typedef enum
{
	FZ_S_PLAIN,					/* '..' and N'..': the reading decides */
	FZ_S_E,
	FZ_S_BARE,					/* B'..' X'..' */
	FZ_S_UNICODE,				/* U&'..' */
} fz_smode;

/* One quoted segment of a string, encoded for its mode and the reading. */
static void
fz_segment(fz_gen *g, fz_smode mode, bool marker)
{
	char		raw[64],
				buf[160];
	size_t		n = fz_content(g, raw, sizeof(raw), marker),
				o = 0,
				i;
	bool		backslash = mode == FZ_S_E || (mode == FZ_S_PLAIN && g->scs_off);

	buf[o++] = '\'';
	for (i = 0; i < n; i++)
	{
		char		c = raw[i];

		if (c == '\'' && mode == FZ_S_BARE)
			buf[o++] = 'Q';
		else if (c == '\'')
		{
			buf[o++] = backslash && (fz_byte(g) & 1) ? '\\' : '\'';
			buf[o++] = '\'';
		}
		else if (c == '\\' && backslash)
		{
			buf[o++] = '\\';
			buf[o++] = '\\';
		}
		else
			buf[o++] = c;
	}
	buf[o++] = '\'';
	/* both readings agree only without a backslash in plain strings */
	if (mode == FZ_S_PLAIN && memchr(buf, '\\', o))
		g->exact = false;
	fz_hide(g, buf, o, true);
}

static void
fz_string(fz_gen *g, bool marker)
{
	static const char *const prefixes[] = {"", "E", "e", "N", "n", "B", "b", "X", "x", "U&", "u&"};
	static const fz_smode modes[] = {FZ_S_PLAIN, FZ_S_E, FZ_S_E, FZ_S_PLAIN, FZ_S_PLAIN,
		FZ_S_BARE, FZ_S_BARE, FZ_S_BARE, FZ_S_BARE, FZ_S_UNICODE, FZ_S_UNICODE};
	/* whitespace that continues a string: a newline, maybe -- comments */
	static const char *const cont[] = {"\n", " \n ", "\t-- Q'\n", "\r\n", "\n-- '\n  ", "\r"};
	unsigned	b = fz_byte(g);
	size_t		k = b % (sizeof(prefixes) / sizeof(prefixes[0]));
	int			segs = 1 + ((b >> 4) % 4 == 0) + ((b >> 6) == 0);
	int			marked = marker ? (int) (fz_byte(g) % segs) : -1;
	int			s;

	/* a string right after another would continue it: separate them */
	if (g->last == FZ_LAST_QUOTE)
		fz_keeps(g, ",");
	fz_hide(g, prefixes[k], strlen(prefixes[k]), true);
	for (s = 0; s < segs; s++)
	{
		if (s > 0)
		{
			const char *c = cont[fz_byte(g) % (sizeof(cont) / sizeof(cont[0]))];

			fz_hide(g, c, strlen(c), true);
		}
		fz_segment(g, modes[k], s == marked);
	}
	if (modes[k] == FZ_S_UNICODE && fz_byte(g) % 4 == 0)
	{
		fz_keeps(g, " uescape ");
		fz_hide(g, "'!'", 3, true);
	}
	g->last = FZ_LAST_QUOTE;
}

static void
fz_dollar(fz_gen *g, bool marker)
{
	static const char tagc[] = "abcdefghijklmnopqrstuvwxyz_";
	char		delim[8],
				body[96];
	size_t		tl = 1,
				n,
				i,
				t = fz_byte(g) % 4;

	delim[0] = '$';
	for (i = 0; i < t; i++)
		delim[tl++] = tagc[fz_byte(g) % (sizeof(tagc) - 1)];
	delim[tl++] = '$';
	n = fz_content(g, body, sizeof(body) - sizeof(delim), marker);
	/* the body must not close the quote early (nor with the closing tag) */
	memcpy(body + n, delim, tl);
	if (memmem(body, n + tl, delim, tl) != body + n)
		for (i = 0; i < n; i++)
			if (body[i] == '$')
				body[i] = 'Q';
	fz_hide(g, delim, tl, true);
	fz_hide(g, body, n, true);
	fz_hide(g, delim, tl, true);
}

static void
fz_number(fz_gen *g, bool marker)
{
	static const char *const forms[] = {
		"#", "#_#", "#.#", ".#", "#.", "#e#", "#E-#", "#.#e+#", "0x#", "0X_#",
		"0o#", "0b#", "#_#.#_#", "0", "#.e#",
	};
	const char *f = forms[fz_byte(g) % (sizeof(forms) / sizeof(forms[0]))];
	char		buf[96];
	size_t		o = 0;
	bool		placed = false;

	for (; *f; f++)
	{
		if (*f != '#')
		{
			buf[o++] = *f;
			continue;
		}
		if (marker && !placed)
		{
			memcpy(buf + o, FZ_MARKER_NUM, strlen(FZ_MARKER_NUM));
			o += strlen(FZ_MARKER_NUM);
			placed = true;
		}
		else
		{
			size_t		n = 1 + fz_byte(g) % 6,
						i;
			unsigned	base = o > 1 && buf[1] == 'b' ? 2 : 8;

			/* 0..7 are digits of every base but binary */
			for (i = 0; i < n; i++)
				buf[o++] = (char) ('0' + fz_byte(g) % base);
		}
	}
	fz_hide(g, buf, o, true);
}

/* The marker literal in one of its forms. */
static void
fz_marker(fz_gen *g)
{
	unsigned	b = fz_byte(g) % 3;

	if (b == 0)
		fz_string(g, true);		/* sets g->last */
	else
	{
		if (b == 1)
			fz_dollar(g, true);
		else
			fz_number(g, true);
		g->last = FZ_LAST_OTHER;
	}
}

static void
fz_token(fz_gen *g, unsigned kind)
{
	static const char selfs[] = "(),;[]";
	bool		self = kind >= 16;

	fz_separator(g, self);
	g->prev_self = false;
	switch (kind)
	{
		case 0: case 1: case 2:
			fz_identifier(g);
			break;
		case 3: case 4:
			fz_word(g);
			break;
		case 5: case 6:
			fz_operator(g);
			break;
		case 7:
			fz_param(g);
			break;
		case 8:
			fz_quoted_ident(g);
			break;
		case 9:
			fz_line_comment(g);
			return;				/* comments do not change g->last */
		case 10:
			fz_block_comment(g, 0);
			return;
		case 11: case 12: case 13:
			fz_string(g, false);
			return;				/* sets g->last */
		case 14:
			fz_dollar(g, false);
			break;
		case 15:
			fz_number(g, false);
			break;
		default:
			{
				char		c = selfs[fz_byte(g) % (sizeof(selfs) - 1)];

				fz_keep(g, &c, 1);
				g->prev_self = true;
			}
			break;
	}
	g->last = FZ_LAST_OTHER;
}

/* No marker, no content capital, no digit outside $n. */
static void
fz_check_no_literal(const char *out)
{
	size_t		i;

	if (strstr(out, FZ_MARKER) || strstr(out, FZ_MARKER_NUM))
		__builtin_trap();
	for (i = 0; out[i]; i++)
	{
		if (out[i] >= 'A' && out[i] <= 'Z' && strchr(FZ_CAPS, out[i]))
			__builtin_trap();
		if (out[i] >= '0' && out[i] <= '9')
		{
			size_t		j = i;

			while (j > 0 && out[j - 1] >= '0' && out[j - 1] <= '9')
				j--;
			if (j == 0 || out[j - 1] != '$')
				__builtin_trap();
		}
	}
}

/* Bounds: an exact buffer, terminated, no longer than the input, and a
 * prefix of the whole result. */
static void
fz_check_bounds(const char *in, const char *whole, size_t wlen, size_t outlen)
{
	char	   *out = malloc(outlen);
	size_t		r;

	if (!out)
		return;
	r = pgwt_tf_normalize_query(in, out, outlen);
	if (r >= outlen || out[r] != '\0' || strlen(out) != r ||
		r != (wlen < outlen - 1 ? wlen : outlen - 1) || memcmp(out, whole, r) != 0)
		__builtin_trap();
	free(out);
}

static fz_gen g;				/* big; one input at a time */

static void
fz_structured(const uint8_t *d, size_t n)
{
	char	   *out;
	size_t		olen,
				t,
				ntok,
				marker_at,
				cut;

	memset(&g, 0, sizeof(g));
	g.d = d;
	g.n = n;
	g.scs_off = fz_byte(&g) & 1;
	g.exact = true;
	marker_at = fz_byte(&g) % 32;
	cut = fz_byte(&g);
	ntok = 0;
	for (t = 0; t < FZ_TOKENS_MAX && g.pos < g.n && !g.full; t++)
	{
		if (t == marker_at)
		{
			fz_separator(&g, false);
			g.prev_self = false;
			fz_marker(&g);
		}
		fz_token(&g, fz_byte(&g) % 20);
		ntok++;
	}
	if (ntok <= marker_at && !g.full)
	{
		fz_separator(&g, false);
		fz_marker(&g);
	}
	fz_flush(&g);
	g.sql[g.len] = '\0';
	g.exp[g.elen] = '\0';
	/* sometimes cut the text as the server's track_activity_query_size does */
	if (cut >= 0xe0 && g.len > 0)
	{
		g.sql[(cut * 131u) % g.len] = '\0';
		g.exact = false;
	}
	if (g.full)
		g.exact = false;
	olen = strlen(g.sql) + 1;
	out = malloc(olen);
	if (!out)
		return;
	if (pgwt_tf_normalize_query(g.sql, out, olen) >= olen)
		__builtin_trap();
	fz_check_no_literal(out);
	if (g.exact && strcmp(out, g.exp) != 0)
		__builtin_trap();
	fz_check_bounds(g.sql, out, strlen(out), 1 + (cut % olen));
	free(out);
}

static void
fz_raw(const uint8_t *d, size_t n)
{
	char	   *in,
			   *out;
	size_t		i,
				r,
				olen;

	if (n < 1)
		return;
	in = malloc(n);
	out = malloc(n);
	if (!in || !out)
	{
		free(in);
		free(out);
		return;
	}
	for (i = 1; i < n; i++)
		in[i - 1] = d[i] ? (char) d[i] : ' ';
	in[n - 1] = '\0';
	olen = n;					/* strlen(in) + 1 */
	r = pgwt_tf_normalize_query(in, out, olen);
	if (r >= olen || strlen(out) != r || r > strlen(in))
		__builtin_trap();
	fz_check_bounds(in, out, r, 1 + d[0] % olen);
	free(in);
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < 1)
		return 0;
	if (d[0] % 4 == 0)
		fz_raw(d + 1, n - 1);
	else
		fz_structured(d + 1, n - 1);
	return 0;
}
