/*
 * proc_events.h
 *		Process fork/exit notifications from the kernel's proc connector
 *		(netlink, needs CAP_NET_ADMIN). The sampler uses them to see new
 *		backends the moment they are forked, instead of listing /proc on
 *		every tick; /proc is still listed now and then as a safety net.
 */
#ifndef PGWT_TRACER_PROC_EVENTS_H
#define PGWT_TRACER_PROC_EVENTS_H

#include <stdint.h>

typedef struct pgwt_proc_event_cb
{
	void		(*fork) (void *arg, uint32_t parent_tgid, uint32_t child_tgid);
	void		(*exit) (void *arg, uint32_t tgid);
	void	   *arg;
} pgwt_proc_event_cb;

/* A non-blocking listening socket, or -1 (errno set) when unavailable. */
extern int	pgwt_proc_events_open(void);

/*
 * The same, passing only the events of one process's children: forks by
 * parent_tgid, exits of its children and of the parent itself. Other
 * processes' forks and exits (a busy host has thousands a second) are
 * dropped in the kernel, never queued or received. Falls back to the
 * unfiltered socket when the filter cannot be attached.
 */
extern int	pgwt_proc_events_open_children(uint32_t parent_tgid);

/*
 * Attach that filter to any datagram socket whose messages are netlink
 * proc connector messages (tests feed crafted ones through a socketpair).
 * 0, or -1 with errno set.
 */
extern int	pgwt_proc_events_filter_children(int fd, uint32_t parent_tgid);

/*
 * Deliver every pending event. Returns the number of events, or -1 when
 * some were lost (the kernel's buffer overflowed): the caller must resync
 * from /proc.
 */
extern int	pgwt_proc_events_drain(int fd, const pgwt_proc_event_cb *cb);

extern void pgwt_proc_events_close(int fd);

#endif
