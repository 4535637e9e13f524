-- Without shared_preload_libraries, CREATE EXTENSION refuses and says how to fix it.
\set VERBOSITY default
\set SHOW_CONTEXT never
CREATE EXTENSION pg_wait_tracer;
SELECT count(*) FROM pg_extension WHERE extname = 'pg_wait_tracer';
