/*
 * trace_names.c
 *		Names of the event ids the trace writer writes that the compiled
 *		tables lack (see trace_names.h). Which ids: analysis/name_log.c
 *		(pure). Each new id is named here with pgstat_get_wait_event(),
 *		which this worker answers as a backend would: LWLock tranches
 *		registered in the postmaster (RequestNamedLWLockTranche, as this
 *		extension and pg_stat_statements do) are known to every process,
 *		custom wait events (PostgreSQL 17+) are in shared memory. A tranche
 *		this process never heard of comes back as "extension", which names
 *		nothing: it is not written (the id stays the name). The name is
 *		server data: events.tsv holds it cleaned (bounded, no control
 *		characters; tracefmt). A name events.tsv already gives the id is
 *		not written again, so a restart adds nothing.
 *
 * State: the worker's own (static), never shared.
 */
#include "postgres.h"

#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "analysis/name_log.h"
#include "analysis/names_load.h"
#include "analysis/wait_event.h"
#include "extension/trace_names.h"

#define PGWT_NAMES_BATCH	64

static pgwt_names tnames_known;	/* compiled table of this server version */
static pgwt_names tnames_file;	/* what events.tsv said at the start */
static pgwt_name_log *tnames_log = NULL;
static bool tnames_warned = false;

void
pgwt_trace_names_start(const char *dir)
{
	pgwt_names_init(&tnames_known, PG_VERSION_NUM / 10000);
	/* the file's own names only: the compiled table is asked apart */
	memset(&tnames_file, 0, sizeof(tnames_file));
	(void) pgwt_names_load_dir(&tnames_file, dir, NULL, NULL);
	tnames_log = MemoryContextAllocZero(TopMemoryContext, sizeof(pgwt_name_log));
	pgwt_name_log_init(tnames_log, &tnames_known);
}

void
pgwt_trace_names_note(const pgwt_record *r)
{
	if (tnames_log != NULL)
		pgwt_name_log_note_record(tnames_log, r);
}

/*
 * The server's name of id, or NULL. The lookup of a custom event raises
 * an error for an id the server never registered; such an id (a stray
 * value) stays unnamed rather than ending the worker.
 */
static const char *
pgwt_names_resolve(uint32 id)
{
	MemoryContext cxt = CurrentMemoryContext;
	const char *volatile name = NULL;

	PG_TRY();
	{
		name = pgstat_get_wait_event(id);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
		name = NULL;
	}
	PG_END_TRY();
	if (name != NULL && pgwt_event_class(id) == PGWT_CLASS_LWLOCK &&
		strcmp(name, "extension") == 0)
		return NULL;
	return name;
}

void
pgwt_trace_names_flush(pgwt_tf_dir_writer *dir, const pgwt_tf_file_opts *side)
{
	uint32		ids[PGWT_NAMES_BATCH];
	pgwt_tf_event_name ev[PGWT_NAMES_BATCH];
	unsigned	n,
				k = 0;
	int			rc;

	if (tnames_log == NULL || tnames_log->npending == 0)
		return;
	n = pgwt_name_log_take(tnames_log, ids, PGWT_NAMES_BATCH);
	for (unsigned i = 0; i < n; i++)
	{
		const char *name = pgwt_names_resolve(ids[i]);
		const char *had = pgwt_names_lookup(&tnames_file, ids[i]);

		if (name == NULL || (had != NULL && strcmp(had, name) == 0))
			continue;
		ev[k].id = ids[i];
		ev[k].class_name = pgwt_class_name(pgwt_event_class(ids[i]));
		ev[k].name = name;
		k++;
	}
	rc = pgwt_tf_events_append_at(pgwt_tf_dir_writer_fd(dir), side, PG_VERSION_NUM, ev, k);
	if (rc < 0 && !tnames_warned)
	{
		tnames_warned = true;
		ereport(LOG,
				(errmsg("pg_wait_tracer could not write %s: %s",
						PGWT_TF_EVENTS_NAME, pgwt_tf_strerror(rc))));
	}
}
