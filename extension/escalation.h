/*
 * escalation.h
 *		Which tier answers an escalation request right now, for pgwt_status:
 *		the coop tier's own window (server hooks), else an external tracer's
 *		fresh report (pgwt_tracer_report), else the sampler, which has no
 *		exact tier. Implemented in escalation.c.
 */
#ifndef PGWT_EXTENSION_ESCALATION_H
#define PGWT_EXTENSION_ESCALATION_H

/* A tracer report older than this no longer answers (it reports every 5 s). */
#define PGWT_TRACER_FRESH_S 15

typedef struct pgwt_esc_answer
{
	const char *tier;			/* coop, external, sampler, none */
	bool		window_open;
	bool		window_id_null;
	int64		window_id;
	bool		seconds_left_null;
	int32		seconds_left;
	bool		budget_left_null;	/* unlimited, or unknown */
	int32		budget_left_s;
	int			tracer_pid;		/* 0: no external tracer answers */
	char		note[320];
} pgwt_esc_answer;

extern void pgwt_esc_answering(pgwt_esc_answer *a);

#endif
