/*
 * wait_class.h
 *		Sanity checks and state classification of a raw wait_event_info.
 *
 * Layout (PostgreSQL 9.6 onwards): class id in the high byte, event id in
 * the low 16 bits, bits 16-23 zero. The sampler uses the check to refuse
 * values read from a wrong address; the state is the "active" view's
 * on cpu / waiting / idle column.
 */
#ifndef PGWT_TRACER_WAIT_CLASS_H
#define PGWT_TRACER_WAIT_CLASS_H

#include <stdint.h>

typedef enum pgwt_backend_state
{
	PGWT_STATE_CPU = 0,			/* no wait event set */
	PGWT_STATE_WAITING,			/* a wait that counts as DB time */
	PGWT_STATE_IDLE,			/* Activity class or Client:ClientRead */
	PGWT_STATE_INVALID			/* not a wait_event_info we recognise */
} pgwt_backend_state;

/* True when info could be a wait_event_info of a server of pg_major. */
extern int	pgwt_wait_info_valid(uint32_t info, int pg_major);

extern pgwt_backend_state pgwt_wait_classify(uint32_t info, int pg_major);

extern const char *pgwt_state_name(pgwt_backend_state st);

#endif
