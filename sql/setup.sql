-- The library is preloaded by the test cluster; the extension installs at
-- its default version (0.1 + the 0.1--0.2 upgrade script).
CREATE EXTENSION pg_wait_tracer;
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
SELECT extname, extversion FROM pg_extension WHERE extname = 'pg_wait_tracer';
