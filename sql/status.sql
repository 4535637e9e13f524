-- pgwt_status says which tier runs and, where coop is unavailable, why.
SELECT tier, hooks_available, capture, reason FROM pgwt_status;
SELECT library_version IS NOT NULL AS has_version, clock IN ('tsc', 'monotonic') AS known_clock,
       server_version_num = current_setting('server_version_num')::int AS matches_server
FROM pgwt_status;
-- bounded tables: sizes are fixed at start
SELECT (sessions_max > 0) = hooks_available AS slots_only_with_hooks,
       max_queries = 5000 AS default_max_queries,
       query_entries <= max_queries AS within_bound
FROM pgwt_status;

-- the trace ring pool (0.7): its size where the hooks are, nothing refused
-- yet; the shared memory by part adds up to the status's total
SELECT trace_rings = CASE WHEN hooks_available THEN 8 ELSE 0 END AS default_pool,
       trace_rings_in_use <= trace_rings AS within_pool,
       trace_ring_exhausted >= 0 AS counted
FROM pgwt_status;
SELECT sum(bytes) = (SELECT shmem_bytes FROM pgwt_status) AS parts_add_up,
       bool_and(bytes >= 0 AND detail IS NOT NULL) AS described,
       count(*) FILTER (WHERE part = 'trace rings') = 1 AS has_rings
FROM pgwt_memory();

-- capture = trace is accepted and explained
SET pg_wait_tracer.capture = trace;
SELECT tier, capture, reason FROM pgwt_status;
SET pg_wait_tracer.capture = off;
SELECT tier, capture, reason FROM pgwt_status;
RESET pg_wait_tracer.capture;

-- bad settings give clear errors
SET pg_wait_tracer.capture = sometimes;
SET pg_wait_tracer.max_queries = 6000;
ALTER SYSTEM SET pg_wait_tracer.max_queries = 10;
ALTER SYSTEM SET pg_wait_tracer.max_sessions = -1;
ALTER SYSTEM SET pg_wait_tracer.trace_rings = 0;
ALTER SYSTEM SET pg_wait_tracer.capture = sometimes;
SET pg_wait_tracer.no_such_setting = 1;
-- bad arguments
SELECT pgwt_reset(NULL) IS NULL AS null_pid_is_null;
SELECT pgwt_reset(0);
