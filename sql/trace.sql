-- The trace and escalation SQL surface (0.3). Deterministic parts only:
-- the truth tests with timings are in test/suites/55-ext-trace.
-- Escalating and the tracer report are not for PUBLIC; the status view is.
SELECT p.proname, has_function_privilege('public', p.oid, 'execute') AS public_may
FROM pg_proc p
WHERE p.proname IN ('pgwt_escalate', 'pgwt_deescalate', 'pgwt_tracer_report',
                    'pgwt_trace', 'pgwt_trace_by_statement', 'pgwt_history_system_event')
ORDER BY 1;
SELECT has_table_privilege('public', 'pgwt_escalation_status', 'select') AS status_public;
-- Bad requests: refused (counted) or rejected with a clear message
SELECT result, granted_s, window_end IS NULL AS no_window FROM pgwt_escalate(0);
SELECT * FROM pgwt_escalate(5, '{Locks}');
SELECT * FROM pgwt_escalate(5, '{}');
SELECT pgwt_deescalate() IS NULL AS nothing_open;
SELECT window_open, budget_s, refused >= 1 AS refused_counted FROM pgwt_escalation_status;
-- A window over two classes, then closed by hand
SELECT result, granted_s, classes FROM pgwt_escalate(30, '{lwlock,Lock}');
SELECT window_open, classes, seconds_left BETWEEN 28 AND 30 AS about_30 FROM pgwt_escalation_status;
SELECT pgwt_deescalate();
SELECT window_open, last_close FROM pgwt_escalation_status;
-- The tracer's report: longer than 639 bytes is refused; NULL clears it
SELECT pgwt_tracer_report(repeat('x', 700));
SELECT pgwt_tracer_report('{"mode":"sampled"}');
SELECT tracer_state FROM pgwt_escalation_status;
SELECT pgwt_tracer_report(NULL);
SELECT tracer_pid IS NULL AS cleared FROM pgwt_escalation_status;
-- The ring: this session's (exists with hooks; an error without)
SELECT count(*) >= 0 AS readable FROM pgwt_trace();
-- History: another directory needs privileges only superusers have here;
-- a directory that does not exist is an error that says so
SELECT count(*) FROM pgwt_history_system_event(dir => '/nonexistent-pgwt');
