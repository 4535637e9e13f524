/* pg_wait_tracer 0.4 -> 0.5: one histogram shape in every SQL function,
 * and the history functions' columns named as the live views' */

\echo Use "ALTER EXTENSION pg_wait_tracer UPDATE TO '0.5'" to load this file. \quit

-- Section: histograms
-- Every SQL histogram has the columns of pgwt_event_histogram: the event,
-- the bucket of the 32 log2 nanosecond buckets (bucket 0 < 1.024 us,
-- bucket b = [2^(9+b), 2^(10+b)) ns, bucket 31 >= 2^40 ns), lower_us
-- (inclusive), upper_us (exclusive, NULL = unbounded), waits, pct_waits
-- (share of the event's waits) and fidelity; empty buckets are omitted.
-- pgwt_history_histogram used 16 microsecond buckets (lo_us, hi_us, waits)
-- and returned all 16 rows, zeros included, even for an event name that
-- does not exist (now an error).
DROP FUNCTION pgwt_history_histogram(text, text, timestamptz, timestamptz, text);
CREATE FUNCTION pgwt_history_histogram(
    wait_event_type text, wait_event text,
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT wait_event_type text, OUT wait_event text, OUT bucket int,
    OUT lower_us float8, OUT upper_us float8, OUT waits bigint,
    OUT pct_waits float8, OUT fidelity text)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_histogram'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION pgwt_history_histogram(text, text, timestamptz, timestamptz, text) IS
  'Exact waits of one event that ended in the range, in the buckets of pgwt_event_histogram (same columns); an unknown event is an error';
REVOKE ALL ON FUNCTION pgwt_history_histogram(text, text, timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgwt_history_histogram(text, text, timestamptz, timestamptz, text) TO pg_read_all_stats;

-- Section: history column names
-- pgwt_history_time_model's rows are those of pgwt_time_model (DB Time,
-- CPU*, the wait classes, Idle): its columns take the live names,
-- class -> stat_name and total_ms -> time_ms.
DROP FUNCTION pgwt_history_time_model(timestamptz, timestamptz, text);
CREATE FUNCTION pgwt_history_time_model(
    from_time timestamptz DEFAULT NULL, to_time timestamptz DEFAULT NULL, dir text DEFAULT NULL,
    OUT stat_name text, OUT time_ms float8, OUT pct_db_time float8, OUT fidelity text)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'pgwt_history_time_model'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
REVOKE ALL ON FUNCTION pgwt_history_time_model(timestamptz, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgwt_history_time_model(timestamptz, timestamptz, text) TO pg_read_all_stats;
