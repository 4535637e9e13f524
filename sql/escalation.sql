-- pgwt_status (0.4): which tier answers an escalation request. With the
-- server's hooks it is always coop; elsewhere an external tracer's fresh
-- report (pgwt_tracer_report, normally sent by pg_wait_tracer --daemon)
-- answers while its backend lives, else the sampler with "no exact tier".
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_wait_tracer;
RESET client_min_messages;
SELECT pgwt_tracer_report(NULL);
SELECT CASE WHEN hooks_available THEN escalation_tier = 'coop'
            ELSE escalation_tier IN ('sampler', 'none') END AS tier_ok,
       window_open,
       tracer_pid IS NULL AS no_tracer,
       hooks_available OR escalation_note LIKE 'no exact tier: %' AS note_ok
FROM pgwt_status;
-- a tracer reports an open window through this backend
SELECT pgwt_tracer_report('{"mode":"tiered","tier":"escalated","window_open":true,"window_id":4,'
                          '"seconds_left":20,"budget_left_s":280,"granted_s":20,"request_id":7,'
                          '"listening":1,"pid":1,"reason":"granted"}');
SELECT CASE WHEN hooks_available THEN escalation_tier = 'coop'
            ELSE escalation_tier = 'external' AND window_open AND window_id = 4
                 AND window_seconds_left BETWEEN 19 AND 20 AND escalation_budget_left_s = 280
                 AND tracer_pid = pg_backend_pid()
                 AND escalation_note LIKE 'external tracer (backend %, mode tiered, tier escalated, reported 0 s ago): granted' END
       AS external_answers
FROM pgwt_status;
-- unlimited budget: NULL; a closed window has no seconds left
SELECT pgwt_tracer_report('{"mode":"tiered","tier":"sampled","window_open":false,"window_id":4,'
                          '"seconds_left":0,"budget_left_s":-1,"reason":"window closed: expired"}');
SELECT hooks_available OR (NOT window_open AND window_seconds_left = 0 AND escalation_budget_left_s IS NULL)
       AS closed_unlimited
FROM pgwt_status;
-- a malformed state is shown, never trusted for numbers
SELECT pgwt_tracer_report('{"window_open":"yes","seconds_left":"x"}');
SELECT hooks_available OR (escalation_tier = 'external' AND NOT window_open AND window_seconds_left IS NULL
                           AND window_id IS NULL)
       AS malformed_ignored
FROM pgwt_status;
-- a tracer whose exact tier cannot see (its watchpoint self-test failed):
-- sampled only; pgwt_escalate is refused with its reason and spends nothing
SELECT pgwt_tracer_report('{"mode":"tiered","tier":"sampled","exact":false,"window_open":false,'
                          '"window_id":0,"seconds_left":0,"budget_left_s":300,'
                          '"reason":"hardware watchpoints do not fire here: 0 of 64 test writes trapped"}');
SELECT hooks_available OR (escalation_tier = 'external_sampled' AND NOT window_open
                           AND escalation_note LIKE 'no exact tier: the external tracer (backend %, mode tiered, reported 0 s ago) runs sampled only: hardware watchpoints do not fire here: 0 of 64 test writes trapped')
       AS sampled_only_said
FROM pgwt_status;
SELECT budget_left_s AS budget_before, refused AS refused_before, windows AS windows_before
FROM pgwt_escalation_status \gset
-- (with the hooks the coop tier answers: no window is asked for there)
SELECT CASE WHEN hooks_available THEN true
            ELSE (SELECT e.result = 'refused: no exact tier: the external tracer runs sampled only (hardware watchpoints do not fire here: 0 of 64 test writes trapped)'
                         AND e.granted_s = 0 AND e.window_end IS NULL AND e.tier = 'external_sampled'
                  FROM pgwt_escalate(10) e) END
       AS refused_with_reason
FROM pgwt_status;
SELECT hooks_available OR (s.budget_left_s IS NOT DISTINCT FROM :'budget_before'::int
                           AND s.refused = :refused_before + 1 AND NOT s.window_open
                           AND s.windows = :windows_before)
       AS nothing_spent
FROM pgwt_status, pgwt_escalation_status s;
-- the tracer detached
SELECT pgwt_tracer_report(NULL);
SELECT hooks_available OR escalation_tier IN ('sampler', 'none') AS back_to_sampler FROM pgwt_status;
-- the old columns are still there, the new ones after them
SELECT attname FROM pg_attribute
WHERE attrelid = 'pgwt_status'::regclass AND attnum > 16 ORDER BY attnum;
