/* pg_wait_tracer 0.2 -> 0.3: the exact per-wait trace and escalation windows */

\echo Use "ALTER EXTENSION pg_wait_tracer UPDATE TO '0.3'" to load this file. \quit

CREATE FUNCTION pgwt_trace(
    pid int DEFAULT NULL,
    OUT pid int,
    OUT pos bigint,
    OUT kind text,
    OUT wait_event_type text,
    OUT wait_event text,
    OUT marker text,
    OUT start_time timestamptz,
    OUT duration_us float8,
    OUT query_id bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_trace'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_trace(int) IS
  'A process''s trace ring (capture = trace, escalation windows): exact waits and statement markers, oldest first; NULL = this session';

CREATE FUNCTION pgwt_trace_by_statement(
    pid int DEFAULT NULL,
    OUT pid int,
    OUT statement int,
    OUT in_statement bool,
    OUT complete bool,
    OUT query_id bigint,
    OUT start_time timestamptz,
    OUT end_time timestamptz,
    OUT duration_ms float8,
    OUT waits bigint,
    OUT wait_ms float8,
    OUT top_wait_event_type text,
    OUT top_wait_event text,
    OUT top_wait_ms float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_trace_by_statement'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_trace_by_statement(int) IS
  'A process''s traced waits grouped by statement (waits between statements form groups with in_statement = false)';

CREATE FUNCTION pgwt_escalate(
    seconds int,
    classes text[] DEFAULT NULL,
    OUT result text,
    OUT granted_s int,
    OUT classes text[],
    OUT window_end timestamptz,
    OUT budget_left_s int,
    OUT tier text)
RETURNS record
AS 'MODULE_PATHNAME', 'pgwt_escalate'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_escalate(int, text[]) IS
  'Open (or extend) a window of exact per-wait trace for every process, optionally for some wait classes only; bounded by pg_wait_tracer.escalation_budget';

CREATE FUNCTION pgwt_deescalate()
RETURNS text
AS 'MODULE_PATHNAME', 'pgwt_deescalate'
LANGUAGE C VOLATILE;

CREATE FUNCTION pgwt_escalation_status(
    OUT tier text,
    OUT window_open bool,
    OUT reason text,
    OUT classes text[],
    OUT window_end timestamptz,
    OUT seconds_left int,
    OUT budget_s int,
    OUT budget_left_s int,
    OUT last_close text,
    OUT windows bigint,
    OUT refused bigint,
    OUT clamped bigint,
    OUT closed_by_budget bigint,
    OUT writer_pid int,
    OUT records_drained bigint,
    OUT records_written bigint,
    OUT records_lost bigint,
    OUT tracer_pid int,
    OUT tracer_state text)
RETURNS record
AS 'MODULE_PATHNAME', 'pgwt_escalation_status'
LANGUAGE C VOLATILE;

CREATE VIEW pgwt_escalation_status AS SELECT * FROM pgwt_escalation_status();
COMMENT ON VIEW pgwt_escalation_status IS
  'Escalation window (open, classes, seconds left), budget, refusals, the trace writer and the external tracer''s reported state';

CREATE FUNCTION pgwt_tracer_report(state text)
RETURNS void
AS 'MODULE_PATHNAME', 'pgwt_tracer_report'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_tracer_report(text) IS
  'Called by an attached external tracer to report its state (NULL: detached)';

-- Escalating costs every backend: superuser and roles granted EXECUTE only.
REVOKE ALL ON FUNCTION pgwt_escalate(int, text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION pgwt_deescalate() FROM PUBLIC;
REVOKE ALL ON FUNCTION pgwt_tracer_report(text) FROM PUBLIC;
GRANT SELECT ON pgwt_escalation_status TO PUBLIC;

-- History: the analysis engine's views over recorded trace files.
-- from_time/to_time NULL = open; dir NULL = the extension's trace_dir
-- (another directory: superuser or pg_read_server_files).
CREATE FUNCTION pgwt_history_time_model(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT class text, OUT total_ms float8, OUT pct_db_time float8, OUT fidelity text)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_time_model'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

CREATE FUNCTION pgwt_history_system_event(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT wait_event_type text, OUT wait_event text, OUT waits bigint, OUT total_ms float8,
    OUT avg_us float8, OUT max_us float8, OUT pct_db_time float8, OUT fidelity text)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_system_event'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

CREATE FUNCTION pgwt_history_session_event(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT pid int, OUT db_ms float8, OUT cpu_ms float8, OUT wait_ms float8, OUT idle_ms float8,
    OUT top_wait_event_type text, OUT top_wait_event text, OUT top_wait_ms float8, OUT fidelity text)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_session_event'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

CREATE FUNCTION pgwt_history_query_event(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT query_id bigint, OUT wait_event_type text, OUT wait_event text, OUT waits bigint,
    OUT total_ms float8, OUT avg_us float8, OUT max_us float8, OUT pct_db_time float8, OUT fidelity text)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_query_event'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

CREATE FUNCTION pgwt_history_histogram(
    wait_event_type text, wait_event text,
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT bucket int, OUT lo_us float8, OUT hi_us float8, OUT waits bigint)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_histogram'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- Trace files show every traced session's waits: stats readers only.
REVOKE ALL ON FUNCTION pgwt_history_time_model(timestamptz, timestamptz, text),
  pgwt_history_system_event(timestamptz, timestamptz, text),
  pgwt_history_session_event(timestamptz, timestamptz, text),
  pgwt_history_query_event(timestamptz, timestamptz, text),
  pgwt_history_histogram(text, text, timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgwt_history_time_model(timestamptz, timestamptz, text),
  pgwt_history_system_event(timestamptz, timestamptz, text),
  pgwt_history_session_event(timestamptz, timestamptz, text),
  pgwt_history_query_event(timestamptz, timestamptz, text),
  pgwt_history_histogram(text, text, timestamptz, timestamptz, text) TO pg_read_all_stats;
