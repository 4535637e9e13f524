/*
 * wait_event.c
 *		Naming of wait event ids (see wait_event.h).
 *
 * Lookups are binary searches over two sorted tables: the caller's runtime
 * overrides first, then the generated table of the server version. No
 * global mutable state: a pgwt_names belongs to its caller.
 */
#include "analysis/wait_event.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const wev_class_names[PGWT_NCLASSES] = {
	[PGWT_CLASS_CPU] = "CPU*",
	[PGWT_CLASS_LWLOCK] = "LWLock",
	[PGWT_CLASS_LOCK] = "Lock",
	[PGWT_CLASS_BUFFERPIN] = "BufferPin",
	[PGWT_CLASS_ACTIVITY] = "Activity",
	[PGWT_CLASS_CLIENT] = "Client",
	[PGWT_CLASS_EXTENSION] = "Extension",
	[PGWT_CLASS_IPC] = "IPC",
	[PGWT_CLASS_TIMEOUT] = "Timeout",
	[PGWT_CLASS_IO] = "IO",
	[PGWT_CLASS_INJECTIONPOINT] = "InjectionPoint",
};

const char *
pgwt_class_name(unsigned class_index)
{
	return class_index < PGWT_NCLASSES ? wev_class_names[class_index] : NULL;
}

/* One generated table per major built here; the list is the only place. */
static const struct
{
	int			major;
	const pgwt_event_name *tab;
	const unsigned *count;
}			wev_tables[] = {
	{13, pgwt_event_names_pg13, &pgwt_event_names_pg13_count},
	{15, pgwt_event_names_pg15, &pgwt_event_names_pg15_count},
	{17, pgwt_event_names_pg17, &pgwt_event_names_pg17_count},
	{18, pgwt_event_names_pg18, &pgwt_event_names_pg18_count},
};

bool
pgwt_names_have_table(int pg_major)
{
	for (size_t i = 0; i < sizeof(wev_tables) / sizeof(wev_tables[0]); i++)
		if (wev_tables[i].major == pg_major)
			return true;
	return false;
}

bool
pgwt_names_init(pgwt_names *names, int pg_major)
{
	memset(names, 0, sizeof(*names));
	for (size_t i = 0; i < sizeof(wev_tables) / sizeof(wev_tables[0]); i++)
		if (wev_tables[i].major == pg_major)
		{
			names->builtin = wev_tables[i].tab;
			names->nbuiltin = *wev_tables[i].count;
		}
	return names->builtin != NULL;
}

void
pgwt_names_free(pgwt_names *names)
{
	for (unsigned i = 0; i < names->noverride; i++)
		free((char *) names->override[i].name);
	free(names->override);
	names->override = NULL;
	names->noverride = names->override_cap = 0;
}

/* Index of the first entry with id >= key. */
static unsigned
wev_lower_bound(const pgwt_event_name *tab, unsigned n, uint32_t key)
{
	unsigned	lo = 0,
				hi = n;

	while (lo < hi)
	{
		unsigned	mid = lo + (hi - lo) / 2;

		if (tab[mid].id < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool
pgwt_names_set(pgwt_names *names, uint32_t id, const char *name)
{
	size_t		len = name ? strlen(name) : 0;
	unsigned	pos;
	char	   *copy;

	/* room for "Class:" + name in PGWT_EVENT_NAME_MAX */
	if (len == 0 || len > PGWT_EVENT_NAME_MAX - 20)
		return false;
	copy = strdup(name);
	if (!copy)
		return false;
	pos = wev_lower_bound(names->override, names->noverride, id);
	if (pos < names->noverride && names->override[pos].id == id)
	{
		free((char *) names->override[pos].name);
		names->override[pos].name = copy;
		return true;
	}
	if (names->noverride == names->override_cap)
	{
		unsigned	cap = names->override_cap ? names->override_cap * 2 : 64;
		pgwt_event_name *grown = realloc(names->override, cap * sizeof(*grown));

		if (!grown)
		{
			free(copy);
			return false;
		}
		names->override = grown;
		names->override_cap = cap;
	}
	memmove(&names->override[pos + 1], &names->override[pos],
			(names->noverride - pos) * sizeof(*names->override));
	names->override[pos].id = id;
	names->override[pos].name = copy;
	names->noverride++;
	return true;
}

const char *
pgwt_names_lookup(const pgwt_names *names, uint32_t id)
{
	unsigned	pos;

	if (!names)
		return NULL;
	pos = wev_lower_bound(names->override, names->noverride, id);
	if (pos < names->noverride && names->override[pos].id == id)
		return names->override[pos].name;
	pos = wev_lower_bound(names->builtin, names->nbuiltin, id);
	if (pos < names->nbuiltin && names->builtin[pos].id == id)
		return names->builtin[pos].name;
	return NULL;
}

void
pgwt_event_format(const pgwt_names *names, uint32_t id, char *buf, size_t buflen)
{
	unsigned	cls = pgwt_event_class(id);
	const char *cname = pgwt_class_name(cls);
	const char *ename;

	if (id == 0)
	{
		snprintf(buf, buflen, "CPU*");
		return;
	}
	if (id == PGWT_EVENT_CPU_RUNQUEUE)
	{
		snprintf(buf, buflen, "CPU:RunQueue");
		return;
	}
	if (id == PGWT_EVENT_CPU_ONCPU)
	{
		snprintf(buf, buflen, "CPU:OnCPU");
		return;
	}
	ename = pgwt_names_lookup(names, id);
	if (cname && ename)
		snprintf(buf, buflen, "%s:%s", cname, ename);
	else if (cname)
		snprintf(buf, buflen, "%s:0x%X", cname, id & 0x00FFFFFFu);
	else
		snprintf(buf, buflen, "0x%02X:0x%X", id >> 24, id & 0x00FFFFFFu);
}

/* Class index for a class name typed by a user, or -1. */
static int
wev_class_by_name(const char *text, size_t len)
{
	for (unsigned c = 1; c < PGWT_NCLASSES; c++)
	{
		const char *n = wev_class_names[c];

		if (n && strlen(n) == len && strncasecmp(n, text, len) == 0)
			return (int) c;
	}
	return -1;
}

/* Strict hex number "0x..." of at most max_digits digits. */
static bool
wev_parse_hex(const char *s, unsigned max_digits, uint32_t *out)
{
	uint32_t	v = 0;
	unsigned	n = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	for (s += 2; *s; s++, n++)
	{
		if (!isxdigit((unsigned char) *s) || n >= max_digits)
			return false;
		v = v * 16 + (uint32_t) (isdigit((unsigned char) *s) ? *s - '0' : (tolower((unsigned char) *s) - 'a' + 10));
	}
	if (n == 0)
		return false;
	*out = v;
	return true;
}

bool
pgwt_event_parse(const pgwt_names *names, const char *text, uint32_t *id)
{
	const char *colon;
	int			cls;
	uint32_t	low;

	if (!text || !*text)
		return false;
	if (strcasecmp(text, "CPU*") == 0 || strcasecmp(text, "CPU") == 0)
	{
		*id = 0;
		return true;
	}
	if (strcasecmp(text, "CPU:RunQueue") == 0)
	{
		*id = PGWT_EVENT_CPU_RUNQUEUE;
		return true;
	}
	if (strcasecmp(text, "CPU:OnCPU") == 0)
	{
		*id = PGWT_EVENT_CPU_ONCPU;
		return true;
	}
	colon = strchr(text, ':');
	if (!colon)
		return wev_parse_hex(text, 8, id);
	cls = wev_class_by_name(text, (size_t) (colon - text));
	if (cls < 0)
		return false;
	if (wev_parse_hex(colon + 1, 6, &low))
	{
		*id = ((uint32_t) cls << 24) | low;
		return true;
	}
	/* By name: overrides first, then the built-in table. */
	if (!names)
		return false;
	for (int pass = 0; pass < 2; pass++)
	{
		const pgwt_event_name *tab = pass == 0 ? names->override : names->builtin;
		unsigned	n = pass == 0 ? names->noverride : names->nbuiltin;

		for (unsigned i = 0; i < n; i++)
			if ((tab[i].id >> 24) == (uint32_t) cls && strcasecmp(tab[i].name, colon + 1) == 0)
			{
				*id = tab[i].id;
				return true;
			}
	}
	return false;
}
