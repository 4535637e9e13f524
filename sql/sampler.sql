-- The in-server sampler. Where the server has no wait-event hooks it runs
-- by default (pg_wait_tracer.sampler = auto) and the pgwt_* views answer
-- from it with fidelity 'sampled'; with hooks it stays off (exact data
-- covers it) and the views stay exact (alternate output sampler_1.out).
SELECT mode, running, sample_rate FROM pgwt_sampler_status;
SELECT tier, reason FROM pgwt_status;

-- bad settings are refused with clear errors
ALTER SYSTEM SET pg_wait_tracer.sample_rate = 0;
ALTER SYSTEM SET pg_wait_tracer.sample_rate = 10000;
ALTER SYSTEM SET pg_wait_tracer.sampler_max_entries = -1;
ALTER SYSTEM SET pg_wait_tracer.sampler_history = -5;
ALTER SYSTEM SET pg_wait_tracer.sampler = sometimes;
SET pg_wait_tracer.sample_rate = 50;
SET pg_wait_tracer.sampler = on;

-- a 0.5 s sleep: sampled time close to it; what only exact capture knows
-- (wait counts, averages, maxima, histograms) is NULL, not zero
SELECT pgwt_reset_all();
SELECT pg_sleep(0.5);
SELECT fidelity, waits IS NULL AS no_count, avg_us IS NULL AS no_avg,
       max_us IS NULL AS no_max, histogram IS NULL AS no_histogram,
       total_ms BETWEEN 400 AND 650 AS about_half_a_second
FROM pgwt_session_event WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep';
SELECT count(*) > 0 AS sleep_under_its_query_id
FROM pgwt_query_event WHERE wait_event = 'PgSleep' AND query_id <> 0;
SELECT count(*) AS histogram_rows FROM pgwt_event_histogram WHERE wait_event = 'PgSleep' AND fidelity = 'sampled';
SELECT stat_name, pct_db_time IS NOT NULL AS has_pct FROM pgwt_time_model
WHERE stat_name IN ('DB Time', 'CPU*', 'Timeout', 'Idle') ORDER BY stat_name;
-- the recent-history ring holds the sleep's samples
SELECT count(*) >= 30 AS sleep_in_history FROM pgwt_sample_history
WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep'
  AND sample_time > now() - interval '1 minute';
-- this session is running this query
SELECT state FROM pgwt_active WHERE pid = pg_backend_pid();
-- pgwt_session_time from samples: our waits are our non-idle
-- pgwt_session_event rows, the sleep the largest
SELECT t.fidelity, t.top_wait_event, t.db_time_ms IS NOT NULL AS has_db_time,
       abs(t.wait_ms - (SELECT sum(e.total_ms) FROM pgwt_session_event e
                        WHERE e.pid = t.pid AND e.pct_db_time IS NOT NULL)) < 0.01 AS waits_agree
FROM pgwt_session_time t WHERE t.pid = pg_backend_pid();
-- everything is bounded and sized at start
SELECT query_entries <= max_entries AS query_bounded,
       history_held <= history_capacity AS history_bounded,
       shmem_bytes > 0 AS has_shmem, late_ticks <= ticks AS ticks_counted
FROM pgwt_sampler_status;

-- pgwt_reset(pid) clears the backend's sampled rows and takes them out of
-- the system totals (with hooks: its exact rows, likewise)
SELECT pgwt_reset_all();
SELECT pg_sleep(0.3);
SELECT count(*) > 0 AS sleep_rows FROM pgwt_session_event
WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep';
SELECT pgwt_reset(pg_backend_pid());
SELECT count(*) AS sleep_rows_after_reset FROM pgwt_session_event
WHERE pid = pg_backend_pid() AND wait_event = 'PgSleep';
SELECT count(*) AS system_sleep_rows_after_reset FROM pgwt_system_event
WHERE wait_event = 'PgSleep';
-- ... under pg_signal_backend()'s rules: a plain role resets its own
-- backend, not a process without a role (the autovacuum launcher)
CREATE ROLE pgwt_sampler_plain;
SELECT set_config('pgwt_test.av_pid', pid::text, false) IS NOT NULL AS has_launcher
FROM pg_stat_activity WHERE backend_type = 'autovacuum launcher';
-- own backend: its role (a superuser) may reset it; after SET ROLE to a
-- plain role it may not, as pg_cancel_backend() (pg_signal_backend rules)
SELECT pgwt_reset(pg_backend_pid()) AS own_reset;
SET ROLE pgwt_sampler_plain;
DO $$
BEGIN
  PERFORM pgwt_reset(current_setting('pgwt_test.av_pid')::int);
  RAISE NOTICE 'reset of the autovacuum launcher allowed';
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'reset of the autovacuum launcher refused (%)', SQLSTATE;
END $$;

-- the sample history shows other roles' sessions only to members of
-- pg_read_all_stats: this session's samples belong to the superuser
SELECT pg_sleep(0.2);
SELECT count(*) AS visible_to_plain_role FROM pgwt_sample_history;
RESET ROLE;
SELECT count(*) > 0 AS visible_to_superuser FROM pgwt_sample_history
WHERE pid = pg_backend_pid();
GRANT pg_read_all_stats TO pgwt_sampler_plain;
SET ROLE pgwt_sampler_plain;
SELECT count(*) > 0 AS visible_to_read_all_stats FROM pgwt_sample_history
WHERE pid = pg_backend_pid();
RESET ROLE;
DROP ROLE pgwt_sampler_plain;
