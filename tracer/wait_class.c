/*
 * wait_class.c
 *		Validation and on cpu / waiting / idle classification of raw
 *		wait_event_info values (pure). Class bytes and the idle rule come
 *		from common/event_ids.h.
 */
#include "tracer/wait_class.h"

#include "common/event_ids.h"

int
pgwt_wait_info_valid(uint32_t info, int pg_major)
{
	uint32_t	cls = info >> 24;

	if (info == 0 || info == PGWT_EVENT_CPU_RUNQUEUE || info == PGWT_EVENT_CPU_ONCPU)
		return 1;				/* CPU*, and the scheduler tier's split of it */
	if ((info & 0x00FF0000u) != 0)
		return 0;
	switch (cls)
	{
		case PGWT_CLASS_LWLOCK:
		case PGWT_CLASS_LOCK:
		case PGWT_CLASS_BUFFERPIN:
		case PGWT_CLASS_ACTIVITY:
		case PGWT_CLASS_CLIENT:
		case PGWT_CLASS_EXTENSION:
		case PGWT_CLASS_IPC:
		case PGWT_CLASS_TIMEOUT:
		case PGWT_CLASS_IO:
			return 1;
		case PGWT_CLASS_INJECTIONPOINT:
			return pg_major >= 17;
		default:
			return 0;
	}
}

pgwt_backend_state
pgwt_wait_classify(uint32_t info, int pg_major)
{
	if (!pgwt_wait_info_valid(info, pg_major))
		return PGWT_STATE_INVALID;
	if (pgwt_event_is_cpu(info))
		return PGWT_STATE_CPU;
	if (pgwt_event_is_idle(info))
		return PGWT_STATE_IDLE;
	return PGWT_STATE_WAITING;
}

const char *
pgwt_state_name(pgwt_backend_state st)
{
	switch (st)
	{
		case PGWT_STATE_CPU:
			return "on cpu";
		case PGWT_STATE_WAITING:
			return "waiting";
		case PGWT_STATE_IDLE:
			return "idle";
		default:
			return "invalid";
	}
}
