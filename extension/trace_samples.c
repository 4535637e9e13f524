/*
 * trace_samples.c
 *		The in-server sampler's samples into the trace files: the trace
 *		writer calls this each pass to copy the samples the sampler added to
 *		its recent-history ring since the previous pass, as SAMPLES records
 *		(tracefmt) weighted by the sample period. The history ring keeps
 *		only non-idle samples, so the files carry DB time, not idle time.
 *		Each sampled process gets a backends.tsv line the first time it
 *		is seen, so readers of the files apply the sampler's own decision
 *		(common/process_rule.h) of whether its time is DB time.
 *
 * Locking: the ring is read under the sampler's LWLock in shared mode (the
 * sampler writes it exclusively once per tick); the copy is bounded by the
 * ring's capacity and no file I/O happens under the lock.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/lwlock.h"
#include "utils/timestamp.h"

#include "extension/sampler.h"
#include "extension/trace_names.h"
#include "extension/trace_samples.h"
#include "tracefmt/tracefmt.h"

/* the period the trace directory was last told (a change closes a block) */
static uint64 tsamp_period_ns = 0;

/*
 * Processes whose backends.tsv line is written: (pid, type) keys in an
 * open-addressing set, emptied when three quarters full (a line written
 * twice is harmless; the side file's size is bounded by its writer).
 */
#define TSAMP_KNOWN 4096
static uint64 tsamp_known[TSAMP_KNOWN];
static int	tsamp_nknown = 0;

static bool
tsamp_first_sight(uint64 key)
{
	uint32		h = (uint32) ((key * UINT64CONST(0x9E3779B97F4A7C15)) >> 52);

	if (tsamp_nknown >= TSAMP_KNOWN * 3 / 4)
	{
		memset(tsamp_known, 0, sizeof(tsamp_known));
		tsamp_nknown = 0;
	}
	for (;; h = (h + 1) & (TSAMP_KNOWN - 1))
	{
		if (tsamp_known[h] == key)
			return false;
		if (tsamp_known[h] == 0)
		{
			tsamp_known[h] = key;
			tsamp_nknown++;
			return true;
		}
	}
}

/*
 * The type a reader's process rule needs: pg_stat_activity's text, and
 * for a background worker only what the sampler decided (a session among
 * workers is a parallel worker; the rest is background).
 */
static const char *
tsamp_type_text(const PgwtHistorySample *h)
{
	if (h->backend_type == B_INVALID || h->backend_type == B_BG_WORKER)
		return h->background ? "background worker" : "parallel worker";
	return GetBackendTypeDesc((BackendType) h->backend_type);
}

static void
tsamp_identify(pgwt_tf_dir_writer *dir, const PgwtHistorySample *h)
{
	pgwt_tf_file_opts side;
	pgwt_tf_backend b;
	uint64		key = ((uint64) (uint32) h->pid << 24) | ((uint64) h->backend_type << 1) |
		(h->background ? 1 : 0) | (UINT64CONST(1) << 63);

	if (!tsamp_first_sight(key))
		return;
	side = pgwt_tf_dir_side_opts(dir);
	memset(&b, 0, sizeof(b));
	b.pid = (uint32) h->pid;
	/* first seen at this tick: the process existed at least since then */
	b.start_realtime_ns = (uint64) (h->ts + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) *
									SECS_PER_DAY * USECS_PER_SEC) * 1000;
	b.type = tsamp_type_text(h);
	b.user = b.database = b.client_addr = b.application_name = "";
	(void) pgwt_tf_backend_append_at(pgwt_tf_dir_writer_fd(dir), &side, &b);
}

uint64
pgwt_trace_drain_samples(pgwt_tf_dir_writer *dir, uint64 *cursor,
						 uint64 now_mono_ns, uint64 *lost)
{
	PgwtHistorySample *copy;
	uint64		written,
				from,
				n,
				appended = 0;
	uint32		cap;
	TimestampTz now_wall = GetCurrentTimestamp();
	uint64		period_ns;

	if (!pgwt_sampler_active() || pgwt_sampler_ring == NULL ||
		pgwt_sampler_ring->capacity == 0)
		return 0;
	period_ns = UINT64CONST(1000000000) / (uint64) Max(pgwt_sample_rate, 1);

	LWLockAcquire(pgwt_sampler->lock, LW_SHARED);
	written = pgwt_sampler_ring->written;
	cap = pgwt_sampler_ring->capacity;
	if (written < *cursor)		/* the sampler was reset */
		*cursor = 0;
	from = *cursor;
	if (written - from > cap)
	{
		*lost += written - cap - from;
		from = written - cap;
	}
	n = written - from;
	copy = n > 0 ? palloc(sizeof(PgwtHistorySample) * n) : NULL;
	for (uint64 i = 0; i < n; i++)
		copy[i] = pgwt_ring_slots(pgwt_sampler_ring)[(from + i) % cap];
	LWLockRelease(pgwt_sampler->lock);
	*cursor = written;

	if (n > 0 && period_ns != tsamp_period_ns &&
		pgwt_tf_dir_set_sample_period(dir, period_ns) < 0)
		(*lost) += n;
	else
	{
		tsamp_period_ns = period_ns;
		for (uint64 i = 0; i < n; i++)
		{
			pgwt_record rec;
			int64		age_us = now_wall - copy[i].ts;

			memset(&rec, 0, sizeof(rec));
			rec.kind = PGWT_REC_SAMPLE;
			/* wall time of the tick to the trace's monotonic time base */
			rec.ts_ns = age_us > 0 && (uint64) age_us * 1000 < now_mono_ns ?
				now_mono_ns - (uint64) age_us * 1000 : now_mono_ns;
			rec.pid = (uint32) copy[i].pid;
			rec.new_event = copy[i].event;
			rec.query_id = (uint64) copy[i].query_id;
			rec.weight_ns = period_ns;
			rec.cpu_ns = PGWT_CPU_UNKNOWN;
			tsamp_identify(dir, &copy[i]);
			if (pgwt_tf_dir_append(dir, &rec) < 0)
				(*lost)++;
			else
			{
				pgwt_trace_names_note(&rec);
				appended++;
			}
		}
	}
	if (copy)
		pfree(copy);
	return appended;
}
