-- Version 0.1 installs on its own and ALTER EXTENSION ... UPDATE brings it
-- the default version.
DROP EXTENSION pg_wait_tracer;
CREATE EXTENSION pg_wait_tracer VERSION '0.1';
SELECT extversion FROM pg_extension WHERE extname = 'pg_wait_tracer';
SELECT tier IN ('coop', 'sampled', 'none') AS tier_known, hooks_available IS NOT NULL AS ok FROM pgwt_status;
SELECT count(*) AS v02_functions FROM pg_proc WHERE proname IN ('pgwt_reset_all', 'pgwt_system_event');
-- a library newer than the SQL definition serves the older one (0.8's
-- pgwt_sampler_status has one column less than 0.9's)
ALTER EXTENSION pg_wait_tracer UPDATE TO '0.8';
SELECT mode IS NOT NULL AS served_0_8 FROM pgwt_sampler_status;
ALTER EXTENSION pg_wait_tracer UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_wait_tracer';
SELECT count(*) AS v02_functions FROM pg_proc WHERE proname IN ('pgwt_reset_all', 'pgwt_system_event');
SELECT capture IS NOT NULL AS has_capture, max_queries FROM pgwt_status;
-- the update path leaves the history functions with the live columns (0.6)
SELECT proname, array_to_string(proargnames[4:], ', ') AS result_columns FROM pg_proc
WHERE proname IN ('pgwt_history_time_model', 'pgwt_history_session_event',
                  'pgwt_history_session_time', 'pgwt_history_query_event')
ORDER BY proname;
-- ... and every event view its percentiles (0.8)
SELECT c.relname, string_agg(a.attname, ', ' ORDER BY a.attnum) AS percentile_columns
FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
WHERE c.relname IN ('pgwt_system_event', 'pgwt_session_event', 'pgwt_query_event')
  AND a.attname IN ('p50_us', 'p95_us', 'p99_us')
GROUP BY c.relname ORDER BY c.relname;
-- ... and the sampler status its skipped ticks, appended (0.9)
SELECT string_agg(attname, ', ' ORDER BY attnum) AS appended_0_9 FROM pg_attribute
WHERE attrelid = 'pgwt_sampler_status'::regclass AND attnum > 21;
SELECT count(*) AS views FROM pg_views
WHERE viewname IN ('pgwt_status', 'pgwt_system_event', 'pgwt_session_event',
                   'pgwt_event_histogram', 'pgwt_query_event', 'pgwt_time_model',
                   'pgwt_active');
-- nothing outside the pgwt_ prefix
SELECT count(*) AS unprefixed FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
JOIN pg_class c ON c.oid = d.objid AND d.classid = 'pg_class'::regclass
WHERE e.extname = 'pg_wait_tracer' AND c.relname NOT LIKE 'pgwt\_%';
-- ALTER EXTENSION to a version that does not exist fails clearly
ALTER EXTENSION pg_wait_tracer UPDATE TO '9.9';
