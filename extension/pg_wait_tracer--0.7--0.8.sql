/* pg_wait_tracer 0.7 -> 0.8: p50, p95 and p99 in every event view */

\echo Use "ALTER EXTENSION pg_wait_tracer UPDATE TO '0.8'" to load this file. \quit

-- Section: percentiles
-- Every event view, live and history (system, session, query), ends with
-- p50_us, p95_us, p99_us: estimates from the event's 32 log2 ns buckets
-- (the buckets of pgwt_event_histogram), cut at its largest wait. The
-- bound is the bucket's: the true percentile lies in the same bucket
-- [2^k, 2^(k+1)) ns as the value shown, a factor of 2 (less where the
-- largest wait cuts the bucket). NULL where a row has no exact wait (the
-- in-server sampler's rows, sampled time in history). The columns are
-- appended, so every earlier column keeps its place.

DROP VIEW pgwt_system_event;
DROP FUNCTION pgwt_system_event();
CREATE FUNCTION pgwt_system_event(
    OUT wait_event_type text,
    OUT wait_event text,
    OUT waits bigint,
    OUT total_ms float8,
    OUT avg_us float8,
    OUT max_us float8,
    OUT pct_db_time float8,
    OUT fidelity text,
    OUT p50_us float8,
    OUT p95_us float8,
    OUT p99_us float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_system_event'
LANGUAGE C STRICT VOLATILE;
CREATE VIEW pgwt_system_event AS
  SELECT * FROM pgwt_system_event() ORDER BY total_ms DESC;
COMMENT ON VIEW pgwt_system_event IS
  'Waits of all processes by event since the last reset (exact in the coop tier); pct_db_time counts the client backends'' share only (NULL when only background processes waited); p50/p95/p99_us from the log2 buckets: the true value lies in the same bucket (a factor of 2)';
GRANT SELECT ON pgwt_system_event TO PUBLIC;

DROP VIEW pgwt_session_event;
DROP FUNCTION pgwt_session_event();
CREATE FUNCTION pgwt_session_event(
    OUT pid int,
    OUT backend_type text,
    OUT usesysid oid,
    OUT datid oid,
    OUT backend_start timestamptz,
    OUT session_state text,
    OUT wait_event_type text,
    OUT wait_event text,
    OUT waits bigint,
    OUT total_ms float8,
    OUT avg_us float8,
    OUT max_us float8,
    OUT pct_db_time float8,
    OUT fidelity text,
    OUT histogram bigint[],
    OUT p50_us float8,
    OUT p95_us float8,
    OUT p99_us float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_session_event'
LANGUAGE C STRICT VOLATILE;
CREATE VIEW pgwt_session_event AS
  SELECT s.pid, s.backend_type, s.usesysid, r.rolname AS usename,
         s.datid, d.datname, s.backend_start, s.session_state,
         s.wait_event_type, s.wait_event, s.waits, s.total_ms, s.avg_us,
         s.max_us, s.pct_db_time, s.fidelity, s.histogram,
         s.p50_us, s.p95_us, s.p99_us
  FROM pgwt_session_event() s
  LEFT JOIN pg_catalog.pg_roles r ON r.oid = s.usesysid
  LEFT JOIN pg_catalog.pg_database d ON d.oid = s.datid;
COMMENT ON VIEW pgwt_session_event IS
  'Waits per session (live or exited, shown under the identity that recorded them) and event; pct_db_time is of that session''s DB time; p50/p95/p99_us from the log2 buckets (a factor of 2)';
GRANT SELECT ON pgwt_session_event TO PUBLIC;

DROP VIEW pgwt_query_event;
DROP FUNCTION pgwt_query_event();
CREATE FUNCTION pgwt_query_event(
    OUT query_id bigint,
    OUT wait_event_type text,
    OUT wait_event text,
    OUT waits bigint,
    OUT total_ms float8,
    OUT avg_us float8,
    OUT max_us float8,
    OUT pct_db_time float8,
    OUT fidelity text,
    OUT histogram bigint[],
    OUT p50_us float8,
    OUT p95_us float8,
    OUT p99_us float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_query_event'
LANGUAGE C STRICT VOLATILE;
CREATE VIEW pgwt_query_event AS
  SELECT query_id, wait_event_type, wait_event, waits, total_ms, avg_us,
         max_us, fidelity, histogram, p50_us, p95_us, p99_us
  FROM pgwt_query_event() ORDER BY total_ms DESC;
COMMENT ON VIEW pgwt_query_event IS
  'Non-idle waits per (query_id = pg_stat_statements.queryid, event); commit waits go to the statement that committed; histogram[b+1] = waits in log2 bucket b (see pgwt_event_histogram); p50/p95/p99_us from those buckets (a factor of 2)';
GRANT SELECT ON pgwt_query_event TO PUBLIC;

-- The history twins gain the same columns.
DROP FUNCTION pgwt_history_system_event(timestamptz, timestamptz, text);
CREATE FUNCTION pgwt_history_system_event(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT wait_event_type text, OUT wait_event text, OUT waits bigint, OUT total_ms float8,
    OUT avg_us float8, OUT max_us float8, OUT pct_db_time float8, OUT fidelity text,
    OUT p50_us float8, OUT p95_us float8, OUT p99_us float8)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_system_event'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_history_system_event(timestamptz, timestamptz, text) IS
  'pgwt_system_event over the trace files of a range (same columns)';
REVOKE ALL ON FUNCTION pgwt_history_system_event(timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgwt_history_system_event(timestamptz, timestamptz, text) TO pg_read_all_stats;

DROP FUNCTION pgwt_history_session_event(timestamptz, timestamptz, text);
CREATE FUNCTION pgwt_history_session_event(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT pid int, OUT backend_type text, OUT usesysid oid, OUT datid oid,
    OUT backend_start timestamptz, OUT session_state text,
    OUT wait_event_type text, OUT wait_event text, OUT waits bigint, OUT total_ms float8,
    OUT avg_us float8, OUT max_us float8, OUT pct_db_time float8, OUT fidelity text,
    OUT histogram bigint[], OUT p50_us float8, OUT p95_us float8, OUT p99_us float8)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_session_event'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_history_session_event(timestamptz, timestamptz, text) IS
  'pgwt_session_event over the trace files of a range (same columns): waits per session and event';
REVOKE ALL ON FUNCTION pgwt_history_session_event(timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgwt_history_session_event(timestamptz, timestamptz, text) TO pg_read_all_stats;

DROP FUNCTION pgwt_history_query_event(timestamptz, timestamptz, text);
CREATE FUNCTION pgwt_history_query_event(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT query_id bigint, OUT wait_event_type text, OUT wait_event text, OUT waits bigint,
    OUT total_ms float8, OUT avg_us float8, OUT max_us float8, OUT pct_db_time float8,
    OUT fidelity text, OUT histogram bigint[],
    OUT p50_us float8, OUT p95_us float8, OUT p99_us float8)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_query_event'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_history_query_event(timestamptz, timestamptz, text) IS
  'pgwt_query_event over the trace files of a range (same columns)';
REVOKE ALL ON FUNCTION pgwt_history_query_event(timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgwt_history_query_event(timestamptz, timestamptz, text) TO pg_read_all_stats;
