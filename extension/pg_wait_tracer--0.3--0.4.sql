/* pg_wait_tracer 0.3 -> 0.4: escalation state of whichever tier answers,
 * background time apart from DB time, sampler resets and history visibility */

\echo Use "ALTER EXTENSION pg_wait_tracer UPDATE TO '0.4'" to load this file. \quit

-- Section: escalation and pgwt_status (tracer report, window, budget)

-- Section: coop views (background processes, DB time)

-- Section: sampler (reset, history visibility)
