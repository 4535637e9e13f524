/*
 * query_texts.c
 *		The bounded table of a directory's query texts (see query_texts.h).
 *		Filled once, then read only: no locking needed by its readers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/query_texts.h"
#include "tracefmt/tracefmt.h"

static int
qt_add(uint64_t query_id, pgwt_tf_query_mode mode, bool truncated, const char *text, void *arg)
{
	pgwt_query_texts *qt = arg;
	size_t		i;

	(void) mode;
	if (!text || query_id == 0)
		return 0;
	for (i = qt->n; i > 0; i--)		/* replace: files are small, ids repeat rarely */
		if (qt->q[i - 1].id == query_id)
			break;
	if (i == 0)
	{
		if (qt->n == PGWT_QT_MAX)
		{
			qt->dropped++;
			return 0;
		}
		i = ++qt->n;
	}
	qt->q[i - 1].id = query_id;
	snprintf(qt->q[i - 1].text, PGWT_QT_TEXT, "%s%s", text, truncated ? "..." : "");
	return 0;
}

static int
qt_cmp(const void *a, const void *b)
{
	uint64_t	x = ((const pgwt_qt_entry *) a)->id,
				y = ((const pgwt_qt_entry *) b)->id;

	return x < y ? -1 : x > y;
}

int
pgwt_query_texts_load(pgwt_query_texts *qt, const char *dir)
{
	qt->q = malloc(PGWT_QT_MAX * sizeof(pgwt_qt_entry));
	if (!qt->q)
		return -1;
	pgwt_tf_queries_read(dir, qt_add, qt, &qt->bad);
	qsort(qt->q, qt->n, sizeof(pgwt_qt_entry), qt_cmp);
	return 0;
}

const char *
pgwt_query_texts_lookup(uint64_t query_id, void *arg)
{
	const pgwt_query_texts *qt = arg;
	pgwt_qt_entry key = {.id = query_id};
	const pgwt_qt_entry *hit;

	if (!qt || qt->n == 0)
		return NULL;
	hit = bsearch(&key, qt->q, qt->n, sizeof(key), qt_cmp);
	return hit ? hit->text : NULL;
}

void
pgwt_query_texts_free(pgwt_query_texts *qt)
{
	free(qt->q);
	qt->q = NULL;
	qt->n = 0;
}
