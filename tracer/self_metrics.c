/*
 * self_metrics.c
 *		JSON rendering of the tracer's own counters.
 */
#include "tracer/self_metrics.h"

#include <inttypes.h>

void
pgwt_self_metrics_json(FILE *out, const pgwt_self_metrics *m, uint64_t now_ns)
{
	double		up_s = now_ns > m->start_ns ? (double) (now_ns - m->start_ns) / 1e9 : 0.0;

	fprintf(out,
			"{\"uptime_s\":%.3f,\"ticks_total\":%" PRIu64 ",\"late_ticks_total\":%" PRIu64
			",\"samples_total\":%" PRIu64 ",\"samples_per_sec\":%.1f"
			",\"sample_read_faults_total\":%" PRIu64 ",\"backends_tracked\":%" PRIu64
			",\"backends_seen_total\":%" PRIu64 ",\"backends_exited_total\":%" PRIu64
			",\"backends_sampled_total\":%" PRIu64
			",\"proc_scans_total\":%" PRIu64 ",\"read_syscalls_total\":%" PRIu64
			",\"batch_fallbacks_total\":%" PRIu64
			",\"unobserved_ms\":%.1f,\"attaches_total\":%" PRIu64
			",\"trace_records_written_total\":%" PRIu64 ",\"trace_bytes_written_total\":%" PRIu64 "}",
			up_s, m->ticks_total, m->late_ticks_total, m->samples_total,
			up_s > 0 ? (double) m->samples_total / up_s : 0.0,
			m->sample_read_faults_total, m->backends_tracked,
			m->backends_seen_total, m->backends_exited_total, m->backends_sampled_total,
			m->proc_scans_total, m->read_syscalls_total, m->batch_fallbacks_total,
			(double) m->unobserved_ns / 1e6, m->attaches_total,
			m->trace_records_written_total, m->trace_bytes_written_total);
}
