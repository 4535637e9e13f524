/*
 * normalize.c
 *		Query-text normalizer: replaces every SQL literal by '?' and every
 *		comment by a space, so a stored text keeps the statement's shape
 *		(keywords, identifiers, quoted identifiers, $n parameters,
 *		operators) without its data. Pure; no state, no allocation.
 *
 * The text comes from the database and is hostile: what is a literal
 * depends on server settings the tracer cannot see. The only one that
 * moves token boundaries is standard_conforming_strings: off, a plain
 * '...' string takes backslash escapes (\' does not end it); on, it does
 * not. So the text is lexed twice, once under each reading, and a byte is
 * kept only when both lexers keep it: whichever reading the server used,
 * each of its literal bytes is hidden. Each lexer follows PostgreSQL's
 * scan.l for the extent of every token: string forms '..', E'..', N'..',
 * B'..', X'..', U&'..' with doubled quotes where the form has them and
 * continuation across a newline ('a'<newline>'b' is one literal, lexed in
 * the first part's mode); $tag$ quoting; -- and nested C comments, which
 * may contain quotes; quoted identifiers "..", U&"..", with "" inside.
 * Numbers take the union of the old and new grammars: PostgreSQL 16+
 * reads 0x1F, 0o17, 0b101 and 1_000 as one literal where older servers
 * read a literal and an identifier, so identifier characters glued to a
 * number are hidden with it, except a string prefix right after it
 * (1e'x' was a number and an E'' string before the junk rule of 15).
 * Anything unterminated (string, dollar quote, comment, quoted
 * identifier) hides the rest of the text.
 *
 * Each run of hidden bytes becomes one '?' when any of it was a literal
 * or an unterminated quoted identifier, else one space (a comment); so
 * the output is never longer than the input. Bytes are not checked for
 * UTF-8: token boundaries are ASCII, so a kept character is never split.
 */
#include <stdbool.h>
#include <string.h>

#include "tracefmt/tracefmt.h"

/* What a token is, for output: kept as is, or hidden as a literal or as
 * a comment. */
typedef enum
{
	TF_N_KEEP,
	TF_N_COMMENT,
	TF_N_LITERAL,
} tf_n_class;

/* Rules inside a quoted string: '' is a quote (xq, xus), backslash takes
 * the next byte and '' is a quote (xe), or neither (xb, xh). */
typedef enum
{
	TF_Q_PLAIN,
	TF_Q_BACKSLASH,
	TF_Q_BARE,
} tf_q_mode;

static bool
tf_n_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool
tf_n_ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool
tf_n_ident_cont(unsigned char c)
{
	return tf_n_ident_start(c) || tf_n_digit(c) || c == '$';
}

/* Whether s[i..] opens a prefixed string or Unicode quoted identifier. */
static bool
tf_n_prefixed_quote(const char *s, size_t i)
{
	char		c = s[i];

	if (c == '\0')
		return false;
	if (strchr("eEbBxXnN", c) && s[i + 1] == '\'')
		return true;
	return (c == 'u' || c == 'U') && s[i + 1] == '&' && (s[i + 2] == '\'' || s[i + 2] == '"');
}

/*
 * After a string's closing quote at i - 1: if only whitespace containing
 * a newline (and -- comments, each ending in a newline) stands before the
 * next quote, the string goes on there (scan.l quotecontinue). Returns
 * the index after that quote, or 0 when the string ends.
 */
static size_t
tf_n_continuation(const char *s, size_t i, size_t n)
{
	bool		newline = false;

	while (i < n)
	{
		char		c = s[i];

		if (c == ' ' || c == '\t' || c == '\f' || c == '\v')
			i++;
		else if (c == '\n' || c == '\r')
		{
			newline = true;
			i++;
		}
		else if (c == '-' && s[i + 1] == '-')
		{
			while (i < n && s[i] != '\n' && s[i] != '\r')
				i++;
		}
		else if (c == '\'' && newline)
			return i + 1;
		else
			return 0;
	}
	return 0;
}

/* End of a string whose body starts at i (after the opening quote). */
static size_t
tf_n_string_end(const char *s, size_t i, size_t n, tf_q_mode mode)
{
	for (;;)
	{
		size_t		next;

		for (;;)
		{
			if (i >= n)
				return n;
			if (s[i] == '\\' && mode == TF_Q_BACKSLASH)
				i += (i + 1 < n) ? 2 : 1;
			else if (s[i] == '\'' && mode != TF_Q_BARE && s[i + 1] == '\'')
				i += 2;
			else if (s[i++] == '\'')
				break;
		}
		next = tf_n_continuation(s, i, n);
		if (next == 0)
			return i;
		i = next;
	}
}

/* Quoted identifier whose body starts at i; *closed says if it ended. */
static size_t
tf_n_quoted_ident_end(const char *s, size_t i, size_t n, bool *closed)
{
	while (i < n)
	{
		if (s[i] == '"' && s[i + 1] == '"')
			i += 2;
		else if (s[i++] == '"')
		{
			*closed = true;
			return i;
		}
	}
	*closed = false;
	return n;
}

/* Nested C comment starting at i ("/" "*"); unterminated runs to n. */
static size_t
tf_n_block_comment_end(const char *s, size_t i, size_t n)
{
	size_t		depth = 1;

	i += 2;
	while (i < n && depth > 0)
	{
		if (s[i] == '/' && s[i + 1] == '*')
		{
			depth++;
			i += 2;
		}
		else if (s[i] == '*' && s[i + 1] == '/')
		{
			depth--;
			i += 2;
		}
		else
			i++;
	}
	return i;
}

/*
 * A number starting at i (a digit, or '.' and a digit): the old grammar's
 * digits [. digits] [e [+-] digits], then, unless a prefixed string opens
 * there, any identifier glued to it (16+: hex/octal/binary digits and
 * underscores; 15: trailing junk, an error; older: an alias).
 */
static size_t
tf_n_number_end(const char *s, size_t i)
{
	while (tf_n_digit(s[i]))
		i++;
	if (s[i] == '.' && s[i + 1] != '.')
		for (i++; tf_n_digit(s[i]); i++)
			;
	if (s[i] == 'e' || s[i] == 'E')
	{
		size_t		k = i + 1;

		if (s[k] == '+' || s[k] == '-')
			k++;
		if (tf_n_digit(s[k]))
			for (i = k; tf_n_digit(s[i]); i++)
				;
	}
	if (tf_n_prefixed_quote(s, i))
		return i;
	if (tf_n_ident_start(s[i]))
		while (tf_n_ident_cont(s[i]))
			i++;
	return i;
}

/*
 * A '$' at i: a parameter $n (kept), a $tag$ quoted string up to the same
 * tag (hidden; unterminated runs to n), or a lone '$'.
 */
static tf_n_class
tf_n_dollar(const char *s, size_t i, size_t n, size_t *end)
{
	size_t		j = i + 1;

	if (tf_n_digit(s[j]))
	{
		while (tf_n_digit(s[j]))
			j++;
		*end = j;
		return TF_N_KEEP;
	}
	if (s[j] == '$' || (tf_n_ident_start(s[j]) && !tf_n_digit(s[j])))
	{
		while (j < n && s[j] != '$' && tf_n_ident_cont(s[j]))
			j++;
		if (s[j] == '$')
		{
			size_t		taglen = j - i + 1;
			const char *close = memmem(s + j + 1, n - j - 1, s + i, taglen);

			*end = close ? (size_t) (close - s) + taglen : n;
			return TF_N_LITERAL;
		}
	}
	*end = i + 1;
	return TF_N_KEEP;
}

/* Strings with a prefix letter at i (tf_n_prefixed_quote is true). */
static tf_n_class
tf_n_prefixed(const char *s, size_t i, size_t n, bool scs_off, size_t *end)
{
	bool		closed;

	switch (s[i])
	{
		case 'e':
		case 'E':
			*end = tf_n_string_end(s, i + 2, n, TF_Q_BACKSLASH);
			return TF_N_LITERAL;
		case 'b':
		case 'B':
		case 'x':
		case 'X':
			*end = tf_n_string_end(s, i + 2, n, TF_Q_BARE);
			return TF_N_LITERAL;
		case 'n':
		case 'N':
			/* NCHAR and then an ordinary string */
			*end = tf_n_string_end(s, i + 2, n, scs_off ? TF_Q_BACKSLASH : TF_Q_PLAIN);
			return TF_N_LITERAL;
		default:				/* U& */
			if (s[i + 2] == '\'')
			{
				*end = tf_n_string_end(s, i + 3, n, TF_Q_PLAIN);
				return TF_N_LITERAL;
			}
			*end = tf_n_quoted_ident_end(s, i + 3, n, &closed);
			return closed ? TF_N_KEEP : TF_N_LITERAL;
	}
}

/*
 * The token starting at i < n under one reading of plain strings: sets
 * *end (> i) and says how to output it.
 */
static tf_n_class
tf_n_token(const char *s, size_t i, size_t n, bool scs_off, size_t *end)
{
	unsigned char c = (unsigned char) s[i];
	bool		closed;

	if (c == '-' && s[i + 1] == '-')
	{
		for (*end = i + 2; *end < n && s[*end] != '\n' && s[*end] != '\r'; (*end)++)
			;
		return TF_N_COMMENT;
	}
	if (c == '/' && s[i + 1] == '*')
	{
		*end = tf_n_block_comment_end(s, i, n);
		return TF_N_COMMENT;
	}
	if (c == '\'')
	{
		*end = tf_n_string_end(s, i + 1, n, scs_off ? TF_Q_BACKSLASH : TF_Q_PLAIN);
		return TF_N_LITERAL;
	}
	if (c == '"')
	{
		*end = tf_n_quoted_ident_end(s, i + 1, n, &closed);
		return closed ? TF_N_KEEP : TF_N_LITERAL;
	}
	if (c == '$')
		return tf_n_dollar(s, i, n, end);
	if (tf_n_digit(c) || (c == '.' && tf_n_digit(s[i + 1])))
	{
		*end = tf_n_number_end(s, i);
		return TF_N_LITERAL;
	}
	if (tf_n_prefixed_quote(s, i))
		return tf_n_prefixed(s, i, n, scs_off, end);
	if (tf_n_ident_start(c))
	{
		for (*end = i + 1; tf_n_ident_cont(s[*end]); (*end)++)
			;
		return TF_N_KEEP;
	}
	/* ".." is one token, so the second dot never starts a number */
	*end = (c == '.' && s[i + 1] == '.') ? i + 2 : i + 1;
	return TF_N_KEEP;
}

size_t
pgwt_tf_normalize_query(const char *in, char *out, size_t outlen)
{
	size_t		n,
				i,
				o = 0;
	size_t		end[2] = {0, 0};
	tf_n_class	cls[2] = {TF_N_KEEP, TF_N_KEEP};
	bool		hidden = false,
				hidden_literal = false;

	if (outlen == 0)
		return 0;
	n = strlen(in);
	for (i = 0; i <= n; i++)
	{
		int			r;
		bool		keep = true;

		for (r = 0; r < 2 && i < n; r++)
		{
			if (i >= end[r])
				cls[r] = tf_n_token(in, i, n, r == 1, &end[r]);
			if (cls[r] != TF_N_KEEP)
			{
				keep = false;
				hidden_literal |= cls[r] == TF_N_LITERAL;
			}
		}
		if (i < n && !keep)
		{
			hidden = true;
			continue;
		}
		/* a hidden run ends here: one placeholder for all of it */
		if (hidden)
		{
			char		ph = hidden_literal ? '?' : ' ';

			if (o + 1 < outlen && (ph == '?' || (o > 0 && !strchr(" \t\n\r", out[o - 1]))))
				out[o++] = ph;
			hidden = hidden_literal = false;
		}
		if (i < n && o + 1 < outlen)
			out[o++] = in[i];
	}
	out[o] = '\0';
	return o;
}
