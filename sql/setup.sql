-- The library is preloaded by the test cluster; the extension installs.
CREATE EXTENSION pg_wait_tracer;
SELECT extname, extversion FROM pg_extension WHERE extname = 'pg_wait_tracer';
