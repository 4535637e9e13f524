-- One histogram shape (0.5): the history histogram has the columns of the
-- live pgwt_event_histogram, and history columns carry the live names.
CREATE FUNCTION pg_temp.out_cols(f regprocedure) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(a.n || ' ' || format_type(a.t, NULL), ', ' ORDER BY a.i)
  FROM pg_proc p,
       unnest(p.proargnames, p.proallargtypes, p.proargmodes) WITH ORDINALITY AS a(n, t, m, i)
  WHERE p.oid = f AND a.m IN ('o', 't', 'b') $$;
SELECT pg_temp.out_cols('pgwt_history_histogram(text,text,timestamptz,timestamptz,text)')
     = pg_temp.out_cols('pgwt_event_histogram()') AS same_shape_as_live;
SELECT pg_temp.out_cols('pgwt_history_histogram(text,text,timestamptz,timestamptz,text)') AS history_histogram;
SELECT pg_temp.out_cols('pgwt_history_time_model(timestamptz,timestamptz,text)') AS history_time_model;
-- The live view's rows are buckets of the 32 log2 ns buckets: bounds agree
-- with the bucket number, and every event's shares add up to 100%. (The
-- sampler's notice that it has no durations is not part of the check.)
SET client_min_messages = warning;
SELECT count(*) AS bad_bounds FROM pgwt_event_histogram
WHERE lower_us <> CASE WHEN bucket = 0 THEN 0 ELSE 2 ^ (9 + bucket) / 1000 END
   OR upper_us IS DISTINCT FROM CASE WHEN bucket = 31 THEN NULL ELSE 2 ^ (10 + bucket) / 1000 END;
SELECT count(*) AS bad_shares FROM (
  SELECT wait_event_type, wait_event FROM pgwt_event_histogram
  GROUP BY 1, 2 HAVING abs(sum(pct_waits) - 100) > 0.01 * count(*)) s;
RESET client_min_messages;
-- An event that does not exist is one clear error, not rows of zeros.
SELECT * FROM pgwt_history_histogram('Bogus', 'Nope');
SELECT * FROM pgwt_history_histogram('IO', 'Nope');
SELECT * FROM pgwt_history_histogram('Timeout', NULL);
-- Known events (any case) pass the name check and go on to read the
-- directory (which does not exist here: whatever that says, it is not
-- the name check's invalid_parameter_value).
DO $$
DECLARE
  ev text[];
BEGIN
  FOREACH ev SLICE 1 IN ARRAY ARRAY[['timeout', 'pgsleep'], ['IO', 'DataFileRead'],
                                     ['Lock', 'advisory'], ['LWLock', 'WALWrite'],
                                     ['Extension', 'Extension']]
  LOOP
    BEGIN
      PERFORM * FROM pgwt_history_histogram(ev[1], ev[2], NULL, NULL, '/nonexistent-pgwt');
      RAISE NOTICE '%:% accepted', ev[1], ev[2];
    EXCEPTION
      WHEN invalid_parameter_value THEN
        RAISE NOTICE '%:% refused: %', ev[1], ev[2], SQLERRM;
      WHEN others THEN
        RAISE NOTICE '%:% accepted', ev[1], ev[2];
    END;
  END LOOP;
END $$;
