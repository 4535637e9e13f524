/*
 * range_clip.c
 *		Cutting one record to a time range [from, to), and the engine
 *		window that shows such a range (range_load.h says the rule and
 *		why). Pure: no I/O, no state.
 */
#include "analysis/range_load.h"
#include "analysis/span_cut.h"

bool
pgwt_range_clip(const pgwt_record *in, uint64_t from, uint64_t to, pgwt_record *out)
{
	uint64_t	end,
				start,
				lo,
				hi;

	if (in->kind != PGWT_REC_TRANSITION)
	{
		/* a sample counts where it was taken */
		if (in->ts_ns < from || in->ts_ns >= to)
			return false;
		*out = *in;
		return true;
	}
	*out = *in;
	if (PGWT_IS_MARKER(in->new_event))
		return true;
	end = in->ts_ns;
	start = in->duration_ns > end ? 0 : end - in->duration_ns;
	(void) pgwt_span_cut(start, end, from, to, &lo, &hi);
	/* a zero-length transition (a first sighting, say) counts when its
	 * instant is inside; a wait, when some of its time is */
	if (end == start ? (end < from || end >= to) : hi <= lo)
		return false;
	if (lo == start && hi == end)
		return true;
	out->ts_ns = hi;
	out->duration_ns = hi - lo;
	if (in->cpu_ns != PGWT_CPU_UNKNOWN && in->duration_ns > 0)
		out->cpu_ns = (uint64_t) ((double) in->cpu_ns * (double) (hi - lo) /
								  (double) in->duration_ns);
	return true;
}

uint64_t
pgwt_range_window_end(uint64_t to)
{
	return to == UINT64_MAX ? UINT64_MAX : to + 1;
}
