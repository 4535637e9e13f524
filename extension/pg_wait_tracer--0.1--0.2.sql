/* pg_wait_tracer 0.1 -> 0.2: the coop tier's views and reset functions */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_wait_tracer UPDATE TO '0.2'" to load this file. \quit

-- pgwt_status gains the capture setting and the tier's counters.
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
    OUT clock text)
RETURNS record
AS 'MODULE_PATHNAME', 'pgwt_status_0_2'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_status AS SELECT * FROM pgwt_status();
COMMENT ON VIEW pgwt_status IS
  'Which capture tier runs (coop, none, off) and why; slot and query-table usage';

-- Every event view has the same columns after its keys; pct_db_time is
-- NULL for idle events (Activity class, Client:ClientRead).
CREATE FUNCTION pgwt_system_event(
    OUT wait_event_type text,
    OUT wait_event text,
    OUT waits bigint,
    OUT total_ms float8,
    OUT avg_us float8,
    OUT max_us float8,
    OUT pct_db_time float8,
    OUT fidelity text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_system_event'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_system_event AS
  SELECT * FROM pgwt_system_event() ORDER BY total_ms DESC;
COMMENT ON VIEW pgwt_system_event IS
  'Waits of all backends by event since the last reset (exact in the coop tier)';

CREATE FUNCTION pgwt_event_histogram(
    OUT wait_event_type text,
    OUT wait_event text,
    OUT bucket int,
    OUT lower_us float8,
    OUT upper_us float8,
    OUT waits bigint,
    OUT pct_waits float8,
    OUT fidelity text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_event_histogram'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_event_histogram AS
  SELECT * FROM pgwt_event_histogram() ORDER BY wait_event_type, wait_event, bucket;
COMMENT ON VIEW pgwt_event_histogram IS
  'Log2 latency buckets per event (lower_us inclusive, upper_us exclusive, NULL = unbounded); empty buckets omitted';

CREATE FUNCTION pgwt_time_model(
    OUT stat_name text,
    OUT wait_event_type text,
    OUT time_ms float8,
    OUT pct_db_time float8,
    OUT fidelity text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_time_model'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_time_model AS SELECT * FROM pgwt_time_model();
COMMENT ON VIEW pgwt_time_model IS
  'DB Time = CPU* + non-idle waits; CPU* = time with no wait event set (gaps between waits); Idle = Activity class + Client:ClientRead';

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
    OUT histogram bigint[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_session_event'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_session_event AS
  SELECT s.pid, s.backend_type, s.usesysid, r.rolname AS usename,
         s.datid, d.datname, s.backend_start, s.session_state,
         s.wait_event_type, s.wait_event, s.waits, s.total_ms, s.avg_us,
         s.max_us, s.pct_db_time, s.fidelity, s.histogram
  FROM pgwt_session_event() s
  LEFT JOIN pg_catalog.pg_roles r ON r.oid = s.usesysid
  LEFT JOIN pg_catalog.pg_database d ON d.oid = s.datid;
COMMENT ON VIEW pgwt_session_event IS
  'Waits per session (live or exited, shown under the identity that recorded them) and event; pct_db_time is of that session''s DB time';

CREATE FUNCTION pgwt_active(
    OUT pid int,
    OUT backend_type text,
    OUT usesysid oid,
    OUT datid oid,
    OUT backend_start timestamptz,
    OUT state text,
    OUT wait_event_type text,
    OUT wait_event text,
    OUT wait_ms float8,
    OUT db_time_ms float8,
    OUT cpu_ms float8,
    OUT stats_reset timestamptz,
    OUT fidelity text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_active'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_active AS
  SELECT a.pid, a.backend_type, r.rolname AS usename, d.datname,
         a.backend_start, a.state, a.wait_event_type, a.wait_event,
         a.wait_ms, a.db_time_ms, a.cpu_ms, a.stats_reset, a.fidelity
  FROM pgwt_active() a
  LEFT JOIN pg_catalog.pg_roles r ON r.oid = a.usesysid
  LEFT JOIN pg_catalog.pg_database d ON d.oid = a.datid;
COMMENT ON VIEW pgwt_active IS
  'Live sessions: on cpu, waiting or idle, the current wait and its duration, DB time so far';

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
    OUT histogram bigint[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_query_event'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_query_event AS
  SELECT query_id, wait_event_type, wait_event, waits, total_ms, avg_us,
         max_us, fidelity, histogram
  FROM pgwt_query_event() ORDER BY total_ms DESC;
COMMENT ON VIEW pgwt_query_event IS
  'Non-idle waits per (query_id = pg_stat_statements.queryid, event); commit waits go to the statement that committed; histogram[b+1] = waits in log2 bucket b (see pgwt_event_histogram)';

CREATE FUNCTION pgwt_reset(pid int)
RETURNS boolean
AS 'MODULE_PATHNAME', 'pgwt_reset'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION pgwt_reset(int) IS
  'Reset one backend''s wait statistics (rules of pg_signal_backend)';

CREATE FUNCTION pgwt_reset_all()
RETURNS void
AS 'MODULE_PATHNAME', 'pgwt_reset_all'
LANGUAGE C STRICT VOLATILE;
REVOKE ALL ON FUNCTION pgwt_reset_all() FROM PUBLIC;
COMMENT ON FUNCTION pgwt_reset_all() IS
  'Reset every wait statistic, including exited sessions and the query table (superuser)';

-- The in-server sampler (servers without wait-event hooks): its state and
-- the recent-history ring of non-idle samples.
CREATE FUNCTION pgwt_sampler_status(
    OUT mode text,
    OUT running boolean,
    OUT sample_rate int,
    OUT worker_pid int,
    OUT worker_starts int,
    OUT quick_restarts int,
    OUT backoff_s int,
    OUT ticks bigint,
    OUT late_ticks bigint,
    OUT sampled_s float8,
    OUT query_entries int,
    OUT max_entries int,
    OUT query_evictions bigint,
    OUT backend_entries int,
    OUT backend_evictions bigint,
    OUT history_capacity int,
    OUT history_held int,
    OUT history_written bigint,
    OUT reads_retried bigint,
    OUT shmem_bytes bigint,
    OUT stats_reset timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'pgwt_sampler_status'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_sampler_status AS SELECT * FROM pgwt_sampler_status();
COMMENT ON VIEW pgwt_sampler_status IS
  'The in-server sampler: mode (auto/on/off), worker, ticks (late = billed over 1.5 periods), profile sizes and evictions, history ring, shared memory';

CREATE FUNCTION pgwt_sample_history(
    OUT sample_time timestamptz,
    OUT pid int,
    OUT backend_type text,
    OUT state text,
    OUT wait_event_type text,
    OUT wait_event text,
    OUT query_id bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgwt_sample_history'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_sample_history AS SELECT * FROM pgwt_sample_history();
COMMENT ON VIEW pgwt_sample_history IS
  'Recent non-idle samples of the in-server sampler (bounded ring, oldest first): filter on sample_time for the last N seconds';

GRANT SELECT ON pgwt_status, pgwt_system_event, pgwt_event_histogram,
  pgwt_time_model, pgwt_session_event, pgwt_active, pgwt_query_event,
  pgwt_sampler_status, pgwt_sample_history TO PUBLIC;
