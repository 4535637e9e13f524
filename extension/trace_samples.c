/*
 * trace_samples.c
 *		The in-server sampler's samples into the trace files: the trace
 *		writer calls this each pass to copy the samples the sampler added to
 *		its recent-history ring since the previous pass, as SAMPLES records
 *		(tracefmt) weighted by the sample period. The history ring keeps
 *		only non-idle samples, so the files carry DB time, not idle time.
 *
 * Locking: the ring is read under the sampler's LWLock in shared mode (the
 * sampler writes it exclusively once per tick); the copy is bounded by the
 * ring's capacity and no file I/O happens under the lock.
 */
#include "postgres.h"

#include "storage/lwlock.h"
#include "utils/timestamp.h"

#include "extension/sampler.h"
#include "extension/trace_names.h"
#include "extension/trace_samples.h"
#include "tracefmt/tracefmt.h"

/* the period the trace directory was last told (a change closes a block) */
static uint64 tsamp_period_ns = 0;

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
