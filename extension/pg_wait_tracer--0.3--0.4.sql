/* pg_wait_tracer 0.3 -> 0.4: escalation state of whichever tier answers,
 * background time apart from DB time, sampler resets and history visibility */

\echo Use "ALTER EXTENSION pg_wait_tracer UPDATE TO '0.4'" to load this file. \quit

-- Section: escalation and pgwt_status (tracer report, window, budget)

-- pgwt_status gains which tier answers an escalation request now: coop (the
-- server's hooks), external (a pg_wait_tracer daemon whose report through
-- pgwt_tracer_report() is fresh and whose connection lives) or sampler (no
-- exact tier), with that tier's window, seconds left and budget.
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
    OUT escalation_note text)
RETURNS record
AS 'MODULE_PATHNAME', 'pgwt_status_0_4'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_status AS SELECT * FROM pgwt_status();
COMMENT ON VIEW pgwt_status IS
  'Which capture tier runs (coop, sampled, none, off) and why; slot and query-table usage; which tier answers escalation (coop, external, sampler) with its window and budget';
GRANT SELECT ON pgwt_status TO PUBLIC;

-- Section: coop views (background processes, DB time)
-- DB time counts only client backends and their parallel workers; the
-- background processes' time has rows of its own in pgwt_time_model. The
-- functions keep their columns (the sampler answers the same views).
COMMENT ON VIEW pgwt_time_model IS
  'DB Time = CPU* + non-idle waits of client backends and their parallel workers; CPU* = time with no wait event set (gaps between waits); Idle = Activity class + Client:ClientRead; Background time/CPU*/wait/idle = the other processes, not in DB time';
COMMENT ON VIEW pgwt_system_event IS
  'Waits of all processes by event since the last reset (exact in the coop tier); pct_db_time counts the client backends'' share only (NULL when only background processes waited)';

-- Section: sampler (reset, history visibility)

-- pgwt_reset(pid) also clears the backend's sampled rows (and takes them out
-- of the sampled system totals), after the same permission checks (in C).
COMMENT ON FUNCTION pgwt_reset(int) IS
  'Reset one backend''s wait statistics, exact and sampled (rules of pg_signal_backend)';

-- pgwt_sample_history shows other roles' sessions only to members of
-- pg_read_all_stats (as pg_stat_activity): the filter is in the function.
COMMENT ON VIEW pgwt_sample_history IS
  'Recent non-idle samples of the in-server sampler (bounded ring, oldest first; other roles'' sessions only for pg_read_all_stats): filter on sample_time for the last N seconds';
