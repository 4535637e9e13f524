-- Every pgwt_history_* function answers its live twin's question over a
-- range of trace files, so it has the twin's result columns: the same
-- names, types and order (issue #20). Read from pg_proc.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_wait_tracer;
RESET client_min_messages;
-- the result columns of a function: "name type" in order
CREATE FUNCTION pg_temp.out_cols(f regproc) RETURNS text[] LANGUAGE sql AS $$
  SELECT array_agg(a.n || ' ' || format_type(a.t, NULL) ORDER BY a.ord)
    FROM pg_proc p,
         unnest(p.proargnames, p.proallargtypes, p.proargmodes)
           WITH ORDINALITY AS a(n, t, m, ord)
   WHERE p.oid = f AND a.m IN ('o', 't')
$$;
-- the twins: pgwt_X and pgwt_history_X, and the histograms
CREATE TEMP VIEW twins AS
  SELECT l.oid AS live, h.oid AS history
    FROM pg_proc l JOIN pg_proc h ON h.proname = 'pgwt_history_' || substr(l.proname, 6)
   WHERE l.proname LIKE 'pgwt\_%' AND l.proname NOT LIKE 'pgwt\_history\_%'
  UNION ALL
  SELECT 'pgwt_event_histogram'::regproc, 'pgwt_history_histogram'::regproc;
-- each twin has the live function's columns
SELECT t.live::regproc AS live, t.history::regproc AS history,
       pg_temp.out_cols(t.live) = pg_temp.out_cols(t.history) AS same_columns
  FROM twins t ORDER BY t.live::regproc::text;
-- where they differ, the columns of each side (no rows when all agree)
SELECT t.history::regproc AS history, c.side, c.cols
  FROM twins t
  CROSS JOIN LATERAL (VALUES ('live', pg_temp.out_cols(t.live)),
                             ('history', pg_temp.out_cols(t.history))) AS c(side, cols)
 WHERE pg_temp.out_cols(t.live) IS DISTINCT FROM pg_temp.out_cols(t.history)
 ORDER BY t.history::regproc::text, c.side DESC;
-- history functions without a live twin: none (the per-session summary has
-- pgwt_session_time); its identity columns are pgwt_session_event's
SELECT h.proname FROM pg_proc h
 WHERE h.proname LIKE 'pgwt\_history\_%'
   AND h.oid NOT IN (SELECT history FROM twins)
 ORDER BY 1;
SELECT (pg_temp.out_cols('pgwt_history_session_time'))[1:6]
     = (pg_temp.out_cols('pgwt_session_event'))[1:6] AS identity_as_session_event;
