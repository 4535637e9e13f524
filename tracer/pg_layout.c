/*
 * pg_layout.c
 *		Where each PostgreSQL major keeps a backend's wait_event_info, and
 *		so which global the tracer reads through (pure).
 *
 * 14 and later export my_wait_event_info, a pointer to the uint32 (at a
 * process-local dummy in the binary until the backend has a PGPROC). 13
 * writes the value straight into the backend's PGPROC through MyProc, so
 * the tracer reads MyProc (NULL until then) and adds the field's offset.
 * That offset is a fact of 13's struct PGPROC on x86-64 (the only
 * architecture the BPF tiers build for); 74-tracer-versions checks it
 * against offsetof() compiled with the 13 server's own headers, and the
 * known-truth checks there fail if it were wrong.
 */
#include "tracer/pg_layout.h"

#include <stdio.h>

/* offsetof(PGPROC, wait_event_info) in PostgreSQL 13, x86-64. */
#define PGL_PG13_WAIT_OFF 684

int
pgwt_pg_layout_of(int pg_major, pgwt_pg_layout *out, char *errbuf, size_t errlen)
{
	if (pg_major < PGWT_MIN_PG_MAJOR || pg_major > PGWT_MAX_PG_MAJOR)
	{
		snprintf(errbuf, errlen,
				 "PostgreSQL %d is not supported by the tracer (supported: %d to %d)",
				 pg_major, PGWT_MIN_PG_MAJOR, PGWT_MAX_PG_MAJOR);
		return -1;
	}
	if (pg_major == 13)
		*out = (pgwt_pg_layout) {"MyProc", PGL_PG13_WAIT_OFF, 0};
	else
		*out = (pgwt_pg_layout) {"my_wait_event_info", 0, 1};
	return 0;
}

uint64_t
pgwt_pg_layout_wait_addr(const pgwt_pg_layout *l, uint64_t ptr,
						 uint64_t image_lo, uint64_t image_hi)
{
	if (ptr == 0 || (ptr & 3) != 0)
		return 0;
	if (l->dummy_in_image && ptr >= image_lo && ptr < image_hi)
		return 0;
	return ptr + l->wait_off;
}
