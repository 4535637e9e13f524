/*
 * memory.c
 *		pgwt_memory(): the extension's shared memory by part, as it reserved
 *		it at start (the sizes are those of the settings the postmaster
 *		read), and the total pgwt_status shows.
 *
 * What grows with max_connections: the statistics slots (one per backend
 * that can exist, plus the spares of pg_wait_tracer.max_sessions and the
 * auxiliary region) and the lists beside them. The rest is fixed by
 * settings: the query table (max_queries), the retired totals, the pool
 * of trace rings (trace_rings x trace_ring_size) and, on servers without
 * hooks, the sampler's tables. No shared state of its own: it reads sizes.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "extension/pgwt_memory.h"
#include "extension/pgwt_shared.h"
#include "extension/sampler.h"
#include "extension/trace_capture.h"

PG_FUNCTION_INFO_V1(pgwt_memory);

/* Fill parts (at most PGWT_MEMORY_PARTS); returns how many. */
int
pgwt_memory_parts(PgwtMemoryPart *parts)
{
	int			n = 0;

#ifdef PGWT_COOP_BUILD
	if (pgwt_shared != NULL)
	{
		Size		slots,
					lists,
					state;

		pgwt_slots_memory(&slots, &lists, &state);
		parts[n++] = (PgwtMemoryPart) {"slots", slots,
			psprintf("%d slots (%d pool, %d auxiliary) of %zu bytes",
					 pgwt_shared->nslots, pgwt_shared->npool, pgwt_shared->naux,
					 sizeof(PgwtSlot))};
		parts[n++] = (PgwtMemoryPart) {"slot lists", lists,
			"free and exited pool slots, auxiliary owners"};
		parts[n++] = (PgwtMemoryPart) {"state", state,
			"header and the retired totals"};
		parts[n++] = (PgwtMemoryPart) {"query table", pgwt_query_shmem_size(),
			psprintf("%d (query, event, role) entries (max_queries)", pgwt_max_queries)};
	}
#endif
	if (pgwt_trace_shared != NULL)
	{
		parts[n++] = (PgwtMemoryPart) {"trace header", pgwt_trace_header_bytes(),
			"escalation window, trace writer state, the pool's words"};
		parts[n++] = (PgwtMemoryPart) {"trace rings", pgwt_trace_rings_bytes(),
			psprintf("%d rings (trace_rings) of %u entries (trace_ring_size)",
					 pgwt_trace_shared->nrings, pgwt_trace_shared->ring_capacity)};
	}
	if (pgwt_sampler != NULL)
		parts[n++] = (PgwtMemoryPart) {"sampler", pgwt_sampler_shmem_size(),
			"profiles, recent-history ring, per-process state"};
	return n;
}

/* The sum of every part. */
int64
pgwt_memory_total(void)
{
	PgwtMemoryPart parts[PGWT_MEMORY_PARTS];
	int			n = pgwt_memory_parts(parts);
	int64		total = 0;

	for (int i = 0; i < n; i++)
		total += (int64) parts[i].bytes;
	return total;
}

/* pgwt_memory() RETURNS SETOF (part text, bytes bigint, detail text) */
Datum
pgwt_memory(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PgwtMemoryPart parts[PGWT_MEMORY_PARTS];
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	n = pgwt_memory_parts(parts);
	for (int i = 0; i < n; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false};

		values[0] = CStringGetTextDatum(parts[i].part);
		values[1] = Int64GetDatum((int64) parts[i].bytes);
		values[2] = CStringGetTextDatum(parts[i].detail);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
