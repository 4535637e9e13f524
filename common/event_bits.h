/*
 * event_bits.h
 *		The class bytes of a wait event id, Client:ClientRead and the idle
 *		rule, as macros with no include of their own, so the BPF programs
 *		(which cannot include libc's headers) share them with every other
 *		tier; event_ids.h builds its functions on them.
 */
#ifndef PGWT_COMMON_EVENT_BITS_H
#define PGWT_COMMON_EVENT_BITS_H

/* Class bytes (wait_event_info >> 24), the same in PG13..PG18. */
#define PGWT_CLASS_CPU				0x00	/* id 0: no wait event set */
#define PGWT_CLASS_LWLOCK			0x01
#define PGWT_CLASS_LOCK				0x03
#define PGWT_CLASS_BUFFERPIN		0x04
#define PGWT_CLASS_ACTIVITY			0x05
#define PGWT_CLASS_CLIENT			0x06
#define PGWT_CLASS_EXTENSION		0x07
#define PGWT_CLASS_IPC				0x08
#define PGWT_CLASS_TIMEOUT			0x09
#define PGWT_CLASS_IO				0x0A
#define PGWT_CLASS_INJECTIONPOINT	0x0B	/* PG17+ */
#define PGWT_NCLASSES				16		/* class bytes 0x00..0x0F */
#define PGWT_CLASS_UNKNOWN			PGWT_NCLASSES	/* any byte >= 0x10 */

#define PGWT_EVENT_CLIENT_READ		0x06000000u	/* idle: waiting for a query */

/* Idle time is not DB time: the Activity class and Client:ClientRead. */
#define PGWT_EVENT_IS_IDLE(id) \
	((((id) >> 24) == PGWT_CLASS_ACTIVITY) || (id) == PGWT_EVENT_CLIENT_READ)

#endif							/* PGWT_COMMON_EVENT_BITS_H */
