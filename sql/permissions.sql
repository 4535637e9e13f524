-- Who may see and reset what. Cross-backend resets with live targets are
-- exercised by test/suites/45-coop-truth (two sessions), pid reuse and the
-- autovacuum rule by test/suites/57-security-extension.
CREATE ROLE pgwt_alice LOGIN;
CREATE ROLE pgwt_reader LOGIN IN ROLE pg_read_all_stats;

SELECT pid AS checkpointer_pid FROM pg_stat_activity WHERE backend_type = 'checkpointer' \gset
SET ROLE pgwt_alice;
-- pg_signal_backend()'s rules, as pg_cancel_backend() applies them: this
-- backend's role is a superuser, so pgwt_alice may not reset it
SELECT pgwt_reset(pg_backend_pid());
-- not a PostgreSQL backend
SELECT pgwt_reset(1);
-- auxiliary processes are not backends either (warning hidden: it shows the PID)
SET client_min_messages = error;
SELECT pgwt_reset(:checkpointer_pid) AS checkpointer_reset;
RESET client_min_messages;
-- superuser only
SELECT pgwt_reset_all();
SET pg_wait_tracer.capture = off;
-- other roles' sessions are hidden (this session's role is the superuser)
SELECT count(*) AS others_visible FROM pgwt_session_event;
SELECT count(*) AS others_active FROM pgwt_active;
-- aggregates are visible to everyone
SELECT count(*) >= 0 AS system_event_readable FROM pgwt_system_event;
-- a bad pid is an error, on every server
SELECT count(*) FROM pgwt_trace(-1);
RESET ROLE;

-- a wait of our own, so the session has a row in every tier (a sampler
-- sees a 50 ms sleep about five times)
SELECT pg_sleep(0.05) IS NOT NULL AS slept;
SET ROLE pgwt_reader;
SELECT count(*) > 0 AS sees_superuser_session
FROM pgwt_session_event WHERE pid = pg_backend_pid();
SELECT count(*) AS own_active_rows FROM pgwt_active WHERE pid = pg_backend_pid();
RESET ROLE;

-- Query ids as pg_stat_statements shows them: to superusers, members of
-- pg_read_all_stats and the role whose sessions ran the statement; other
-- roles' waits stay in the view under query_id NULL. The superuser's
-- sleeps above and below, and one of pgwt_alice's own session (the same
-- statement as the superuser's first one: one query id, two roles).
SELECT 1 AS superuser_sleep FROM pg_sleep(0.1);
SELECT queryid AS super_qid FROM pg_stat_statements
WHERE query = 'SELECT $1 AS superuser_sleep FROM pg_sleep($2)' \gset
\c - pgwt_alice
SELECT pg_sleep(0.1) IS NOT NULL AS alice_slept;
-- own statement: its id, the one pg_stat_statements shows alice
SELECT count(*) AS own_ids
FROM pgwt_query_event q JOIN pg_stat_statements s ON s.queryid = q.query_id
WHERE q.wait_event = 'PgSleep' AND s.query LIKE 'SELECT pg_sleep%';
-- the superuser's statements: their waits, without their ids
SELECT count(*) AS superuser_id_shown FROM pgwt_query_event WHERE query_id = :super_qid;
SELECT count(*) > 0 AS others_under_null
FROM pgwt_query_event WHERE query_id IS NULL AND wait_event = 'PgSleep';
-- alice's own backend: hers to reset
SELECT pgwt_reset(pg_backend_pid());
\c - postgres
SELECT count(*) AS hidden_for_superuser FROM pgwt_query_event WHERE query_id IS NULL;
SET ROLE pgwt_reader;
SELECT count(*) AS hidden_for_stats_reader FROM pgwt_query_event WHERE query_id IS NULL;
SELECT count(*) AS superuser_id_for_stats_reader FROM pgwt_query_event
WHERE query_id = :super_qid AND wait_event = 'PgSleep';
RESET ROLE;

DROP ROLE pgwt_alice;
DROP ROLE pgwt_reader;
