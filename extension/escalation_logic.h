/*
 * escalation_logic.h
 *		The extension's escalation window: which wait classes an open window
 *		traces, the budget (analysis/policy/escalation.h) and automatic
 *		windows on anomalies (analysis/policy/anomaly.h), and the small
 *		"published" state the wait-event hooks read to decide, per wait,
 *		whether to append it to the trace ring.
 *
 * Pure logic over injected monotonic timestamps: no server calls. The
 * extension keeps one pgwt_escwin in shared memory under a spinlock
 * (escalation.c); the hooks never take it: they read only `published`,
 * whose words are written with atomic stores, the end time last when
 * opening and first when closing, so a hook sees either a whole window or
 * none (the mask or start of a just-replaced window for one wait at worst).
 */
#ifndef PGWT_ESCALATION_LOGIC_H
#define PGWT_ESCALATION_LOGIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/policy/anomaly.h"
#include "analysis/policy/escalation.h"

#define PGWT_ESCWIN_ALL_CLASSES	0xFFFFu	/* one bit per class byte 0..15 */
#define PGWT_ESCWIN_NCLASSES	16

/* What the hooks read; see the header comment. */
typedef struct pgwt_escwin_published
{
	uint64_t	end_ns;			/* window open while now < end_ns */
	uint64_t	start_ns;		/* ... and since start_ns */
	uint32_t	class_mask;
	uint32_t	generation;		/* bumped by every open and close */
} pgwt_escwin_published;

typedef struct pgwt_escwin
{
	pgwt_escalation esc;
	pgwt_anomaly anomaly;
	bool		auto_enabled;	/* open windows on anomalies */
	uint32_t	class_mask;		/* of the open window */
	pgwt_esc_close last_close;
	pgwt_escwin_published published;
} pgwt_escwin;

/* What a request got, as pgwt_escalate() reports it. */
typedef struct pgwt_escwin_grant
{
	pgwt_esc_result result;
	int64_t		granted_s;
	uint32_t	class_mask;
	int64_t		budget_left_s;	/* once the window has run; -1 unlimited */
} pgwt_escwin_grant;

extern void pgwt_escwin_init(pgwt_escwin *w, int64_t budget_s, bool auto_enabled);

/*
 * Class names ("Lock", "lwlock", "IO"...; case-insensitive) to a mask.
 * n == 0 means every class. Returns false and sets *bad to the first
 * unknown name.
 */
extern bool pgwt_escwin_parse_classes(const char *const *names, int n,
									  uint32_t *mask, const char **bad);

/*
 * Name of class byte c ("Lock"...), NULL when no server uses it (from
 * analysis/wait_event.c's table; server files need not include that
 * module's header).
 */
extern const char *pgwt_escwin_class_name(unsigned c);

/*
 * Ask for a window. A request while a window is open extends it (as the
 * budget allows) and widens its classes to the union.
 */
extern pgwt_escwin_grant pgwt_escwin_request(pgwt_escwin *w, uint64_t now_ns,
											 int64_t seconds, uint32_t class_mask,
											 pgwt_esc_reason reason);
/* Budget seconds left once the open window (if any) has run; -1 unlimited. */
extern int64_t pgwt_escwin_budget_after_s(const pgwt_escwin *w, uint64_t now_ns);

extern pgwt_esc_close pgwt_escwin_deescalate(pgwt_escwin *w, uint64_t now_ns);

/*
 * Periodic work (the drain worker, and every status read): closes a window
 * whose time is up; feeds the anomaly rules with what the always-on tier
 * saw (tick may be NULL) and opens an automatic window when they fire.
 * Returns true when an automatic window was opened.
 */
extern bool pgwt_escwin_tick(pgwt_escwin *w, uint64_t now_ns,
							 const pgwt_anomaly_tick *tick);

/*
 * Hot path: should a wait of this event over [start_ns, end_ns) be traced?
 * Only when it overlaps the window and its class is in the window's mask:
 * a wait that ended before the window began is not the window's, even when
 * the hooks hand it over (flush their buffer) while the window is open. A
 * wait that began before the window is traced from the window's start
 * (*from_ns, when given): the window is the trace's exact span, and the
 * time before it is the other tier's (traced whole, it would be billed
 * twice).
 */
static inline bool
pgwt_escwin_traces(const pgwt_escwin_published *p, uint64_t start_ns, uint64_t end_ns,
				   uint32_t wait_event_info, uint64_t *from_ns)
{
	uint64_t	end = __atomic_load_n(&p->end_ns, __ATOMIC_ACQUIRE);
	uint64_t	begin;
	uint32_t	cls = wait_event_info >> 24;

	if (start_ns >= end || cls >= 16)
		return false;
	begin = __atomic_load_n(&p->start_ns, __ATOMIC_RELAXED);
	/* a wait with some time in the window; an instant, when inside it */
	if (end_ns > start_ns ? end_ns <= begin : start_ns < begin)
		return false;
	if (((__atomic_load_n(&p->class_mask, __ATOMIC_RELAXED) >> cls) & 1) == 0)
		return false;
	if (from_ns != NULL)
		*from_ns = start_ns > begin ? start_ns : begin;
	return true;
}

#endif							/* PGWT_ESCALATION_LOGIC_H */
