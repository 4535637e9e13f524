-- Known truth on a server with wait-event hooks: ten 0.2 s sleeps are ten
-- Timeout:PgSleep waits of 2.0 s in total (within 2%), seen per session,
-- system-wide, in the histogram, the time model and per query (the query
-- id is pg_stat_statements.queryid). On a server without hooks every view
-- answers from the sampler (alternate output coop_truth_1.out: nothing run).
-- pg_sleep() waits in a loop on WaitLatch and truncates the remaining time
-- to whole milliseconds, so a call may end with one more zero-timeout wait
-- (well under 1 us, histogram bucket 0): the real waits are the ten of at
-- least 1 us, and the short ones are counted too (exact, not hidden).
-- On a loaded machine the sleeps overshoot 0.2 s; the reference is then
-- pg_stat_statements' execution time of the same calls (the waits must be
-- within 2% of it, and never under the nominal 2.0 s).
-- Exact data exists only where the server has hooks: on stock servers the
-- sampler answers these views instead (sql/sampler.sql and
-- test/suites/52-sampler-truth test it), and this file checks nothing.
SELECT hooks_available AS coop_hooks FROM pgwt_status \gset
\if :coop_hooks
SELECT pgwt_reset_all();
SELECT pg_stat_statements_reset() IS NOT NULL AS pgss_reset;
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);

SELECT waits >= 10 AS at_least_ten, total_ms >= 1999 AS at_least_nominal,
       total_ms BETWEEN 0.98 * (SELECT total_exec_time FROM pg_stat_statements
                                WHERE query LIKE 'SELECT pg_sleep%')
                    AND (SELECT total_exec_time FROM pg_stat_statements
                         WHERE query LIKE 'SELECT pg_sleep%') AS within_2pct_of_exec_time,
       max_us >= 200000 AS max_at_least_200ms, pct_db_time > 50 AS dominant,
       fidelity
FROM pgwt_system_event WHERE wait_event_type = 'Timeout' AND wait_event = 'PgSleep';

SELECT session_state, waits >= 10 AS at_least_ten, total_ms >= 1999 AS at_least_nominal,
       usename = current_user AS own_role, fidelity,
       (SELECT sum(n) FROM unnest(histogram[19:32]) n) AS sleeps_in_bucket_18_or_above
FROM pgwt_session_event
WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep';

-- the session is shown under its own identity
SELECT s.backend_start = a.backend_start AS same_identity
FROM (SELECT DISTINCT pid, backend_start FROM pgwt_session_event) s
JOIN pg_stat_activity a USING (pid)
WHERE pid = pg_backend_pid();

-- 0.2 s = 2^27.6 ns: bucket 18, [134.2 ms, 268.4 ms) (on a loaded machine
-- a sleep can overshoot into bucket 19)
SELECT sum(waits) AS sleeps_in_bucket_18_or_above
FROM pgwt_event_histogram WHERE wait_event = 'PgSleep' AND bucket >= 18;
SELECT bool_and(lower_us = 2 ^ (9 + bucket) / 1000.0 AND upper_us = 2 * lower_us) AS log2_bounds
FROM pgwt_event_histogram WHERE bucket BETWEEN 1 AND 30;
SELECT sum(waits) = (SELECT waits FROM pgwt_system_event WHERE wait_event = 'PgSleep')
       AS buckets_sum_to_count
FROM pgwt_event_histogram WHERE wait_event = 'PgSleep';

SELECT stat_name, time_ms >= 1999 AS at_least_2s
FROM pgwt_time_model WHERE stat_name IN ('DB Time', 'Timeout') ORDER BY stat_name;
-- one snapshot (a CTE): DB Time is CPU* plus the foreground classes, and
-- the background rows add up on their own (each row is rounded to the
-- microsecond: the sum may differ by half a microsecond a row)
WITH tm AS MATERIALIZED (SELECT * FROM pgwt_time_model)
SELECT abs((SELECT time_ms FROM tm WHERE stat_name = 'DB Time') -
           (SELECT sum(time_ms) FROM tm WHERE stat_name NOT IN ('DB Time', 'Idle')
                                          AND stat_name NOT LIKE 'Background%'))
         <= 0.0005 * (SELECT count(*) FROM tm) + 1e-9
       AS db_time_is_cpu_plus_waits,
       abs((SELECT time_ms FROM tm WHERE stat_name = 'Background time') -
           (SELECT sum(time_ms) FROM tm WHERE stat_name IN ('Background CPU*', 'Background wait')))
         <= 0.0005 * (SELECT count(*) FROM tm) + 1e-9
       AS background_time_is_cpu_plus_waits,
       (SELECT count(*) FROM tm WHERE stat_name LIKE 'Background%' AND pct_db_time IS NOT NULL)
       AS background_rows_with_pct;

-- per query: all ten waits belong to the pg_sleep statement
SELECT q.waits = (SELECT waits FROM pgwt_system_event WHERE wait_event = 'PgSleep')
       AS all_sleeps,
       q.total_ms BETWEEN 0.98 * s.total_exec_time AND s.total_exec_time AS within_2pct_of_exec_time,
       (SELECT sum(n) FROM unnest(q.histogram) n) = q.waits AS histogram_sums_to_waits,
       (SELECT sum(n) FROM unnest(q.histogram[19:32]) n) AS sleeps_in_bucket_18_or_above,
       s.calls
FROM pgwt_query_event q JOIN pg_stat_statements s ON s.queryid = q.query_id
WHERE q.wait_event = 'PgSleep' AND s.query LIKE 'SELECT pg_sleep%';
SELECT count(*) AS query_id_zero_rows FROM pgwt_query_event WHERE query_id = 0;

-- commit waits (WAL written at commit) belong to the statement that committed
CREATE TABLE pgwt_truth (x int);
INSERT INTO pgwt_truth VALUES (1);
INSERT INTO pgwt_truth VALUES (2);
INSERT INTO pgwt_truth VALUES (3);
SELECT count(*) > 0 AS insert_has_wal_waits
FROM pgwt_query_event q JOIN pg_stat_statements s ON s.queryid = q.query_id
WHERE s.query LIKE 'INSERT INTO pgwt_truth%' AND q.wait_event_type IN ('IO', 'LWLock');
DROP TABLE pgwt_truth;

-- the current session is on cpu while it runs this query
SELECT state, wait_event, db_time_ms >= 2000 AS has_db_time FROM pgwt_active
WHERE pid = pg_backend_pid();

-- resetting our own backend zeroes our numbers
SELECT pgwt_reset(pg_backend_pid());
SELECT count(*) AS sleeps_after_reset FROM pgwt_session_event
WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep';
SELECT pg_sleep(0.05);
SELECT waits BETWEEN 1 AND 2 AS one_sleep, total_ms >= 49.9 AS at_least_50ms
FROM pgwt_session_event
WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep';

-- capture off in this session: no new waits recorded
SET pg_wait_tracer.capture = off;
SELECT pg_sleep(0.05);
RESET pg_wait_tracer.capture;
SELECT waits BETWEEN 1 AND 2 AS one_sleep, total_ms >= 49.9 AS at_least_50ms
FROM pgwt_session_event
WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep';
-- the reading session's own figures are current: 60 ms on CPU with no wait
-- are in our CPU* at the next read (billed otherwise only at our next wait
-- after that), and a wait of the reading statement itself is in the view
SELECT cpu_ms AS cpu_before FROM pgwt_active WHERE pid = pg_backend_pid() \gset
DO $$DECLARE t0 timestamptz := clock_timestamp();
BEGIN WHILE clock_timestamp() - t0 < interval '60 ms' LOOP END LOOP; END$$;
SELECT cpu_ms - :cpu_before >= 60 AS busy_loop_in_own_cpu
FROM pgwt_active WHERE pid = pg_backend_pid();
SELECT waits AS sleeps_before FROM pgwt_session_event
WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep' \gset
SELECT pg_sleep(0.02) IS NOT NULL AS slept, (SELECT waits FROM pgwt_session_event
       WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep') > :sleeps_before AS own_wait_seen;
-- pgwt_session_time, the live twin of pgwt_history_session_time: our own
-- waits are the sum of our non-idle pgwt_session_event rows (ms shown with
-- 3 decimals: each row rounds), DB time is CPU* plus waits, PgSleep the
-- largest of them
SELECT abs(t.wait_ms - (SELECT sum(e.total_ms) FROM pgwt_session_event e
                        WHERE e.pid = t.pid AND e.pct_db_time IS NOT NULL)) < 0.01 AS waits_agree,
       abs(t.db_time_ms - t.cpu_ms - t.wait_ms) < 0.01 AS db_is_cpu_plus_waits,
       t.top_wait_event_type, t.top_wait_event, t.fidelity, t.session_state
FROM pgwt_session_time t WHERE t.pid = pg_backend_pid();
-- a background process has no DB time, but its own CPU* and waits
SELECT count(*) > 0 AS checkpointer_shown, bool_and(db_time_ms IS NULL) AS no_db_time
FROM pgwt_session_time WHERE backend_type = 'checkpointer';
-- Percentiles, known truth: ten 0.2 s sleeps and one of 1.5 s. In every
-- event view p50_us lies in the bucket of 200 ms, [134.2 ms, 268.4 ms) (a
-- sleep that overshoots on a loaded machine may reach the next bucket, up
-- to 536.9 ms), and p99_us is the largest wait itself (rank 11 of 11: its
-- value is known exactly), at least the nominal 1.5 s.
SELECT pgwt_reset_all();
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(0.2);
SELECT pg_sleep(1.5);
SELECT v.view, v.p50_us >= 134217.728 AND v.p50_us < 536870.912 AS p50_in_200ms_bucket,
       v.p99_us = v.max_us AS p99_is_max, v.max_us >= 1500000 AS max_at_least_1500ms,
       v.max_us < 2147483.648 AS max_in_1500ms_bucket
FROM (SELECT 'system' AS view, p50_us, p99_us, max_us FROM pgwt_system_event
      WHERE wait_event = 'PgSleep'
      UNION ALL
      SELECT 'session', p50_us, p99_us, max_us FROM pgwt_session_event
      WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep'
      UNION ALL
      SELECT 'query', q.p50_us, q.p99_us, q.max_us FROM pgwt_query_event q
      JOIN pg_stat_statements s ON s.queryid = q.query_id
      WHERE q.wait_event = 'PgSleep' AND s.query LIKE 'SELECT pg_sleep%') v
ORDER BY v.view;
\endif
