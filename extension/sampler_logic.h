/*
 * sampler_logic.h
 *		Pure logic of the in-server sampler: classifying one backend's
 *		sample, the bounded profile table with eviction, and the
 *		recent-history ring. Tick billing is common/tick_rule.h, the
 *		query-id carry common/query_carry.h.
 *
 * Nothing here touches the server: no locks, no allocation, no shared
 * memory. sampler.c calls it with the lock it needs already held (one
 * writer, the sampler worker); test/unit/sampler/ tests it under
 * ASan+UBSan. Types come from <stdint.h> so both sides can include it.
 */
#ifndef PGWT_SAMPLER_LOGIC_H
#define PGWT_SAMPLER_LOGIC_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "extension/wait_stats.h"

/* What a backend was doing at a sample. */
typedef enum PgwtSampleState
{
	PGWT_SAMPLE_IDLE = 0,		/* an idle wait (Activity, ClientRead): not DB time */
	PGWT_SAMPLE_CPU,			/* no wait event set: running or runnable */
	PGWT_SAMPLE_WAITING			/* a non-idle wait event is set */
} PgwtSampleState;

/* The CPU pseudo-event of the profile tables: no wait event set. */
#define PGWT_SAMPLE_CPU_EVENT 0U

/*
 * No wait event set is CPU*, whatever the session state says, as in the
 * exact tier (the time between waits). A session between statements
 * (state idle, no event yet) is running or runnable: typically preempted
 * right after sending its result, when the client it wakes takes the CPU.
 * Counting it idle made sampled CPU* half the exact one under load. An
 * idle client sits in Client:ClientRead, which is idle.
 */
static inline PgwtSampleState
pgwt_sample_classify(uint32_t event)
{
	if (event == 0)
		return PGWT_SAMPLE_CPU;
	return pgwt_event_is_idle(event) ? PGWT_SAMPLE_IDLE : PGWT_SAMPLE_WAITING;
}

/*
 * Bounded profile table: linear probing in 'size' rows (a power of two),
 * at most 'max_used' of them occupied. When full, the least-sampled entry
 * among a window of occupied rows next to the new key's home is evicted
 * (ties: the one seen longest ago), deleted by backward shift so every
 * probe chain stays intact, and its numbers are added to the table's
 * evicted totals, which readers show.
 */
typedef struct PgwtSampleKey
{
	int64_t		id;				/* query id, or pid */
	int64_t		id2;			/* event table: 0 sessions, 1 background;
								 * the backend's start time; or (query
								 * table) the role of the sessions */
	uint32_t	event;			/* wait_event_info; 0 = CPU */
	uint32_t	pad;			/* zero: keys are compared as bytes */
} PgwtSampleKey;

typedef struct PgwtSampleEntry
{
	PgwtSampleKey key;
	uint16_t	used;			/* 0 = empty row */
	uint16_t	background;		/* meta: a background process's time, never
								 * DB time (common/process_rule.h) */
	uint32_t	backend_type;	/* meta of per-backend rows */
	uint32_t	userid;
	uint32_t	dbid;
	uint64_t	samples;
	uint64_t	time_ns;
	uint64_t	last_tick;		/* tick number of the latest sample */
} PgwtSampleEntry;

typedef struct PgwtSampleTable
{
	uint32_t	size;			/* rows, a power of two */
	uint32_t	max_used;
	uint32_t	used;
	uint32_t	pad;
	uint64_t	evictions;
	uint64_t	evicted_samples;
	uint64_t	evicted_time_ns;
	/* followed by 'size' rows */
} PgwtSampleTable;

#define PGWT_EVICT_WINDOW 32

static inline PgwtSampleEntry *
pgwt_table_rows(PgwtSampleTable *t)
{
	return (PgwtSampleEntry *) (t + 1);
}

/* Rows for a table of at most max_used entries: load factor <= 3/4. */
static inline uint32_t
pgwt_table_size_for(uint32_t max_used)
{
	uint64_t	want = (uint64_t) max_used + max_used / 3 + 1;
	uint32_t	size = 16;

	while (size < want)
		size <<= 1;
	return size;
}

static inline size_t
pgwt_table_bytes(uint32_t max_used)
{
	return sizeof(PgwtSampleTable) + sizeof(PgwtSampleEntry) * (size_t) pgwt_table_size_for(max_used);
}

static inline void
pgwt_table_init(PgwtSampleTable *t, uint32_t max_used)
{
	t->size = pgwt_table_size_for(max_used);
	t->max_used = max_used;
	t->used = 0;
	t->pad = 0;
	t->evictions = t->evicted_samples = t->evicted_time_ns = 0;
	memset(pgwt_table_rows(t), 0, sizeof(PgwtSampleEntry) * (size_t) t->size);
}

static inline uint32_t
pgwt_key_hash(const PgwtSampleKey *k)
{
	uint64_t	h = (uint64_t) k->id * UINT64_C(0x9E3779B97F4A7C15);

	h ^= (uint64_t) k->id2 * UINT64_C(0xC2B2AE3D27D4EB4F);
	h ^= (uint64_t) k->event * UINT64_C(0x165667B19E3779F9);
	h ^= h >> 29;
	return (uint32_t) h;
}

static inline bool
pgwt_key_equal(const PgwtSampleKey *a, const PgwtSampleKey *b)
{
	return a->id == b->id && a->id2 == b->id2 && a->event == b->event;
}

/* Delete row 'i' by backward shift (linear probing keeps no tombstones). */
static inline void
pgwt_table_delete(PgwtSampleTable *t, uint32_t i)
{
	PgwtSampleEntry *rows = pgwt_table_rows(t);
	uint32_t	mask = t->size - 1;
	uint32_t	j = i;

	for (;;)
	{
		uint32_t	home;

		j = (j + 1) & mask;
		if (!rows[j].used)
			break;
		home = pgwt_key_hash(&rows[j].key) & mask;
		/* move j back into the hole at i when its home is not in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask))
		{
			rows[i] = rows[j];
			i = j;
		}
	}
	memset(&rows[i], 0, sizeof(PgwtSampleEntry));
	t->used--;
}

/* Evict the least-sampled of up to PGWT_EVICT_WINDOW rows from 'start'. */
static inline void
pgwt_table_evict_near(PgwtSampleTable *t, uint32_t start)
{
	PgwtSampleEntry *rows = pgwt_table_rows(t);
	uint32_t	mask = t->size - 1;
	uint32_t	seen = 0,
				i,
				victim = UINT32_MAX;

	for (i = 0; i < t->size && seen < PGWT_EVICT_WINDOW; i++)
	{
		uint32_t	r = (start + i) & mask;

		if (!rows[r].used)
			continue;
		seen++;
		if (victim == UINT32_MAX ||
			rows[r].samples < rows[victim].samples ||
			(rows[r].samples == rows[victim].samples && rows[r].last_tick < rows[victim].last_tick))
			victim = r;
	}
	if (victim == UINT32_MAX)
		return;
	t->evictions++;
	t->evicted_samples += rows[victim].samples;
	t->evicted_time_ns += rows[victim].time_ns;
	pgwt_table_delete(t, victim);
}

/*
 * The row of 'key', created (zeroed, key set) when absent, evicting one
 * entry first when the table is full. Returns NULL only for a table with
 * no room at all (max_used 0).
 */
static inline PgwtSampleEntry *
pgwt_table_upsert(PgwtSampleTable *t, const PgwtSampleKey *key)
{
	PgwtSampleEntry *rows = pgwt_table_rows(t);
	uint32_t	mask = t->size - 1;
	uint32_t	home = pgwt_key_hash(key) & mask;
	uint32_t	i;

	for (i = 0; i < t->size; i++)
	{
		uint32_t	r = (home + i) & mask;

		if (!rows[r].used)
			break;
		if (pgwt_key_equal(&rows[r].key, key))
			return &rows[r];
	}
	if (t->max_used == 0)
		return NULL;
	if (t->used >= t->max_used)
		pgwt_table_evict_near(t, home);
	/* the eviction may have shifted rows: find the first free one again */
	for (i = 0; i < t->size; i++)
	{
		uint32_t	r = (home + i) & mask;

		if (!rows[r].used)
		{
			memset(&rows[r], 0, sizeof(PgwtSampleEntry));
			rows[r].key = *key;
			rows[r].key.pad = 0;
			rows[r].used = 1;
			t->used++;
			return &rows[r];
		}
	}
	return NULL;
}

/* Lookup without insertion (NULL when absent). */
static inline PgwtSampleEntry *
pgwt_table_find(PgwtSampleTable *t, const PgwtSampleKey *key)
{
	PgwtSampleEntry *rows = pgwt_table_rows(t);
	uint32_t	mask = t->size - 1;
	uint32_t	home = pgwt_key_hash(key) & mask;
	uint32_t	i;

	for (i = 0; i < t->size; i++)
	{
		uint32_t	r = (home + i) & mask;

		if (!rows[r].used)
			return NULL;
		if (pgwt_key_equal(&rows[r].key, key))
			return &rows[r];
	}
	return NULL;
}

/*
 * Upsert with a caller-kept hint: the row index where this caller found its
 * key last time. A hit costs one row read; a miss (the row moved by an
 * eviction's backward shift, or another key) falls back to the upsert and
 * refreshes the hint. The sampler keeps one hint per backend and table, so
 * a backend sampled in the same state tick after tick costs no probing.
 */
static inline PgwtSampleEntry *
pgwt_table_upsert_hint(PgwtSampleTable *t, const PgwtSampleKey *key, uint32_t *hint)
{
	PgwtSampleEntry *rows = pgwt_table_rows(t);
	PgwtSampleEntry *e;

	if (*hint < t->size && rows[*hint].used && pgwt_key_equal(&rows[*hint].key, key))
		return &rows[*hint];
	e = pgwt_table_upsert(t, key);
	if (e)
		*hint = (uint32_t) (e - rows);
	return e;
}

/*
 * Forget one backend's rows of a per-backend table (key id = pid, id2 =
 * backend start) and take their numbers out of the per-event table too, so
 * a reset backend leaves the system totals as it does in the exact tier.
 * Deleting row i shifts a later row into it, so i is looked at again.
 * Returns the rows removed.
 */
static inline uint32_t
pgwt_table_forget_backend(PgwtSampleTable *by_backend, PgwtSampleTable *by_event,
						  int64_t pid, int64_t start)
{
	PgwtSampleEntry *rows = pgwt_table_rows(by_backend);
	uint32_t	removed = 0,
				i = 0;

	while (i < by_backend->size)
	{
		PgwtSampleEntry *e = &rows[i];
		PgwtSampleKey ev;
		PgwtSampleEntry *total;

		if (!e->used || e->key.id != pid || e->key.id2 != start)
		{
			i++;
			continue;
		}
		memset(&ev, 0, sizeof(ev));
		ev.event = e->key.event;
		ev.id2 = e->background;	/* the half it was billed to */
		total = pgwt_table_find(by_event, &ev);
		if (total != NULL)
		{
			total->samples -= total->samples < e->samples ? total->samples : e->samples;
			total->time_ns -= total->time_ns < e->time_ns ? total->time_ns : e->time_ns;
		}
		pgwt_table_delete(by_backend, i);
		removed++;
	}
	return removed;
}

static inline void
pgwt_entry_bill(PgwtSampleEntry *e, uint64_t ns, uint64_t tick)
{
	e->samples++;
	e->time_ns += ns;
	e->last_tick = tick;
}

/*
 * Recent-history ring: the newest 'capacity' non-idle samples. 'written'
 * counts every sample ever stored, so readers know how many were
 * overwritten.
 */
typedef struct PgwtHistorySample
{
	int64_t		ts;				/* TimestampTz of the tick */
	int64_t		query_id;
	int32_t		pid;
	uint32_t	event;			/* 0 = on CPU */
	uint16_t	backend_type;
	uint8_t		background;		/* not a session: its time is not DB time */
	uint8_t		pad;
	uint32_t	userid;			/* role of the session (0: none), for visibility */
} PgwtHistorySample;

typedef struct PgwtHistoryRing
{
	uint64_t	written;
	uint32_t	capacity;
	uint32_t	pad;
	/* followed by 'capacity' samples */
} PgwtHistoryRing;

static inline PgwtHistorySample *
pgwt_ring_slots(PgwtHistoryRing *r)
{
	return (PgwtHistorySample *) (r + 1);
}

static inline void
pgwt_ring_push(PgwtHistoryRing *r, const PgwtHistorySample *s)
{
	if (r->capacity == 0)
		return;
	pgwt_ring_slots(r)[r->written % r->capacity] = *s;
	r->written++;
}

/* Samples held now, and the index of the oldest one. */
static inline uint32_t
pgwt_ring_held(const PgwtHistoryRing *r, uint32_t *oldest)
{
	if (r->written <= r->capacity)
	{
		*oldest = 0;
		return (uint32_t) r->written;
	}
	*oldest = (uint32_t) (r->written % r->capacity);
	return r->capacity;
}

#endif							/* PGWT_SAMPLER_LOGIC_H */
