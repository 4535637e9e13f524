/*
 * fuzz_control.c
 *		libFuzzer target: any bytes as one control-socket request line. The
 *		answer must always be one well-formed line, whatever comes in.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/policy/escalation.h"
#include "tracer/control/control.h"

static void
fz_status(void *arg, pgwt_json_out *o)
{
	pgwt_json_str(o, "tier", "sampled");
}

static size_t
fz_metrics(void *arg, pgwt_metric *m, size_t max)
{
	m[0] = (pgwt_metric) {"samples_total", "Samples", true, 1};
	return 1;
}

static void
fz_escalate(void *arg, long long d, pgwt_json_out *o)
{
	if (d < 1 || d > PGWT_ESC_MAX_WINDOW_S)
		abort();				/* the parser let a bad duration through */
	pgwt_json_int(o, "granted_s", d);
}

static void
fz_deescalate(void *arg, pgwt_json_out *o)
{
	pgwt_json_bool(o, "ok", true);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const pgwt_control_ops ops = {fz_status, fz_metrics, NULL, fz_escalate, fz_deescalate, NULL};
	char		out[16384];
	long		n = pgwt_control_answer(&ops, (const char *) data, size, out, sizeof(out));

	if (n <= 0 || out[n - 1] != '\n' || memchr(out, '\n', (size_t) n - 1) != NULL)
		abort();				/* every answer is exactly one line */
	return 0;
}
