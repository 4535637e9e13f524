/* pg_wait_tracer 0.6 -> 0.7: a shared pool of trace rings, and the
 * extension's shared memory by part */

\echo Use "ALTER EXTENSION pg_wait_tracer UPDATE TO '0.7'" to load this file. \quit

-- Section: pgwt_status (trace ring pool, shared memory)
-- The trace rings are a pool of pg_wait_tracer.trace_rings that the
-- processes traced at once (capture = trace, escalation windows) draw
-- from. pgwt_status gains its size, the rings in use, the processes that
-- found none free and were not traced (trace_ring_exhausted), the rings
-- the trace writer freed after their holder stopped tracing, and the
-- extension's shared memory in bytes (pgwt_memory() by part).
DROP VIEW pgwt_status;
DROP FUNCTION pgwt_status();

CREATE FUNCTION pgwt_status(
    OUT tier text,
    OUT hooks_available boolean,
    OUT capture text,
    OUT reason text,
    OUT library_version text,
    OUT server_version_num int,
    OUT sessions_max int,
    OUT sessions_live int,
    OUT sessions_exited int,
    OUT sessions_recycled bigint,
    OUT attach_failures bigint,
    OUT lost_waits bigint,
    OUT query_entries int,
    OUT query_evictions bigint,
    OUT query_lost_waits bigint,
    OUT stats_reset timestamptz,
    OUT max_queries int,
    OUT clock text,
    OUT escalation_tier text,
    OUT window_open boolean,
    OUT window_id bigint,
    OUT window_seconds_left int,
    OUT escalation_budget_left_s int,
    OUT tracer_pid int,
    OUT escalation_note text,
    OUT trace_rings int,
    OUT trace_rings_in_use int,
    OUT trace_ring_exhausted bigint,
    OUT trace_rings_recycled bigint,
    OUT shmem_bytes bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'pgwt_status_0_7'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_status AS SELECT * FROM pgwt_status();
COMMENT ON VIEW pgwt_status IS
  'Which capture tier runs (coop, sampled, none, off) and why; slot and query-table usage; which tier answers escalation (coop, external, sampler) with its window and budget; the trace ring pool and the shared memory in bytes';
GRANT SELECT ON pgwt_status TO PUBLIC;

-- Section: pgwt_memory
-- What the extension reserved in shared memory at start, by part: slots
-- (the only part that grows with max_connections), slot lists, state
-- (retired totals), query table, trace header, trace rings, sampler.
CREATE FUNCTION pgwt_memory(OUT part text, OUT bytes bigint, OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_memory'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION pgwt_memory() IS
  'The extension''s shared memory by part, in bytes, as reserved at start';

-- Section: pgwt_session_time
-- The live twin of pgwt_history_session_time: per session, its time split
-- into DB time (NULL for background processes), CPU*, non-idle waits and
-- idle, with its largest wait. Rows are filtered by role as in
-- pgwt_session_event.
CREATE FUNCTION pgwt_session_time(
    OUT pid int,
    OUT backend_type text,
    OUT usesysid oid,
    OUT datid oid,
    OUT backend_start timestamptz,
    OUT session_state text,
    OUT db_time_ms float8,
    OUT cpu_ms float8,
    OUT wait_ms float8,
    OUT idle_ms float8,
    OUT top_wait_event_type text,
    OUT top_wait_event text,
    OUT top_wait_ms float8,
    OUT fidelity text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_session_time'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_session_time AS
  SELECT s.pid, s.backend_type, s.usesysid, r.rolname AS usename,
         s.datid, d.datname, s.backend_start, s.session_state,
         s.db_time_ms, s.cpu_ms, s.wait_ms, s.idle_ms,
         s.top_wait_event_type, s.top_wait_event, s.top_wait_ms, s.fidelity
  FROM pgwt_session_time() s
  LEFT JOIN pg_catalog.pg_roles r ON r.oid = s.usesysid
  LEFT JOIN pg_catalog.pg_database d ON d.oid = s.datid;
COMMENT ON VIEW pgwt_session_time IS
  'Per session (live or exited): DB time (NULL for background processes), CPU*, non-idle waits, idle and the largest wait';
