/* pg_wait_tracer install script, version 0.1 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_wait_tracer" to load this file. \quit

CREATE FUNCTION pgwt_require_preload()
RETURNS void
AS 'MODULE_PATHNAME', 'pgwt_require_preload'
LANGUAGE C STRICT;

-- Fails CREATE EXTENSION with an actionable message when the library was
-- not loaded through shared_preload_libraries.
SELECT pgwt_require_preload();

CREATE FUNCTION pgwt_status(
    OUT tier text,
    OUT hooks_available boolean,
    OUT reason text,
    OUT library_version text,
    OUT server_version_num int)
RETURNS record
AS 'MODULE_PATHNAME', 'pgwt_status'
LANGUAGE C STRICT VOLATILE;

CREATE VIEW pgwt_status AS SELECT * FROM pgwt_status();
GRANT SELECT ON pgwt_status TO PUBLIC;
