/*
 * wait_class.c
 *		Validation and on cpu / waiting / idle classification of raw
 *		wait_event_info values (pure).
 */
#include "tracer/wait_class.h"

/* Class bytes (wait_event_info >> 24); stable since PostgreSQL 10. */
#define WC_LWLOCK		0x01u
#define WC_LOCK			0x03u
#define WC_BUFFERPIN	0x04u
#define WC_ACTIVITY		0x05u
#define WC_CLIENT		0x06u
#define WC_EXTENSION	0x07u
#define WC_IPC			0x08u
#define WC_TIMEOUT		0x09u
#define WC_IO			0x0Au
#define WC_INJECTION	0x0Bu	/* PostgreSQL 17+ */
#define WC_CLIENT_READ	0x06000000u

int
pgwt_wait_info_valid(uint32_t info, int pg_major)
{
	uint32_t	cls = info >> 24;

	if (info == 0)
		return 1;
	if ((info & 0x00FF0000u) != 0)
		return 0;
	switch (cls)
	{
		case WC_LWLOCK:
		case WC_LOCK:
		case WC_BUFFERPIN:
		case WC_ACTIVITY:
		case WC_CLIENT:
		case WC_EXTENSION:
		case WC_IPC:
		case WC_TIMEOUT:
		case WC_IO:
			return 1;
		case WC_INJECTION:
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
	if (info == 0)
		return PGWT_STATE_CPU;
	if ((info >> 24) == WC_ACTIVITY || info == WC_CLIENT_READ)
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
