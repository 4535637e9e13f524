/*
 * tier_stats.c
 *		Pure helpers of the tiered mode (see tier_stats.h).
 */
#include "tracer/tier_stats.h"

#include <string.h>

#include "common/event_ids.h"
#include "tracer/wait_class.h"

bool
pgwt_is_lock_wait(uint32_t event)
{
	return pgwt_event_class(event) == PGWT_CLASS_LOCK;
}

void
pgwt_tick_load_of(const pgwt_record *recs, size_t n, int pg_major, pgwt_tick_load *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_record *r = &recs[i];

		if (r->kind != PGWT_REC_SAMPLE)
			continue;
		out->samples++;
		switch (pgwt_wait_classify(r->new_event, pg_major))
		{
			case PGWT_STATE_CPU:
				out->aas += 1;
				out->cpu_aas += 1;
				break;
			case PGWT_STATE_WAITING:
				out->aas += 1;
				if (pgwt_is_lock_wait(r->new_event))
					out->lock_aas += 1;
				break;
			default:
				break;
		}
	}
}

void
pgwt_esc_marker(pgwt_record *r, bool start, uint64_t ts_ns, uint32_t reason_code,
				uint64_t length_ns)
{
	memset(r, 0, sizeof(*r));
	r->kind = PGWT_REC_TRANSITION;
	r->ts_ns = ts_ns;
	r->pid = 0;					/* all backends */
	r->old_event = reason_code;
	r->new_event = start ? PGWT_MARKER_ESC_START : PGWT_MARKER_ESC_END;
	r->duration_ns = length_ns;
	r->cpu_ns = PGWT_CPU_UNKNOWN;
}

int
pgwt_exact_order(pgwt_exact_choice c, pgwt_tf_exact_source order[2])
{
	switch (c)
	{
		case PGWT_EXACT_WATCH:
			order[0] = PGWT_TF_XSRC_WATCH;
			return 1;
		case PGWT_EXACT_SCHED:
			order[0] = PGWT_TF_XSRC_SCHED;
			return 1;
		case PGWT_EXACT_AUTO:
			break;
	}
	order[0] = PGWT_TF_XSRC_WATCH;
	order[1] = PGWT_TF_XSRC_SCHED;
	return 2;
}

pgwt_tf_exact_source
pgwt_exact_source_of(const char *capture_name)
{
	if (!capture_name)
		return PGWT_TF_XSRC_UNKNOWN;
	if (strcmp(capture_name, "full") == 0)
		return PGWT_TF_XSRC_WATCH;
	if (strcmp(capture_name, "sched") == 0)
		return PGWT_TF_XSRC_SCHED;
	return PGWT_TF_XSRC_UNKNOWN;
}
