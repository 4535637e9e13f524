-- pgwt_history_*: the range and its arguments, over a known synthetic trace
-- (tools/pgwt-synth/scenarios/long_waits.scn, written by test/suites/
-- 20-regress into $PGWT_SYNTH_TRACE): pid 4242 sleeps 10 s at a time from
-- 2026-01-01 00:00:00 UTC, with 1 ms of CPU in between.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_wait_tracer;
RESET client_min_messages;
SET TimeZone = 'UTC';
\pset format unaligned
\pset tuples_only on
\getenv synth PGWT_SYNTH_TRACE
-- the error of a statement: SQLSTATE and message
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  st text;
  msg text;
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
  RETURN st || ': ' || msg;
END $$;
-- Clipping: over [18, 21.6) s only the waits' time inside counts: PgSleep
-- [10.002, 20.002) gives 2002 ms, PgSleep [20.003, 30.003) 1597 ms (not the
-- whole 10 s of the wait that ends inside). Rows are waits, as the live view:
-- the 1 ms of CPU* between them is in the time model, not here.
SELECT wait_event_type, wait_event, waits, total_ms, avg_us, max_us, fidelity
  FROM pgwt_history_system_event('2026-01-01 00:00:18', '2026-01-01 00:00:21.6', :'synth')
 ORDER BY total_ms DESC;
-- per session and event, as pgwt_session_event: who the pid was comes from
-- backends.tsv (a client backend started at the trace's start; role and
-- database 'synth', which this server has not: usesysid and datid NULL);
-- the histogram holds the two waits (2002 ms and 1597 ms, both in bucket
-- 21: [2^30, 2^31) ns, element 22), as pgwt_history_histogram below; no
-- CPU* row, as the live view
SELECT pid, backend_type, usesysid, datid, backend_start, session_state,
       wait_event_type, wait_event, waits, total_ms, avg_us, max_us, pct_db_time,
       fidelity, histogram[22] AS b21, (SELECT sum(x) FROM unnest(histogram) x) AS hist_waits
  FROM pgwt_history_session_event('2026-01-01 00:00:18', '2026-01-01 00:00:21.6', :'synth');
-- a role the file names maps to its oid here
CREATE ROLE synth NOLOGIN;
SELECT usesysid = 'synth'::regrole AS role_known
  FROM pgwt_history_session_event('2026-01-01 00:00:18', '2026-01-01 00:00:21.6', :'synth');
DROP ROLE synth;
-- the per-session summary, under its own name; the same DB time as the sum
-- of the session's non-idle events plus its CPU*
SELECT pid, backend_type, session_state, db_time_ms, cpu_ms, wait_ms, idle_ms,
       top_wait_event_type, top_wait_event, top_wait_ms, fidelity
  FROM pgwt_history_session_time('2026-01-01 00:00:18', '2026-01-01 00:00:21.6', :'synth');
SELECT e.pid, sum(e.total_ms) FILTER (WHERE e.pct_db_time IS NOT NULL) AS wait_ms, t.wait_ms AS summary_wait_ms
  FROM pgwt_history_session_event('2026-01-01 00:00:18', '2026-01-01 00:00:21.6', :'synth') e
  JOIN pgwt_history_session_time('2026-01-01 00:00:18', '2026-01-01 00:00:21.6', :'synth') t USING (pid)
 GROUP BY e.pid, t.wait_ms;
SELECT stat_name, wait_event_type, time_ms
  FROM pgwt_history_time_model('2026-01-01 00:00:18', '2026-01-01 00:00:21.6', :'synth')
 ORDER BY stat_name;
SELECT wait_event, sum(waits) AS waits, sum(total_ms) AS total_ms
  FROM pgwt_history_query_event('2026-01-01 00:00:18', '2026-01-01 00:00:21.6', :'synth')
 GROUP BY wait_event ORDER BY wait_event;
-- the query rows carry their histogram too (CPU*, a history row the live
-- view has not, counts its 1 ms stretch between the waits)
SELECT wait_event_type, wait_event, histogram[22] AS b21,
       (SELECT sum(x) FROM unnest(histogram) x) AS hist_waits
  FROM pgwt_history_query_event('2026-01-01 00:00:18', '2026-01-01 00:00:21.6', :'synth')
 ORDER BY wait_event_type;
-- the histogram counts the two clipped waits
SELECT bucket, waits
  FROM pgwt_history_histogram('Timeout', 'PgSleep', '2026-01-01 00:00:18',
                              '2026-01-01 00:00:21.6', :'synth');
SELECT sum(waits) AS waits
  FROM pgwt_history_histogram('Timeout', 'PgSleep', '2026-01-01 00:00:18',
                              '2026-01-01 00:00:21.6', :'synth');
-- Open and unbounded ends: -infinity .. infinity is everything; infinity as
-- the start, a start past the trace clock's reach (2554) or an end before
-- 1970 is an empty range; an open end after a start reads to the end.
SELECT wait_event, waits, total_ms
  FROM pgwt_history_system_event('-infinity', 'infinity', :'synth') ORDER BY wait_event;
SELECT count(*) FROM pgwt_history_system_event('infinity', NULL, :'synth');
SELECT count(*) FROM pgwt_history_system_event('2600-01-01', NULL, :'synth');
SELECT count(*) FROM pgwt_history_system_event(NULL, '1960-01-01', :'synth');
SELECT count(*) FROM pgwt_history_system_event(NULL, '-infinity', :'synth');
SELECT wait_event, waits, total_ms
  FROM pgwt_history_system_event('2026-01-01 00:00:18', 'infinity', :'synth') ORDER BY wait_event;
SELECT count(*) FROM pgwt_history_system_event('2026-01-01 00:00:18', '2026-01-01 00:00:18', :'synth');
-- from after to: one error that says both ends, the same in the histogram
SELECT pg_temp.err($q$SELECT * FROM pgwt_history_system_event('2026-01-01 00:00:21.6', '2026-01-01 00:00:18')$q$);
SELECT pg_temp.err($q$SELECT * FROM pgwt_history_histogram('Timeout', 'PgSleep', 'infinity', '2026-01-01')$q$);
-- the directory: empty, or missing (its path and the cause)
SELECT pg_temp.err($q$SELECT * FROM pgwt_history_system_event(dir => '')$q$);
SELECT pg_temp.err($q$SELECT * FROM pgwt_history_histogram('Timeout', 'PgSleep', dir => '')$q$);
SELECT pg_temp.err($q$SELECT * FROM pgwt_history_time_model(dir => '/nonexistent-pgwt')$q$);
SELECT pg_temp.err($q$SELECT * FROM pgwt_history_system_event(dir => '/nonexistent-pgwt/x')$q$);
