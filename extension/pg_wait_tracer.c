/*
 * pg_wait_tracer.c
 *		Module entry point of the pg_wait_tracer extension.
 *
 * The library must be loaded through shared_preload_libraries: it reserves
 * shared memory and installs hooks at postmaster start. Loaded any other way
 * it stays inert, and CREATE EXTENSION fails with a message saying how to
 * fix the configuration.
 *
 * Which tier runs is decided at build time (the timed-pair wait-event hooks
 * exist in the server headers or not) and reported by pgwt_status().
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

PG_MODULE_MAGIC;

#define PGWT_LIBRARY_VERSION "0.1"

static bool pgwt_loaded_at_startup = false;

void		_PG_init(void);

PG_FUNCTION_INFO_V1(pgwt_require_preload);
PG_FUNCTION_INFO_V1(pgwt_status);

void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	pgwt_loaded_at_startup = true;
}

Datum
pgwt_require_preload(PG_FUNCTION_ARGS)
{
	if (!pgwt_loaded_at_startup)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_wait_tracer must be loaded via \"shared_preload_libraries\""),
				 errhint("Add pg_wait_tracer to shared_preload_libraries in postgresql.conf and restart the server.")));
	PG_RETURN_VOID();
}

Datum
pgwt_status(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false};
	const char *tier;
	const char *reason;
	bool		hooks;

#ifdef PGWT_HAVE_WAIT_EVENT_HOOKS
	hooks = true;
#else
	hooks = false;
#endif

	if (!pgwt_loaded_at_startup)
	{
		tier = "off";
		reason = "the library is not in shared_preload_libraries";
	}
	else if (hooks)
	{
		tier = "coop";
		reason = "exact timing through the server's wait-event hooks";
	}
	else
	{
		tier = "none";
		reason = "this server has no wait-event hooks";
	}

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	values[0] = CStringGetTextDatum(tier);
	values[1] = BoolGetDatum(hooks);
	values[2] = CStringGetTextDatum(reason);
	values[3] = CStringGetTextDatum(PGWT_LIBRARY_VERSION);
	values[4] = Int32GetDatum(PG_VERSION_NUM);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
