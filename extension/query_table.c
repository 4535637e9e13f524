/*
 * query_table.c
 *		The bounded shared (query_id, wait event, role) table with least-used
 *		eviction.
 *
 * Backends sum their waits per (query_id, event, role) locally (coop_hooks.c)
 * and merge them here at safe points (transaction end, exit): never from
 * a hook. The table holds at most pg_wait_tracer.max_queries entries; when
 * a new entry finds it full, the 5% least-used entries are evicted (usage
 * grows by one per merge into the entry and decays by 1% at every eviction
 * pass, as in pg_stat_statements) and the evictions are counted.
 *
 * Locking protocol (as pg_stat_statements):
 *  - query_lock shared: look up entries, update an existing entry's
 *    numbers under its spinlock 'mutex'; readers copy entries this way.
 *  - query_lock exclusive: insert, evict, reset.
 */
#include "postgres.h"

#include "extension/pgwt_shared.h"

#ifdef PGWT_COOP_BUILD

#include "storage/shmem.h"
#include "utils/hsearch.h"

#define PGWT_EVICT_FRACTION 0.05
#define PGWT_USAGE_DECAY 0.99

static HTAB *pgwt_query_hash = NULL;

Size
pgwt_query_shmem_size(void)
{
	return hash_estimate_size(pgwt_max_queries, sizeof(PgwtQueryEntry));
}

/* Called under AddinShmemInitLock from the shmem startup hook. */
void
pgwt_query_shmem_init(void)
{
	HASHCTL		info;

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(PgwtQueryKey);
	info.entrysize = sizeof(PgwtQueryEntry);
	pgwt_query_hash = ShmemInitHash("pg_wait_tracer queries",
									pgwt_max_queries, pgwt_max_queries,
									&info, HASH_ELEM | HASH_BLOBS);
}

/* Remove the least-used entries. Caller holds query_lock exclusively. */
static void
pgwt_query_evict(void)
{
	long		n = hash_get_num_entries(pgwt_query_hash);
	PgwtQueryEntry **entries;
	double	   *usage;
	int		   *order;
	int			k;
	int			i = 0;
	HASH_SEQ_STATUS seq;
	PgwtQueryEntry *e;

	if (n <= 0)
		return;
	entries = palloc(sizeof(PgwtQueryEntry *) * n);
	usage = palloc(sizeof(double) * n);
	order = palloc(sizeof(int) * n);
	hash_seq_init(&seq, pgwt_query_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		entries[i] = e;
		usage[i] = e->usage;
		e->usage *= PGWT_USAGE_DECAY;
		i++;
	}
	k = pgwt_pick_least_used(usage, i, Max((int) (i * PGWT_EVICT_FRACTION), 1), order);
	for (i = 0; i < k; i++)
		hash_search(pgwt_query_hash, &entries[order[i]]->key, HASH_REMOVE, NULL);
	pgwt_shared->query_evictions += k;
	pfree(entries);
	pfree(usage);
	pfree(order);
}

static void
pgwt_query_add(PgwtQueryEntry *e, const PgwtQueryEntry *local)
{
	SpinLockAcquire(&e->mutex);
	pgwt_agg_merge(&e->agg, &local->agg);
	e->usage += 1.0;
	SpinLockRelease(&e->mutex);
}

/*
 * Merge a backend-local table (rows with event 0 are empty) into the
 * shared one.
 */
void
pgwt_query_merge(const PgwtQueryEntry *local, int n)
{
	bool	   *missing;
	int			nmissing = 0;
	int			i;

	if (pgwt_query_hash == NULL)
		return;
	missing = palloc0(sizeof(bool) * n);

	LWLockAcquire(pgwt_shared->query_lock, LW_SHARED);
	for (i = 0; i < n; i++)
	{
		PgwtQueryEntry *e;

		if (local[i].key.event == 0)
			continue;
		e = hash_search(pgwt_query_hash, &local[i].key, HASH_FIND, NULL);
		if (e != NULL)
			pgwt_query_add(e, &local[i]);
		else
		{
			missing[i] = true;
			nmissing++;
		}
	}
	LWLockRelease(pgwt_shared->query_lock);

	if (nmissing > 0)
	{
		LWLockAcquire(pgwt_shared->query_lock, LW_EXCLUSIVE);
		for (i = 0; i < n; i++)
		{
			PgwtQueryEntry *e;
			bool		found;

			if (!missing[i])
				continue;
			e = hash_search(pgwt_query_hash, &local[i].key, HASH_FIND, NULL);
			if (e == NULL)
			{
				if (hash_get_num_entries(pgwt_query_hash) >= pgwt_max_queries)
					pgwt_query_evict();
				e = hash_search(pgwt_query_hash, &local[i].key, HASH_ENTER_NULL, &found);
				if (e == NULL)
				{
					pgwt_shared->query_dropped += local[i].agg.count;
					continue;
				}
				if (!found)
				{
					memset(&e->agg, 0, sizeof(e->agg));
					e->usage = 0.0;
					SpinLockInit(&e->mutex);
				}
			}
			pgwt_query_add(e, &local[i]);
		}
		LWLockRelease(pgwt_shared->query_lock);
	}
	pfree(missing);
}

void
pgwt_query_reset(void)
{
	HASH_SEQ_STATUS seq;
	PgwtQueryEntry *e;

	if (pgwt_query_hash == NULL)
		return;
	LWLockAcquire(pgwt_shared->query_lock, LW_EXCLUSIVE);
	hash_seq_init(&seq, pgwt_query_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
		hash_search(pgwt_query_hash, &e->key, HASH_REMOVE, NULL);
	pgwt_shared->query_evictions = 0;
	pgwt_shared->query_dropped = 0;
	LWLockRelease(pgwt_shared->query_lock);
}

/* A palloc'd copy of every entry, with the eviction counters. */
PgwtQueryEntry *
pgwt_query_snapshot(int *n, uint64 *evictions, uint64 *dropped)
{
	HASH_SEQ_STATUS seq;
	PgwtQueryEntry *e;
	PgwtQueryEntry *out;
	int			i = 0;

	*n = 0;
	*evictions = 0;
	*dropped = 0;
	if (pgwt_query_hash == NULL)
		return NULL;
	LWLockAcquire(pgwt_shared->query_lock, LW_SHARED);
	out = palloc(sizeof(PgwtQueryEntry) * Max(hash_get_num_entries(pgwt_query_hash), 1));
	hash_seq_init(&seq, pgwt_query_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		SpinLockAcquire(&e->mutex);
		out[i] = *e;
		SpinLockRelease(&e->mutex);
		i++;
	}
	*evictions = pgwt_shared->query_evictions;
	*dropped = pgwt_shared->query_dropped;
	LWLockRelease(pgwt_shared->query_lock);
	*n = i;
	return out;
}

#endif							/* PGWT_COOP_BUILD */
