/*
 * exact_kernel.h
 *		The kernel side of an exact capture source, as watch_source.c drives
 *		it: watchpoints (tracer/watch/) or the scheduler's tracepoints
 *		(sched_source.c). Both follow the same backends the same way (fork
 *		and exit notifications, the PGPROC wait, exclusions, closing
 *		transitions); only how a backend is traced and drained differs.
 *
 * Every call comes from the daemon loop's one thread.
 */
#ifndef PGWT_TRACER_EXACT_KERNEL_H
#define PGWT_TRACER_EXACT_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/wait_watch.h"
#include "tracer/self_metrics.h"
#include "tracer/watch/self_test.h"
#include "tracer/watch/watchpoints.h"

typedef struct pgwt_exact_kernel
{
	const char *tier;			/* the source's name: "full", "sched" */
	/*
	 * The id its records give "no wait event": 0 (CPU*), or
	 * PGWT_EVENT_CPU_ONCPU where CPU:RunQueue is split off (common/event_ids.h).
	 */
	uint32_t	cpu_event;
	void	   *h;				/* the loaded program */
	/* Trace pid (pgwt_watch_add's arguments and contract). */
	int			(*add) (void *h, pid_t pid, uint64_t wait_addr, uint64_t qid_addr,
						uint64_t xact_addr, uint32_t current_event, char *err, size_t errlen);
	int			(*remove) (void *h, pid_t pid);
	int			(*count) (void *h);
	/* The program's state of pid: event, since_ns, query_id_addr. */
	int			(*target_get) (void *h, pid_t pid, struct pgwt_watch_target *out);
	/* Move it to t's event and since_ns (the attach race). */
	int			(*target_set) (void *h, pid_t pid, const struct pgwt_watch_target *t);
	void		(*set_qid_source) (void *h, uint64_t be_var, int qid_offset, int xact_offset);
	int			(*poll) (void *h, int timeout_ms, pgwt_watch_sink sink, void *arg);
	/* Counters as the watchpoint program's (enum pgwt_watch_counter). */
	void		(*counters) (void *h, uint64_t out[PGWT_WC_NCOUNTERS]);
	int			(*self_test) (void *h, pgwt_watch_self_test *r);
	void		(*close) (void *h);
	/* Optional: the kernel side's own counters into the status (once a second). */
	void		(*metrics) (void *h, pgwt_self_metrics *m);
	/* Optional: counters kept in user space, no system call: every drain. */
	void		(*metrics_drained) (void *h, pgwt_self_metrics *m);

	/*
	 * Optional: attach (on) or detach the kernel programs. Called with true
	 * before the first backend is traced and with false once the last one
	 * is released, so a program that runs for every task on the machine
	 * costs nothing between windows. The self-test attaches for itself.
	 */
	int			(*set_active) (void *h, bool on, char *err, size_t errlen);
} pgwt_exact_kernel;

#endif
