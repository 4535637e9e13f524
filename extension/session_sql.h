/*
 * session_sql.h
 *		The one row of the per-session time split, live and history
 *		(pgwt_session_time, pgwt_history_session_time): after the identity
 *		columns of pgwt_session_event,
 *
 *		  db_time_ms float8, cpu_ms float8, wait_ms float8, idle_ms float8,
 *		  top_wait_event_type text, top_wait_event text, top_wait_ms float8,
 *		  fidelity text
 *
 *		db_time_ms is CPU* plus non-idle waits, NULL for a background
 *		process (its time is never DB time); the top wait is the largest
 *		non-idle event (ties to the smaller id). The live sources add their
 *		rows into a PgwtSessionTally; the history has the engine's.
 *
 * Server code (Datum), header-only; no shared state.
 */
#ifndef PGWT_SESSION_SQL_H
#define PGWT_SESSION_SQL_H

#include "postgres.h"

#include "utils/builtins.h"
#include "utils/wait_event.h"

#include "common/event_ids.h"
#include "common/units.h"

typedef struct PgwtSessionTally
{
	uint64		cpu_ns;
	uint64		wait_ns;			/* non-idle waits */
	uint64		idle_ns;
	uint32		top;				/* largest non-idle event; 0: none */
	uint64		top_ns;
} PgwtSessionTally;

/* One event's time into the tally (event 0: CPU*). */
static inline void
pgwt_session_tally_add(PgwtSessionTally *t, uint32 event, uint64 ns)
{
	if (event == 0)
		t->cpu_ns += ns;
	else if (pgwt_event_is_idle(event))
		t->idle_ns += ns;
	else
	{
		t->wait_ns += ns;
		if (ns > t->top_ns || (ns == t->top_ns && t->top != 0 && event < t->top))
		{
			t->top_ns = ns;
			t->top = event;
		}
	}
}

/*
 * The eight columns from values[col] on; the top wait's names as given
 * (NULL: unknown). Returns the next column.
 */
static inline int
pgwt_session_time_columns(Datum *values, bool *nulls, int col, uint64 db_ns, bool background,
						  uint64 cpu_ns, uint64 wait_ns, uint64 idle_ns,
						  bool has_top, const char *top_type, const char *top_name,
						  uint64 top_ns, const char *fidelity)
{
	values[col] = Float8GetDatum(pgwt_ms_of_ns(db_ns));
	nulls[col++] = background;
	values[col++] = Float8GetDatum(pgwt_ms_of_ns(cpu_ns));
	values[col++] = Float8GetDatum(pgwt_ms_of_ns(wait_ns));
	values[col++] = Float8GetDatum(pgwt_ms_of_ns(idle_ns));
	nulls[col] = !has_top || top_type == NULL;
	if (!nulls[col])
		values[col] = CStringGetTextDatum(top_type);
	col++;
	nulls[col] = !has_top || top_name == NULL;
	if (!nulls[col])
		values[col] = CStringGetTextDatum(top_name);
	col++;
	nulls[col] = !has_top;
	if (has_top)
		values[col] = Float8GetDatum(pgwt_ms_of_ns(top_ns));
	col++;
	values[col++] = CStringGetTextDatum(fidelity);
	return col;
}

/* A live tally's columns, named by this server. */
static inline int
pgwt_session_tally_columns(Datum *values, bool *nulls, int col, const PgwtSessionTally *t,
						   bool background, const char *fidelity)
{
	return pgwt_session_time_columns(values, nulls, col, t->cpu_ns + t->wait_ns, background,
									 t->cpu_ns, t->wait_ns, t->idle_ns, t->top != 0,
									 t->top ? pgstat_get_wait_event_type(t->top) : NULL,
									 t->top ? pgstat_get_wait_event(t->top) : NULL,
									 t->top_ns, fidelity);
}

#endif							/* PGWT_SESSION_SQL_H */
