/*
 * hist_probe.c
 *		One key's histogram with time per bucket (see hist_probe.h). Pure.
 */
#include "analysis/hist_probe.h"

#include <string.h>

void
pgwt_hist_probe_init(pgwt_hist_probe *p, uint32_t event, bool has_pid, uint32_t pid,
					 bool has_query, uint64_t query_id)
{
	memset(p, 0, sizeof(*p));
	p->event = event;
	p->has_pid = has_pid;
	p->pid = pid;
	p->has_query = has_query;
	p->query_id = query_id;
}

static uint64_t
probe_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void
pgwt_hist_probe_add(pgwt_hist_probe *p, uint32_t pid, uint32_t ev, uint64_t query_id,
					bool background, uint64_t full_ns)
{
	unsigned	b;

	if (ev != p->event || (p->has_pid && pid != p->pid))
		return;
	if (p->has_query && (background || query_id != p->query_id))
		return;
	b = pgwt_hist_ns_bucket(full_ns);
	p->count[b]++;
	p->time_ns[b] = probe_add_sat(p->time_ns[b], full_ns);
	p->completed_ns = probe_add_sat(p->completed_ns, full_ns);
	if (p->waits == 0 || full_ns < p->min_ns)
		p->min_ns = full_ns;
	if (full_ns > p->max_ns)
		p->max_ns = full_ns;
	p->waits++;
}
