-- pgwt_status says which tier runs and, where coop is unavailable, why.
SELECT tier, hooks_available, reason FROM pgwt_status;
SELECT library_version IS NOT NULL AS has_version,
       server_version_num = current_setting('server_version_num')::int AS matches_server
FROM pgwt_status;
