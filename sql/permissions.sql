-- Who may see and reset what. Cross-backend resets with live targets are
-- exercised by test/suites/45-coop-truth (two sessions).
CREATE ROLE pgwt_alice LOGIN;
CREATE ROLE pgwt_reader LOGIN IN ROLE pg_read_all_stats;

SELECT pid AS checkpointer_pid FROM pg_stat_activity WHERE backend_type = 'checkpointer' \gset
SET ROLE pgwt_alice;
-- own backend: always allowed (our backend's identity is checked, not the role)
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
RESET ROLE;

-- a wait of our own, so the session has a row in every tier (a sampler
-- sees a 50 ms sleep about five times)
SELECT pg_sleep(0.05) IS NOT NULL AS slept;
SET ROLE pgwt_reader;
SELECT count(*) > 0 AS sees_superuser_session
FROM pgwt_session_event WHERE pid = pg_backend_pid();
SELECT count(*) AS own_active_rows FROM pgwt_active WHERE pid = pg_backend_pid();
RESET ROLE;

DROP ROLE pgwt_alice;
DROP ROLE pgwt_reader;
