/*
 * srv_ctl.h
 *		pgwt-server and the daemon (docs/WEB.md "The daemon"): /api/status
 *		(the daemon's status and self-metrics over its control socket,
 *		--control),
 *		POST /api/escalate and /api/deescalate proxied to that socket, and
 *		/api/windows, the escalation windows of a range with their reasons
 *		(from the trace, so it needs no daemon).
 */
#ifndef PGWT_SRV_CTL_H
#define PGWT_SRV_CTL_H

#include "srv.h"

#define SRV_CTL_MAX_ANSWER	(64 * 1024)	/* a daemon's answer, at most */
#define SRV_CTL_TIMEOUT_MS	2000		/* connect, send and answer within */
#define SRV_MAX_WINDOWS		1000		/* windows listed per request */

void		srv_api_status(const srv_config *cfg, srv_reply *r);
void		srv_api_escalate(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r);
void		srv_api_deescalate(const srv_config *cfg, srv_reply *r);
void		srv_api_windows(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r);

/*
 * Pure: whether an answer line is one JSON object we may pass on as is
 * (braces at both ends, no control byte); and whether it says "ok":false.
 */
bool		srv_ctl_answer_sane(const char *s, size_t len);
bool		srv_ctl_answer_refused(const char *s, size_t len);

#endif							/* PGWT_SRV_CTL_H */
