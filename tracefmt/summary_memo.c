/*
 * summary_memo.c
 *		Where an archived summary file's frames lie in time, remembered by
 *		a caller-owned object (pgwt_tf_sum_memo, summary.h) between the
 *		readers it is given to, so a reader whose range misses a file skips
 *		it without walking its frame headers (summary_file.c). A day of
 *		per-second summaries is ~88,000 frames: a walk of every header of
 *		every file for each of a request's narrow reads was most of a long
 *		range's cost in pgwt-server.
 *
 * An entry is the lowest and highest frame start of a file whose every
 * frame header was walked to a clean end (no unusable header), keyed by
 * the file's path, device, inode, size and mtime (ns): a file rewritten,
 * grown or cut is a new key, and a stale entry is never used. The live
 * summary is never remembered (it grows). The table is a bounded cache
 * (TF_MEMO_SLOTS slots, one entry each, chosen by the path's hash; a
 * collision replaces the older entry): losing an entry only costs a walk.
 *
 * Locking: the object's mutex guards its table; each call takes it for
 * the copy in or out only (readers on several threads may share one).
 * No global state: the object is its owner's.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracefmt/summary.h"
#include "tracefmt/tf_internal.h"

#define TF_MEMO_SLOTS	1024
#define TF_MEMO_PATH	256		/* longer paths are simply not remembered */

typedef struct tf_memo_ent
{
	char		path[TF_MEMO_PATH];
	tf_sum_file_id id;
	uint64_t	lo,
				hi;
	bool		any;			/* false: the file holds no frame */
} tf_memo_ent;

struct pgwt_tf_sum_memo
{
	pthread_mutex_t mu;
	tf_memo_ent slot[TF_MEMO_SLOTS];
};

pgwt_tf_sum_memo *
pgwt_tf_sum_memo_create(void)
{
	pgwt_tf_sum_memo *m = calloc(1, sizeof(*m));

	if (m && pthread_mutex_init(&m->mu, NULL) != 0)
	{
		free(m);
		return NULL;
	}
	return m;
}

void
pgwt_tf_sum_memo_free(pgwt_tf_sum_memo *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->mu);
	free(m);
}

static tf_memo_ent *
tf_memo_slot(pgwt_tf_sum_memo *m, const char *path)
{
	uint64_t	h = 14695981039346656037ull;

	for (; *path; path++)
		h = (h ^ (unsigned char) *path) * 1099511628211ull;
	return &m->slot[h % TF_MEMO_SLOTS];
}

static bool
tf_memo_same(const tf_sum_file_id *a, const tf_sum_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
		a->mtime_ns == b->mtime_ns;
}

bool
tf_sum_memo_get(pgwt_tf_sum_memo *m, const char *path, const tf_sum_file_id *id,
				uint64_t *lo, uint64_t *hi, bool *any)
{
	tf_memo_ent *e;
	bool		hit;

	if (!m || strlen(path) >= TF_MEMO_PATH)
		return false;
	e = tf_memo_slot(m, path);
	pthread_mutex_lock(&m->mu);
	hit = e->path[0] != '\0' && strcmp(e->path, path) == 0 && tf_memo_same(&e->id, id);
	if (hit)
	{
		*lo = e->lo;
		*hi = e->hi;
		*any = e->any;
	}
	pthread_mutex_unlock(&m->mu);
	return hit;
}

void
tf_sum_memo_put(pgwt_tf_sum_memo *m, const char *path, const tf_sum_file_id *id,
				uint64_t lo, uint64_t hi, bool any)
{
	tf_memo_ent *e;
	size_t		n;

	if (!m || (n = strlen(path)) >= TF_MEMO_PATH)
		return;
	e = tf_memo_slot(m, path);
	pthread_mutex_lock(&m->mu);
	memcpy(e->path, path, n + 1);
	e->id = *id;
	e->lo = lo;
	e->hi = hi;
	e->any = any;
	pthread_mutex_unlock(&m->mu);
}
