/*
 * tiered.h
 *		The tier controller of the daemon: escalation windows of the exact
 *		tier over the always-on sampler, opened through the control socket
 *		or by the anomaly rules, bounded by the rolling-hour budget
 *		(analysis/policy/), with ESC_START/ESC_END markers in the record
 *		stream. Also answers the control socket's status and metrics in
 *		every mode and, in daemon mode, pgwt_escalate()/pgwt_deescalate()
 *		from SQL through esc_listen.c, reporting back with
 *		pgwt_tracer_report().
 */
#ifndef PGWT_TRACER_TIERED_H
#define PGWT_TRACER_TIERED_H

#include <stdbool.h>
#include <stdint.h>

#include "tracer/capture.h"
#include "tracer/cli.h"
#include "tracer/self_metrics.h"

typedef struct pgwt_tiered pgwt_tiered;

/*
 * Opens the control socket ({trace_dir}/pgwt.sock) when o->trace_dir is
 * set, in trace_dirfd (the recorder's checked descriptor of it; -1: opened
 * by path), and the Prometheus listener when asked. Records (markers, the
 * transitions drained when a window closes) go to emit.
 */
int			pgwt_tiered_create(pgwt_tiered **out, const pgwt_options *o, int trace_dirfd,
							   pgwt_self_metrics *metrics, pgwt_emit_fn emit, void *arg,
							   char *err, size_t errlen);

/*
 * The current attachment: the exact source (NULL when the full tier is not
 * available), whether it passed its self-test at attach (else why), the
 * postmaster pid and major version. Called with watch NULL and pg_pid 0
 * when the session closes: an open window is closed first. A source that
 * failed is tested again before each request: windows open only once it
 * sees.
 */
void		pgwt_tiered_set_session(pgwt_tiered *t, pgwt_capture_source *watch,
									bool exact_ok, const char *why_unavailable,
									int pg_pid, int pg_major, uint64_t now_ns);

/*
 * --exact-source auto: fn(arg) chooses the windows' source again (the
 * session's order) and hands it back with pgwt_tiered_set_session; called
 * only between windows, from a request or a step.
 */
typedef void (*pgwt_tiered_reselect_fn) (void *arg);
void		pgwt_tiered_set_reselect(pgwt_tiered *t, pgwt_tiered_reselect_fn fn, void *arg);

/* The trace directory's side-file options (windows.tsv's bound and mode). */
struct pgwt_tf_file_opts;
void		pgwt_tiered_set_side_opts(pgwt_tiered *t, const struct pgwt_tf_file_opts *opts);

/* Can an exact window open now? (false: sampled only, see the status) */
bool		pgwt_tiered_exact_available(const pgwt_tiered *t);

/* Every record emitted: the totals per wait event of the Prometheus series. */
void		pgwt_tiered_note_records(pgwt_tiered *t, const pgwt_record *recs, size_t n);

/* The names the series' labels use (the session's; may change on re-attach). */
struct pgwt_names;
void		pgwt_tiered_set_names(pgwt_tiered *t, const struct pgwt_names *names);

/* Records of one sampler tick (the anomaly rules' input). */
void		pgwt_tiered_on_samples(pgwt_tiered *t, const pgwt_record *recs, size_t n);

/* After each loop step: evaluate rules on a new tick, close a window due. */
void		pgwt_tiered_step(pgwt_tiered *t, uint64_t now_ns);

/*
 * Serve the control sockets and the SQL listener's connections, waiting at
 * most timeout_ms.
 */
void		pgwt_tiered_service(pgwt_tiered *t, int timeout_ms);

/* Is there anything for pgwt_tiered_service() to serve? */
bool		pgwt_tiered_has_control(const pgwt_tiered *t);

/* "sampled", "escalated" or "full". */
const char *pgwt_tiered_tier(const pgwt_tiered *t);

void		pgwt_tiered_free(pgwt_tiered *t, uint64_t now_ns);

#endif
