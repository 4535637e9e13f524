/*
 * esc_notify.h
 *		Pure logic of the daemon's SQL escalation channel (esc_listen.c):
 *		deciding whether a request's sender may make it, escaping database
 *		text for the log, the reconnect backoff, and the set of the
 *		channel's own backends that capture leaves out. The messages
 *		themselves (channel, payload, report) are common/esc_protocol.h.
 *		No I/O.
 */
#ifndef PGWT_TRACER_ESC_NOTIFY_H
#define PGWT_TRACER_ESC_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/policy/escalation.h"
#include "common/esc_protocol.h"

/*
 * What the server says about a notification's sender, looked up on the
 * connection that received it: its pg_stat_activity row in this database
 * (found), that row's backend_start in Unix microseconds, and whether its
 * role holds EXECUTE on the extension's pgwt_escalate(integer, text[]) and
 * pgwt_deescalate().
 */
typedef struct pgwt_esc_sender
{
	bool		found;
	long long	start_us;
	bool		may_escalate;
	bool		may_deescalate;
	char		role[64];
} pgwt_esc_sender;

typedef enum pgwt_esc_verdict
{
	PGWT_ESC_AUTHORIZED = 0,
	PGWT_ESC_REFUSED_NO_START,	/* the payload has no backend_start_us */
	PGWT_ESC_REFUSED_GONE,		/* no such backend in this database now */
	PGWT_ESC_REFUSED_START,		/* another backend's start: pid reused or
								 * a forged payload */
	PGWT_ESC_REFUSED_PRIVILEGE, /* its role may not call the function */
	PGWT_ESC_REFUSED_UNVERIFIED,	/* the lookup failed or was not made */
	PGWT_ESC_REFUSED_BUSY		/* too many requests waiting for a lookup */
} pgwt_esc_verdict;

/*
 * The same rule as calling the SQL function: the backend that sent the
 * notification still runs (the same start time as the payload says), and
 * its role may execute pgwt_escalate() (escalate) or pgwt_deescalate()
 * (deescalate).
 */
pgwt_esc_verdict pgwt_esc_authorize(const pgwt_esc_notice *n, const pgwt_esc_sender *s);
const char *pgwt_esc_verdict_text(pgwt_esc_verdict v);

/*
 * Database text (names, payload fields, server messages) made safe for a
 * one-line log: printable ASCII kept, '\\' and '"' escaped, anything else
 * (control characters, newlines, bytes over 0x7e) as \xNN, cut to at most
 * max_in input bytes (then "..."). out always ends in '\0'; returns out.
 */
#define PGWT_ESC_LOG_MAX_IN		64
char	   *pgwt_esc_log_escape(const char *in, size_t max_in, char *out, size_t cap);

/*
 * Delay before reconnect attempt number `failures` (1-based): 1 s doubling
 * to 60 s, so a cluster that is down costs a connection attempt a minute.
 */
uint64_t	pgwt_esc_backoff_ns(int failures);

/*
 * The backends of the channel's own connections, which the capture tiers
 * leave out: a DBA asking where the database's time goes should not see
 * the tool. Each connection has a slot (0..PGWT_OWN_SLOTS-1): it is marked
 * connecting when it starts, gets its backend's pid once connected
 * (PQbackendPID), and is cleared when it closes, so a reconnect replaces
 * the pid and a pid the kernel later gives another backend is traced
 * again.
 *
 * Between the fork of our backend and the moment we learn its pid the
 * backend is already sampleable; so while a connect is in flight (for at
 * most PGWT_OWN_HOLD_MAX_NS) readers hold back the backends they first saw
 * after it started (pgwt_own_hold_since).
 *
 * Readers keep the generation they last acted on and look at the pids only
 * when it moved: a steady tick costs one comparison.
 */
#define PGWT_OWN_SLOTS			32
#define PGWT_OWN_HOLD_MAX_NS	500000000ull

typedef struct pgwt_own_backends
{
	uint64_t	generation;		/* bumped on every change */
	int			npids;
	uint32_t	pids[PGWT_OWN_SLOTS];	/* known pids, sorted */
	uint64_t	connecting_since_ns;	/* oldest connect in flight, 0 none */
	uint32_t	slot_pid[PGWT_OWN_SLOTS];	/* 0: unknown yet or unused */
	uint64_t	slot_since_ns[PGWT_OWN_SLOTS];	/* connect start, 0 unused */
} pgwt_own_backends;

/* A zeroed struct is an empty set. Bad slots are ignored. */
void		pgwt_own_connecting(pgwt_own_backends *o, int slot, uint64_t now_ns);
void		pgwt_own_connected(pgwt_own_backends *o, int slot, uint32_t pid);
void		pgwt_own_closed(pgwt_own_backends *o, int slot);
bool		pgwt_own_has(const pgwt_own_backends *o, uint32_t pid);

/*
 * Backends first seen at or after the returned time may be a connection
 * of ours still starting: hold them back. UINT64_MAX when none is.
 */
uint64_t	pgwt_own_hold_since(const pgwt_own_backends *o, uint64_t now_ns);

/*
 * What a capture source (sampler, watch source) holds of the two sets whose
 * pids it never traces: the listener's backends and the processes that are
 * no session, each with the generation it last acted on. Either may be
 * NULL.
 */
typedef struct pgwt_exclusions
{
	const pgwt_own_backends *own;
	const pgwt_own_backends *nonsess;
	uint64_t	own_gen;
	uint64_t	nonsess_gen;
} pgwt_exclusions;

/* Point at the sets; the next pgwt_exclusions_moved() says true. */
static inline void
pgwt_exclusions_init(pgwt_exclusions *x, const pgwt_own_backends *own,
					 const pgwt_own_backends *nonsess)
{
	x->own = own;
	x->nonsess = nonsess;
	x->own_gen = own ? own->generation - 1 : 0;
	x->nonsess_gen = nonsess ? nonsess->generation - 1 : 0;
}

static inline bool
pgwt_exclusions_has(const pgwt_exclusions *x, uint32_t pid)
{
	return (x->own && x->own->npids && pgwt_own_has(x->own, pid)) ||
		(x->nonsess && x->nonsess->npids && pgwt_own_has(x->nonsess, pid));
}

/* A set changed since pgwt_exclusions_applied(): one comparison each. */
static inline bool
pgwt_exclusions_moved(const pgwt_exclusions *x)
{
	return (x->own && x->own->generation != x->own_gen) ||
		(x->nonsess && x->nonsess->generation != x->nonsess_gen);
}

static inline void
pgwt_exclusions_applied(pgwt_exclusions *x)
{
	x->own_gen = x->own ? x->own->generation : 0;
	x->nonsess_gen = x->nonsess ? x->nonsess->generation : 0;
}

/* pgwt_own_hold_since of the listener's set; UINT64_MAX when none holds. */
static inline uint64_t
pgwt_exclusions_hold_since(const pgwt_exclusions *x, uint64_t now_ns)
{
	return x->own && x->own->connecting_since_ns ? pgwt_own_hold_since(x->own, now_ns) : UINT64_MAX;
}

#endif
