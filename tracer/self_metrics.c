/*
 * self_metrics.c
 *		JSON rendering of the tracer's own counters.
 */
#include "tracer/self_metrics.h"

#include <inttypes.h>

/* the scheduler tier's programs, in sched_recursion_misses' order */
const char *const pgwt_sched_prog_names[3] = {"switch", "wakeup", "wakeup_new"};

void
pgwt_self_metrics_json(FILE *out, const pgwt_self_metrics *m, uint64_t now_ns)
{
	double		up_s = now_ns > m->start_ns ? (double) (now_ns - m->start_ns) / 1e9 : 0.0;

	fprintf(out,
			"{\"uptime_s\":%.3f,\"ticks_total\":%" PRIu64 ",\"late_ticks_total\":%" PRIu64
			",\"ticks_skipped_total\":%" PRIu64
			",\"samples_total\":%" PRIu64 ",\"samples_per_sec\":%.1f"
			",\"sample_read_faults_total\":%" PRIu64 ",\"backends_tracked\":%" PRIu64
			",\"backends_seen_total\":%" PRIu64 ",\"backends_exited_total\":%" PRIu64
			",\"backends_sampled_total\":%" PRIu64
			",\"proc_scans_total\":%" PRIu64 ",\"read_syscalls_total\":%" PRIu64
			",\"batch_fallbacks_total\":%" PRIu64
			",\"unobserved_ms\":%.1f,\"attaches_total\":%" PRIu64
			",\"trace_records_written_total\":%" PRIu64 ",\"trace_bytes_written_total\":%" PRIu64
			",\"events_total\":%" PRIu64 ",\"ringbuf_drops_total\":%" PRIu64
			",\"wp_attach_failures_total\":%" PRIu64 ",\"backends_watched\":%" PRIu64
			",\"blocker_queries_total\":%" PRIu64
			",\"wp_backends_forked_total\":%" PRIu64 ",\"wp_attached_total\":%" PRIu64
			",\"wp_exited_unwatched_total\":%" PRIu64 ",\"wp_attached_at_zero_total\":%" PRIu64
			",\"wp_attach_races_total\":%" PRIu64
			",\"wp_attach_latency_us_avg\":%.1f,\"wp_attach_latency_us_max\":%.1f",
			up_s, m->ticks_total, m->late_ticks_total, m->ticks_skipped_total, m->samples_total,
			up_s > 0 ? (double) m->samples_total / up_s : 0.0,
			m->sample_read_faults_total, m->backends_tracked,
			m->backends_seen_total, m->backends_exited_total, m->backends_sampled_total,
			m->proc_scans_total, m->read_syscalls_total, m->batch_fallbacks_total,
			(double) m->unobserved_ns / 1e6, m->attaches_total,
			m->trace_records_written_total, m->trace_bytes_written_total,
			m->events_total, m->ringbuf_drops_total, m->wp_attach_failures_total,
			m->backends_watched, m->blocker_queries_total,
			m->wp_backends_forked_total, m->wp_attached_total, m->wp_exited_unwatched_total,
			m->wp_attached_at_zero_total, m->wp_attach_races_total,
			m->wp_attached_total ? (double) m->wp_attach_latency_ns_sum / 1e3 / (double) m->wp_attached_total : 0.0,
			(double) m->wp_attach_latency_ns_max / 1e3);
	if (m->sched_on)
	{
		fprintf(out, ",\"sched_blocks_total\":%" PRIu64 ",\"sched_unnamed_blocks_total\":%" PRIu64
				",\"sched_unnamed_off_ms\":%.3f,\"sched_runq_ms\":%.3f,\"sched_runq_total\":%" PRIu64
				",\"sched_attached\":%d,\"sched_attaches_total\":%" PRIu64,
				m->sched_blocks_total, m->sched_unnamed_blocks_total,
				(double) m->sched_unnamed_off_ns / 1e6, (double) m->sched_runq_ns / 1e6,
				m->sched_runq_total, m->sched_attached, m->sched_attaches_total);
		fprintf(out, ",\"sched_missed_run_total\":%" PRIu64 ",\"sched_missed_off_total\":%" PRIu64
				",\"sched_missed_multi_total\":%" PRIu64 ",\"sched_missed_wake_total\":%" PRIu64
				",\"sched_wake_not_blocked_total\":%" PRIu64,
				m->sched_missed_run_total, m->sched_missed_off_total, m->sched_missed_multi_total,
				m->sched_missed_wake_total, m->sched_wake_not_blocked_total);
		for (int i = 0; i < 3; i++)
			fprintf(out, ",\"sched_%s_recursion_misses\":%" PRIu64 ",\"sched_%s_runs\":%" PRIu64,
					pgwt_sched_prog_names[i], m->sched_recursion_misses[i], pgwt_sched_prog_names[i], m->sched_prog_runs[i]);
	}
	fputc('}', out);
}
