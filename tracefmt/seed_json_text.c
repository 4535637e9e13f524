/*
 * seed_json_text.c
 *		Takes the query text out of one line of the seed tool's
 *		query_texts.jsonl before common/json_min parses the rest: the seed
 *		stores the statement as the server held it (up to
 *		track_activity_query_size, at most 1 MB), far past json_min's
 *		string bound, and a text must never be dropped for its length.
 *		The text is decoded (JSON escapes, \u surrogate pairs to UTF-8),
 *		kept up to the caller's bound cut at a character boundary (said
 *		by *truncated, counted by the caller), and its value in the line
 *		replaced by "" so the line stays one flat object. Pure.
 */
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tf_internal.h"

static const char *
tf_sjt_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* End of the string token starting at p (its opening quote), or NULL. */
static const char *
tf_sjt_string_end(const char *p, const char *end)
{
	for (p++; p < end; p++)
	{
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

static int
tf_sjt_hex4(const char *p, const char *end, unsigned *v)
{
	*v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++)
	{
		char		c = p[i];
		unsigned	d = c >= '0' && c <= '9' ? (unsigned) (c - '0')
			: c >= 'a' && c <= 'f' ? (unsigned) (c - 'a' + 10)
			: c >= 'A' && c <= 'F' ? (unsigned) (c - 'A' + 10) : 16u;

		if (d > 15)
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

static size_t
tf_sjt_utf8(unsigned cp, char *o)
{
	if (cp < 0x80)
	{
		o[0] = (char) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		o[0] = (char) (0xC0 | cp >> 6);
		o[1] = (char) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		o[0] = (char) (0xE0 | cp >> 12);
		o[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char) (0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char) (0xF0 | cp >> 18);
	o[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char) (0x80 | (cp & 0x3F));
	return 4;
}

/* Decodes the string token [p, end) (quotes included) into dst (room for
 * its length); the decoded length, or -1 on a bad escape. */
static long
tf_sjt_decode(const char *p, const char *end, char *dst)
{
	char	   *o = dst;

	for (p++, end--; p < end; p++)
	{
		unsigned	cp,
					lo;

		if ((unsigned char) *p < 0x20)
			return -1;
		if (*p != '\\')
		{
			*o++ = *p;
			continue;
		}
		if (++p >= end)
			return -1;
		switch (*p)
		{
			case '"':
			case '\\':
			case '/':
				*o++ = *p;
				break;
			case 'b':
				*o++ = '\b';
				break;
			case 'f':
				*o++ = '\f';
				break;
			case 'n':
				*o++ = '\n';
				break;
			case 'r':
				*o++ = '\r';
				break;
			case 't':
				*o++ = '\t';
				break;
			case 'u':
				if (tf_sjt_hex4(p + 1, end, &cp) < 0)
					return -1;
				p += 4;
				if (cp >= 0xD800 && cp < 0xDC00)
				{
					if (end - p < 7 || p[1] != '\\' || p[2] != 'u' ||
						tf_sjt_hex4(p + 3, end, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
						return -1;
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					p += 6;
				}
				else if (cp >= 0xDC00 && cp <= 0xDFFF)
					return -1;
				if (cp == 0)
					return -1;	/* a NUL would end the text early */
				/* \uXXXX is 6 bytes, its UTF-8 at most 3; a pair 12 and 4 */
				o += tf_sjt_utf8(cp, o);
				break;
			default:
				return -1;
		}
	}
	return (long) (o - dst);
}

int
tf_seed_take_text(char *line, size_t *len, const char *key, char *out, size_t cap,
				  bool *truncated)
{
	const char *p = line,
			   *end = line + *len;

	p = tf_sjt_ws(p, end);
	if (p >= end || *p++ != '{')
		return -1;
	for (;;)
	{
		const char *k0,
				   *k1,
				   *v0,
				   *v1;

		p = tf_sjt_ws(p, end);
		if (p >= end || *p != '"' || !(k1 = tf_sjt_string_end(p, end)))
			return -1;
		k0 = p;
		p = tf_sjt_ws(k1, end);
		if (p >= end || *p++ != ':')
			return -1;
		v0 = p = tf_sjt_ws(p, end);
		if (p < end && *p == '"')
		{
			if (!(v1 = tf_sjt_string_end(p, end)))
				return -1;
		}
		else
			for (v1 = p; v1 < end && *v1 != ',' && *v1 != '}'; v1++)
				;
		if ((size_t) (k1 - k0) == strlen(key) + 2 && memcmp(k0 + 1, key, strlen(key)) == 0 &&
			*v0 == '"')
		{
			char	   *buf = malloc((size_t) (v1 - v0));
			long		n;

			if (!buf)
				return -2;
			n = tf_sjt_decode(v0, v1, buf);
			if (n < 0 || memchr(buf, '\0', (size_t) n))
			{
				free(buf);
				return -1;
			}
			*truncated = (size_t) n >= cap;
			if (*truncated)
			{
				/* cut before a UTF-8 continuation byte, never inside */
				n = (long) cap - 1;
				while (n > 0 && ((unsigned char) buf[n] & 0xC0) == 0x80)
					n--;
			}
			memcpy(out, buf, (size_t) n);
			out[n] = '\0';
			free(buf);
			/* the value becomes "" in the line */
			memmove(line + (v0 - line) + 2, v1, (size_t) (end - v1));
			line[(v0 - line)] = '"';
			line[(v0 - line) + 1] = '"';
			*len -= (size_t) (v1 - v0) - 2;
			line[*len] = '\0';
			return 0;
		}
		p = tf_sjt_ws(v1, end);
		if (p >= end || *p == '}')
			return 1;			/* no such key */
		if (*p++ != ',')
			return -1;
	}
}
