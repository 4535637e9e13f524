/*
 * json_min.c
 *		Strict parser for flat JSON objects and an escaping writer (see
 *		json_min.h). Anything it does not understand is an error with a
 *		reason, never a guess.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_min.h"

typedef struct jm_cursor
{
	const char *p;
	const char *end;
} jm_cursor;

static void
jm_skip_ws(jm_cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

static int
jm_hex(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* A string into out (UTF-8 kept as is; \u escapes limited to ASCII). */
static int
jm_string(jm_cursor *c, char *out, size_t cap, const char **why)
{
	size_t		n = 0;

	if (c->p >= c->end || *c->p != '"')
	{
		*why = "expected a string";
		return -1;
	}
	c->p++;
	while (c->p < c->end && *c->p != '"')
	{
		char		ch = *c->p++;

		if ((unsigned char) ch < 0x20)
		{
			*why = "control character in a string";
			return -1;
		}
		if (ch == '\\')
		{
			if (c->p >= c->end)
				break;
			ch = *c->p++;
			switch (ch)
			{
				case '"':
				case '\\':
				case '/':
					break;
				case 'n':
					ch = '\n';
					break;
				case 't':
					ch = '\t';
					break;
				case 'r':
					ch = '\r';
					break;
				case 'b':
					ch = '\b';
					break;
				case 'f':
					ch = '\f';
					break;
				case 'u':
					{
						int			v = 0;

						for (int i = 0; i < 4; i++)
						{
							int			h = c->p < c->end ? jm_hex(*c->p) : -1;

							if (h < 0)
							{
								*why = "bad \\u escape";
								return -1;
							}
							v = v * 16 + h;
							c->p++;
						}
						if (v == 0 || v > 0x7f)
						{
							*why = "only ASCII \\u escapes are accepted";
							return -1;
						}
						ch = (char) v;
						break;
					}
				default:
					*why = "bad escape";
					return -1;
			}
		}
		if (n + 1 >= cap)
		{
			*why = "string too long";
			return -1;
		}
		out[n++] = ch;
	}
	if (c->p >= c->end)
	{
		*why = "unterminated string";
		return -1;
	}
	c->p++;
	out[n] = '\0';
	return 0;
}

static int
jm_number(jm_cursor *c, double *out, const char **why)
{
	char		tmp[64];
	size_t		n = 0;
	char	   *endp;

	while (c->p < c->end && n + 1 < sizeof(tmp) &&
		   (strchr("+-.eE", *c->p) || (*c->p >= '0' && *c->p <= '9')))
		tmp[n++] = *c->p++;
	tmp[n] = '\0';
	if (n == 0 || (tmp[0] != '-' && (tmp[0] < '0' || tmp[0] > '9')))
	{
		*why = "expected a value";
		return -1;
	}
	*out = strtod(tmp, &endp);
	if (*endp != '\0' || !isfinite(*out))
	{
		*why = "bad number";
		return -1;
	}
	return 0;
}

static bool
jm_word(jm_cursor *c, const char *w)
{
	size_t		n = strlen(w);

	if ((size_t) (c->end - c->p) >= n && memcmp(c->p, w, n) == 0)
	{
		c->p += n;
		return true;
	}
	return false;
}

/* Check and skip one array or object at c->p, at most max_depth deep. */
static int
jm_skip_nested(jm_cursor *c, int max_depth, const char **why)
{
	char		close;
	char		scratch[PGWT_JSON_MAX_STR];
	bool		first = true;

	if (max_depth <= 0)
	{
		*why = "nesting too deep";
		return -1;
	}
	close = *c->p == '{' ? '}' : ']';
	c->p++;
	for (;;)
	{
		jm_skip_ws(c);
		if (first && c->p < c->end && *c->p == close)
		{
			c->p++;
			return 0;
		}
		first = false;
		if (close == '}')
		{
			if (jm_string(c, scratch, sizeof(scratch), why) != 0)
				return -1;
			jm_skip_ws(c);
			if (c->p >= c->end || *c->p != ':')
			{
				*why = "expected ':'";
				return -1;
			}
			c->p++;
			jm_skip_ws(c);
		}
		if (c->p < c->end && *c->p == '"')
		{
			if (jm_string(c, scratch, sizeof(scratch), why) != 0)
				return -1;
		}
		else if (c->p < c->end && (*c->p == '{' || *c->p == '['))
		{
			if (jm_skip_nested(c, max_depth - 1, why) != 0)
				return -1;
		}
		else if (!jm_word(c, "true") && !jm_word(c, "false") && !jm_word(c, "null"))
		{
			double		d;

			if (jm_number(c, &d, why) != 0)
				return -1;
		}
		jm_skip_ws(c);
		if (c->p < c->end && *c->p == ',')
		{
			c->p++;
			continue;
		}
		if (c->p < c->end && *c->p == close)
		{
			c->p++;
			return 0;
		}
		*why = close == '}' ? "expected ',' or '}'" : "expected ',' or ']'";
		return -1;
	}
}

/* Check and skip one value of any kind. */
static int
jm_value_skip(jm_cursor *c, const char **why)
{
	char		scratch[PGWT_JSON_MAX_STR];
	double		d;

	if (c->p < c->end && *c->p == '"')
		return jm_string(c, scratch, sizeof(scratch), why);
	if (c->p < c->end && (*c->p == '{' || *c->p == '['))
		return jm_skip_nested(c, PGWT_JSON_MAX_DEPTH, why);
	if (jm_word(c, "true") || jm_word(c, "false") || jm_word(c, "null"))
		return 0;
	return jm_number(c, &d, why);
}

static int
jm_parse(const char *text, size_t len, pgwt_json_obj *obj, bool nested,
		 char *err, size_t errlen)
{
	jm_cursor	c = {text, text + len};
	const char *why = NULL;

	memset(obj, 0, sizeof(*obj));
	jm_skip_ws(&c);
	if (c.p >= c.end || *c.p != '{')
	{
		why = "expected '{'";
		goto bad;
	}
	c.p++;
	jm_skip_ws(&c);
	if (c.p < c.end && *c.p == '}')
		c.p++;
	else
		for (;;)
		{
			pgwt_json_field *f;

			if (obj->nfields == PGWT_JSON_MAX_FIELDS)
			{
				why = "too many fields";
				goto bad;
			}
			f = &obj->fields[obj->nfields];
			jm_skip_ws(&c);
			if (jm_string(&c, f->key, sizeof(f->key), &why) != 0)
				goto bad;
			if (pgwt_json_get(obj, f->key))
			{
				why = "duplicate key";
				goto bad;
			}
			jm_skip_ws(&c);
			if (c.p >= c.end || *c.p != ':')
			{
				why = "expected ':'";
				goto bad;
			}
			c.p++;
			jm_skip_ws(&c);
			if (c.p < c.end && *c.p == '"')
			{
				f->type = PGWT_JSON_STRING;
				if (jm_string(&c, f->str, sizeof(f->str), &why) != 0)
					goto bad;
			}
			else if (c.p < c.end && (*c.p == '{' || *c.p == '['))
			{
				if (!nested)
				{
					why = "nested values are not accepted";
					goto bad;
				}
				f->type = PGWT_JSON_NESTED;
				if (jm_skip_nested(&c, PGWT_JSON_MAX_DEPTH, &why) != 0)
					goto bad;
			}
			else if (jm_word(&c, "true"))
			{
				f->type = PGWT_JSON_BOOL;
				f->boolean = true;
			}
			else if (jm_word(&c, "false"))
				f->type = PGWT_JSON_BOOL;
			else if (jm_word(&c, "null"))
				f->type = PGWT_JSON_NULL;
			else
			{
				const char *start = c.p;

				f->type = PGWT_JSON_NUMBER;
				if (jm_number(&c, &f->num, &why) != 0)
					goto bad;
				/* its text too, for integers a double cannot hold */
				snprintf(f->str, sizeof(f->str), "%.*s", (int) (c.p - start), start);
			}
			obj->nfields++;
			jm_skip_ws(&c);
			if (c.p < c.end && *c.p == ',')
			{
				c.p++;
				continue;
			}
			if (c.p < c.end && *c.p == '}')
			{
				c.p++;
				break;
			}
			why = "expected ',' or '}'";
			goto bad;
		}
	jm_skip_ws(&c);
	if (c.p != c.end)
	{
		why = "trailing characters after the object";
		goto bad;
	}
	return 0;

bad:
	snprintf(err, errlen, "%s at byte %ld", why, (long) (c.p - text));
	return -1;
}

int
pgwt_json_parse(const char *text, size_t len, pgwt_json_obj *obj, char *err, size_t errlen)
{
	return jm_parse(text, len, obj, false, err, errlen);
}

int
pgwt_json_parse_nested(const char *text, size_t len, pgwt_json_obj *obj, char *err, size_t errlen)
{
	return jm_parse(text, len, obj, true, err, errlen);
}

int
pgwt_json_each_string(const char *text, size_t len, pgwt_json_string_cb cb, void *arg,
					  char *err, size_t errlen)
{
	jm_cursor	c = {text, text + len};
	const char *why = NULL;
	char		key[64];
	char		val[PGWT_JSON_MAX_STR];

	jm_skip_ws(&c);
	if (c.p >= c.end || *c.p != '{')
	{
		why = "expected '{'";
		goto bad;
	}
	c.p++;
	jm_skip_ws(&c);
	if (c.p < c.end && *c.p == '}')
		c.p++;
	else
		for (;;)
		{
			jm_skip_ws(&c);
			if (jm_string(&c, key, sizeof(key), &why) != 0)
				goto bad;
			jm_skip_ws(&c);
			if (c.p >= c.end || *c.p != ':')
			{
				why = "expected ':'";
				goto bad;
			}
			c.p++;
			jm_skip_ws(&c);
			if (c.p < c.end && *c.p == '[')
			{
				int			idx = 0;

				c.p++;
				jm_skip_ws(&c);
				if (c.p < c.end && *c.p == ']')
					c.p++;
				else
					for (;; idx++)
					{
						jm_skip_ws(&c);
						if (c.p < c.end && *c.p == '"')
						{
							if (jm_string(&c, val, sizeof(val), &why) != 0)
								goto bad;
							if (cb(key, idx, val, arg) != 0)
								return 1;
						}
						else if (jm_value_skip(&c, &why) != 0)
							goto bad;
						jm_skip_ws(&c);
						if (c.p < c.end && *c.p == ',')
						{
							c.p++;
							continue;
						}
						if (c.p < c.end && *c.p == ']')
						{
							c.p++;
							break;
						}
						why = "expected ',' or ']'";
						goto bad;
					}
			}
			else if (jm_value_skip(&c, &why) != 0)
				goto bad;
			jm_skip_ws(&c);
			if (c.p < c.end && *c.p == ',')
			{
				c.p++;
				continue;
			}
			if (c.p < c.end && *c.p == '}')
			{
				c.p++;
				break;
			}
			why = "expected ',' or '}'";
			goto bad;
		}
	jm_skip_ws(&c);
	if (c.p != c.end)
	{
		why = "trailing characters after the object";
		goto bad;
	}
	return 0;

bad:
	snprintf(err, errlen, "%s at byte %ld", why, (long) (c.p - text));
	return -1;
}

bool
pgwt_json_get_int(const pgwt_json_obj *obj, const char *key, long long *out)
{
	const pgwt_json_field *f = pgwt_json_get(obj, key);

	if (f == NULL || f->type != PGWT_JSON_NUMBER || f->num != floor(f->num) ||
		fabs(f->num) > 9007199254740992.0)
		return false;
	*out = (long long) f->num;
	return true;
}

const pgwt_json_field *
pgwt_json_get(const pgwt_json_obj *obj, const char *key)
{
	for (int i = 0; i < obj->nfields; i++)
		if (strcmp(obj->fields[i].key, key) == 0)
			return &obj->fields[i];
	return NULL;
}

static void
jo_put(pgwt_json_out *o, const char *s, size_t n)
{
	if (o->overflow || o->len + n + 1 > o->cap)
	{
		o->overflow = true;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void
jo_quoted(pgwt_json_out *o, const char *s)
{
	jo_put(o, "\"", 1);
	for (; *s; s++)
	{
		unsigned char ch = (unsigned char) *s;
		char		esc[8];

		if (ch == '"' || ch == '\\')
		{
			esc[0] = '\\';
			esc[1] = (char) ch;
			jo_put(o, esc, 2);
		}
		else if (ch < 0x20)
		{
			snprintf(esc, sizeof(esc), "\\u%04x", ch);
			jo_put(o, esc, 6);
		}
		else
			jo_put(o, (const char *) s, 1);
	}
	jo_put(o, "\"", 1);
}

static void
jo_key(pgwt_json_out *o, const char *key)
{
	if (o->nfields++ > 0)
		jo_put(o, ",", 1);
	jo_quoted(o, key);
	jo_put(o, ":", 1);
}

void
pgwt_json_begin(pgwt_json_out *o, char *buf, size_t cap)
{
	o->buf = buf;
	o->cap = cap;
	o->len = 0;
	o->overflow = cap == 0;
	o->nfields = 0;
	jo_put(o, "{", 1);
}

void
pgwt_json_str(pgwt_json_out *o, const char *key, const char *val)
{
	jo_key(o, key);
	jo_quoted(o, val ? val : "");
}

void
pgwt_json_num(pgwt_json_out *o, const char *key, double val)
{
	char		tmp[64];

	jo_key(o, key);
	if (!isfinite(val))
		jo_put(o, "null", 4);
	else
		jo_put(o, tmp, (size_t) snprintf(tmp, sizeof(tmp), "%.6g", val));
}

void
pgwt_json_int(pgwt_json_out *o, const char *key, long long val)
{
	char		tmp[32];

	jo_key(o, key);
	jo_put(o, tmp, (size_t) snprintf(tmp, sizeof(tmp), "%lld", val));
}

void
pgwt_json_bool(pgwt_json_out *o, const char *key, bool val)
{
	jo_key(o, key);
	jo_put(o, val ? "true" : "false", val ? 4 : 5);
}

void
pgwt_json_null(pgwt_json_out *o, const char *key)
{
	jo_key(o, key);
	jo_put(o, "null", 4);
}

void
pgwt_json_str_array(pgwt_json_out *o, const char *key, const char *const *vals, int n)
{
	jo_key(o, key);
	jo_put(o, "[", 1);
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			jo_put(o, ",", 1);
		jo_quoted(o, vals[i] ? vals[i] : "");
	}
	jo_put(o, "]", 1);
}

long
pgwt_json_end(pgwt_json_out *o)
{
	jo_put(o, "}\n", 2);
	return o->overflow ? -1 : (long) o->len;
}
