/*
 * session.h
 *		One attachment to one running cluster: target selection, address
 *		resolution, the libpq side and the capture source. The daemon
 *		closes a session when its postmaster dies and opens a new one when
 *		the cluster is back.
 */
#ifndef PGWT_TRACER_SESSION_H
#define PGWT_TRACER_SESSION_H

#include <stdio.h>

#include "tracer/attach.h"
#include "tracer/capture.h"
#include "tracer/cli.h"
#include "tracer/esc_notify.h"
#include "tracer/pgconn.h"
#include "tracer/self_metrics.h"
#include "tracer/target.h"

typedef struct pgwt_session
{
	pgwt_cluster cluster;
	pgwt_attach attach;
	pgwt_pgconn *pg;			/* NULL until a connection succeeds */
	pgwt_capture_source *src;	/* the primary source: ticks drive the loop */
	pgwt_capture_source *sampler;	/* the sampled tier, or NULL (full) */
	pgwt_capture_source *watch; /* the exact tier, or NULL (sampled, or
								 * unavailable: watch_err says why) */
	bool		exact_ok;		/* watch passed its self-test at attach */
	char		watch_err[256];
	int			server_version; /* server_version_num, or major * 10000 */
	int			qid_status;		/* 1 located, 0 not yet tried, -1 unavailable */
	char		qid_reason[512];
	uint64_t	last_pg_try_ns;
	/* processes that are no session, left out by both tiers */
	pgwt_own_backends non_sessions;
	uint64_t	non_sessions_capped;	/* found but no slot left: still traced */
} pgwt_session;

/*
 * Pick the cluster from --pid, --pgdata or auto-discovery. With several
 * running clusters and no choice made, lists them on `listing` and fails.
 */
extern int	pgwt_target_select(const pgwt_options *o, pgwt_cluster *c, FILE *listing,
							   char *errbuf, size_t errlen);

/* Resolve addresses and start sampling. -1 + errbuf when unreadable. */
extern int	pgwt_session_open(pgwt_session *s, const pgwt_options *o,
							  const pgwt_cluster *c, pgwt_self_metrics *m,
							  char *errbuf, size_t errlen);

/* (Re)connect libpq and locate st_query_id when not done yet. */
extern void pgwt_session_connect(pgwt_session *s, const pgwt_options *o,
								 uint64_t now_ns, int verbose);

/* Never trace this pid (our own libpq backend), in every source. */
extern void pgwt_session_ignore_pid(pgwt_session *s, uint32_t pid);
/* Tiered auto: choose the escalation windows' source again (not in a window). */
extern void pgwt_session_reselect_exact(pgwt_session *s, const pgwt_options *o,
										pgwt_self_metrics *m);

/*
 * Decide from a pg_stat_activity read which of the postmaster's children
 * are not captured (pgwt_kind_is_captured; a child without a row once
 * it is older than a second) and leave them out of capture from the next
 * tick. Returns true when a child without a row is too young to judge: the
 * caller reads pg_stat_activity again within a second.
 */
extern bool pgwt_session_classify(pgwt_session *s, const pgwt_pg_backend *rows, int n,
								  uint64_t now_ns);

extern void pgwt_session_close(pgwt_session *s);

#endif
