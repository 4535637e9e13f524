/*
 * trace_markers.h
 *		Statement markers of the exact trace (trace_markers.c).
 */
#ifndef PGWT_TRACE_MARKERS_H
#define PGWT_TRACE_MARKERS_H

/* From _PG_init, where the server has the wait-event hooks. */
extern void pgwt_trace_markers_install(void);

#endif							/* PGWT_TRACE_MARKERS_H */
