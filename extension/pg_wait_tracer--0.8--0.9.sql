/* pg_wait_tracer 0.8 -> 0.9: the in-server sampler's skipped ticks */

\echo Use "ALTER EXTENSION pg_wait_tracer UPDATE TO '0.9'" to load this file. \quit

-- Section: sampler status
-- The in-server sampler ticks on one grid of timer deadlines; a deadline
-- that the previous tick's work ran past (the worker starved of CPU on a
-- saturated host) is skipped rather than ticked late, and counted here
-- (skipped_ticks, appended so every earlier column keeps its place; the
-- next tick bills the whole interval, so no time is lost by a skip).

DROP VIEW pgwt_sampler_status;
DROP FUNCTION pgwt_sampler_status();
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
    OUT stats_reset timestamptz,
    OUT skipped_ticks bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'pgwt_sampler_status'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_sampler_status AS SELECT * FROM pgwt_sampler_status();
COMMENT ON VIEW pgwt_sampler_status IS
  'The in-server sampler: mode (auto/on/off), worker, ticks (late = billed over 1.5 periods; skipped = deadlines passed during the previous tick''s work), profile sizes and evictions, history ring, shared memory';
GRANT SELECT ON pgwt_sampler_status TO PUBLIC;
