-- Every view's figures at display precision (common/units.h): durations in
-- ms to 3 decimals, in us to 1, percentages to 2. They stay float8, so a
-- view still sorts and sums; a value that is not already rounded fails.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_wait_tracer;
RESET client_min_messages;
SELECT pg_sleep(0.0123) FROM generate_series(1, 30);
SELECT pg_sleep(0.3);
CREATE FUNCTION pg_temp.r(x float8, d int) RETURNS bool
  LANGUAGE sql AS $$ SELECT x IS NULL OR x = round(x::numeric, d)::float8 $$;
SELECT count(*) > 0 AS has_rows,
       count(*) FILTER (WHERE NOT (pg_temp.r(total_ms, 3) AND pg_temp.r(avg_us, 1)
                                   AND pg_temp.r(max_us, 1) AND pg_temp.r(pct_db_time, 2))) AS unrounded
FROM pgwt_system_event;
SELECT count(*) > 0 AS has_rows,
       count(*) FILTER (WHERE NOT (pg_temp.r(time_ms, 3) AND pg_temp.r(pct_db_time, 2))) AS unrounded
FROM pgwt_time_model;
SELECT count(*) > 0 AS has_rows,
       count(*) FILTER (WHERE NOT (pg_temp.r(total_ms, 3) AND pg_temp.r(avg_us, 1)
                                   AND pg_temp.r(max_us, 1) AND pg_temp.r(pct_db_time, 2))) AS unrounded
FROM pgwt_session_event WHERE pid = pg_backend_pid();
SELECT count(*) FILTER (WHERE NOT (pg_temp.r(total_ms, 3) AND pg_temp.r(avg_us, 1)
                                   AND pg_temp.r(max_us, 1))) AS unrounded
FROM pgwt_query_event;
SELECT count(*) FILTER (WHERE NOT (pg_temp.r(wait_ms, 3) AND pg_temp.r(db_time_ms, 3)
                                   AND pg_temp.r(cpu_ms, 3))) AS unrounded
FROM pgwt_active;
-- (histograms need exact durations: the hooks)
SELECT CASE WHEN NOT hooks_available THEN 0
            ELSE (SELECT count(*) FILTER (WHERE NOT pg_temp.r(pct_waits, 2)) FROM pgwt_event_histogram) END
       AS unrounded
FROM pgwt_status;
