/*
 * pg_layout.h
 *		Where, per PostgreSQL major version, a backend keeps the
 *		wait_event_info the tracer reads (pure; see pg_layout.c).
 */
#ifndef PGWT_TRACER_PG_LAYOUT_H
#define PGWT_TRACER_PG_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* Oldest and newest major versions the read method is known to hold for. */
#define PGWT_MIN_PG_MAJOR 13
#define PGWT_MAX_PG_MAJOR 18

typedef struct pgwt_pg_layout
{
	/*
	 * The global pointer variable read in every backend: its value plus
	 * wait_off is the address of the backend's uint32 wait_event_info.
	 */
	const char *pointer_sym;
	uint32_t	wait_off;
	/*
	 * 1: before a backend has a PGPROC the pointer aims at a dummy inside
	 * the binary (14+); 0: it is NULL then (13, MyProc).
	 */
	int			dummy_in_image;
} pgwt_pg_layout;

/* 0 and *out filled, or -1 with the reason in errbuf. */
int			pgwt_pg_layout_of(int pg_major, pgwt_pg_layout *out, char *errbuf, size_t errlen);

/*
 * The address of wait_event_info from the pointer variable's value, or 0
 * when the value names no PGPROC yet (NULL, misaligned, or the dummy in
 * the binary's image [image_lo, image_hi)).
 */
uint64_t	pgwt_pg_layout_wait_addr(const pgwt_pg_layout *l, uint64_t ptr,
									 uint64_t image_lo, uint64_t image_hi);

#endif
