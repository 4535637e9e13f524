/* pg_wait_tracer 0.5 -> 0.6: every history function has the columns of
 * its live twin, in the live order */

\echo Use "ALTER EXTENSION pg_wait_tracer UPDATE TO '0.6'" to load this file. \quit

-- Section: history columns
-- A pgwt_history_* function answers the question of its live pgwt_* twin
-- for a time range of trace files, so it returns the twin's columns, named,
-- typed and ordered alike (pgwt_history_system_event and
-- pgwt_history_histogram already did).

-- pgwt_history_time_model gains pgwt_time_model's wait_event_type: the
-- class of a class row, NULL for DB Time, CPU*, Idle and Background rows.
DROP FUNCTION pgwt_history_time_model(timestamptz, timestamptz, text);
CREATE FUNCTION pgwt_history_time_model(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT stat_name text, OUT wait_event_type text, OUT time_ms float8,
    OUT pct_db_time float8, OUT fidelity text)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_time_model'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_history_time_model(timestamptz, timestamptz, text) IS
  'pgwt_time_model over the trace files of a range (same columns)';
REVOKE ALL ON FUNCTION pgwt_history_time_model(timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgwt_history_time_model(timestamptz, timestamptz, text) TO pg_read_all_stats;

-- pgwt_history_session_event was one row per session (pid, db_ms, cpu_ms,
-- wait_ms, idle_ms, top wait); it is now one row per session and event, as
-- pgwt_session_event. The identity columns come from backends.tsv:
-- backend_type and backend_start as recorded (NULL for a pid the file does
-- not name); usesysid and datid are the oids of the role and database the
-- file names, looked up in this server (NULL when the file names none, as
-- the extension's own trace writer, or no such role or database exists);
-- session_state is 'exited' when the files show the process ending within
-- the range, else 'live'. histogram is NULL when no exact wait of the
-- (session, event) ended in the range. CPU* has no row (it is no wait
-- event, and the live view has none).
DROP FUNCTION pgwt_history_session_event(timestamptz, timestamptz, text);
CREATE FUNCTION pgwt_history_session_event(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT pid int, OUT backend_type text, OUT usesysid oid, OUT datid oid,
    OUT backend_start timestamptz, OUT session_state text,
    OUT wait_event_type text, OUT wait_event text, OUT waits bigint, OUT total_ms float8,
    OUT avg_us float8, OUT max_us float8, OUT pct_db_time float8, OUT fidelity text,
    OUT histogram bigint[])
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_session_event'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_history_session_event(timestamptz, timestamptz, text) IS
  'pgwt_session_event over the trace files of a range (same columns): waits per session and event';
REVOKE ALL ON FUNCTION pgwt_history_session_event(timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgwt_history_session_event(timestamptz, timestamptz, text) TO pg_read_all_stats;

-- The per-session summary keeps a name that says what it is: each
-- session's time split into DB time (NULL for background processes), CPU*,
-- non-idle waits and idle, with its largest wait.
CREATE FUNCTION pgwt_history_session_time(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT pid int, OUT backend_type text, OUT usesysid oid, OUT datid oid,
    OUT backend_start timestamptz, OUT session_state text,
    OUT db_time_ms float8, OUT cpu_ms float8, OUT wait_ms float8, OUT idle_ms float8,
    OUT top_wait_event_type text, OUT top_wait_event text, OUT top_wait_ms float8,
    OUT fidelity text)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_session_time'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_history_session_time(timestamptz, timestamptz, text) IS
  'Per session over the trace files of a range: DB time (NULL for background processes), CPU*, waits, idle and the largest wait';
REVOKE ALL ON FUNCTION pgwt_history_session_time(timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgwt_history_session_time(timestamptz, timestamptz, text) TO pg_read_all_stats;

-- pgwt_history_query_event gains pgwt_query_event's histogram (NULL when
-- no exact wait of the (query, event) ended in the range).
DROP FUNCTION pgwt_history_query_event(timestamptz, timestamptz, text);
CREATE FUNCTION pgwt_history_query_event(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT query_id bigint, OUT wait_event_type text, OUT wait_event text, OUT waits bigint,
    OUT total_ms float8, OUT avg_us float8, OUT max_us float8, OUT pct_db_time float8,
    OUT fidelity text, OUT histogram bigint[])
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_query_event'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_history_query_event(timestamptz, timestamptz, text) IS
  'pgwt_query_event over the trace files of a range (same columns)';
REVOKE ALL ON FUNCTION pgwt_history_query_event(timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgwt_history_query_event(timestamptz, timestamptz, text) TO pg_read_all_stats;
