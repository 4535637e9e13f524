/*
 * test_policy.c
 *		Unit tests of the escalation budget and the anomaly rules with
 *		scripted clocks and inputs. Prints PASS/FAIL lines.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/policy/anomaly.h"
#include "analysis/policy/escalation.h"

#define S(x) ((uint64_t) ((x) * 1000000000.0))
#define T0 S(100000)			/* an arbitrary monotonic start */

static int	tp_failures;

#define CHECK(name, cond, ...) do { \
	if (cond) printf("PASS %s\n", name); \
	else { printf("FAIL %s: ", name); printf(__VA_ARGS__); printf("\n"); tp_failures++; } \
} while (0)

static void
test_budget_basic(void)
{
	pgwt_escalation e;
	int64_t		g;
	pgwt_esc_result r;

	pgwt_esc_init(&e, 300);
	r = pgwt_esc_request(&e, T0, 60, PGWT_ESC_MANUAL, &g);
	CHECK("esc-grant", r == PGWT_ESC_GRANTED && g == 60, "r=%d g=%lld", r, (long long) g);
	CHECK("esc-seconds-remaining", pgwt_esc_seconds_remaining(&e, T0 + S(10)) == 50,
		  "%lld", (long long) pgwt_esc_seconds_remaining(&e, T0 + S(10)));
	CHECK("esc-still-open", pgwt_esc_tick(&e, T0 + S(59)) == PGWT_ESC_STILL_OPEN, "closed early");
	CHECK("esc-expires", pgwt_esc_tick(&e, T0 + S(61)) == PGWT_ESC_CLOSED_EXPIRED, "not closed");
	CHECK("esc-used-exact", pgwt_esc_used_ns(&e, T0 + S(61)) == S(60),
		  "used %llu", (unsigned long long) pgwt_esc_used_ns(&e, T0 + S(61)));
	CHECK("esc-remaining-budget", pgwt_esc_budget_remaining_s(&e, T0 + S(61)) == 240,
		  "%lld", (long long) pgwt_esc_budget_remaining_s(&e, T0 + S(61)));

	r = pgwt_esc_request(&e, T0 + S(100), 400, PGWT_ESC_MANUAL, &g);
	CHECK("esc-clamped", r == PGWT_ESC_CLAMPED && g == 240, "r=%d g=%lld", r, (long long) g);
	CHECK("esc-budget-close", pgwt_esc_tick(&e, T0 + S(341)) == PGWT_ESC_CLOSED_EXPIRED ||
		  !e.active, "still open");
	r = pgwt_esc_request(&e, T0 + S(400), 10, PGWT_ESC_MANUAL, &g);
	CHECK("esc-exhausted", r == PGWT_ESC_DENIED_EXHAUSTED && g == 0, "r=%d", r);
	CHECK("esc-denied-counted", e.denied_total == 1, "%llu", (unsigned long long) e.denied_total);
	/* An hour after the first window ended, its 60 s are back. */
	r = pgwt_esc_request(&e, T0 + S(60 + 3600), 100, PGWT_ESC_MANUAL, &g);
	CHECK("esc-rolling-hour", r == PGWT_ESC_CLAMPED && g == 60, "r=%d g=%lld", r, (long long) g);
}

static void
test_budget_modes(void)
{
	pgwt_escalation e;
	int64_t		g;

	pgwt_esc_init(&e, 0);
	CHECK("esc-disabled", pgwt_esc_request(&e, T0, 5, PGWT_ESC_MANUAL, &g) == PGWT_ESC_DENIED_DISABLED &&
		  !e.active && pgwt_esc_budget_remaining_s(&e, T0) == 0, "not denied");
	pgwt_esc_init(&e, PGWT_BUDGET_UNLIMITED);
	/* longer than the budget's hour: the longest request there is */
	CHECK("esc-unlimited", pgwt_esc_request(&e, T0, 86400, PGWT_ESC_MANUAL, &g) == PGWT_ESC_GRANTED &&
		  g == 86400 && pgwt_esc_budget_remaining_s(&e, T0) == -1, "g=%lld", (long long) g);
	pgwt_esc_init(&e, 300);
	CHECK("esc-bad-duration", pgwt_esc_request(&e, T0, 0, PGWT_ESC_MANUAL, &g) == PGWT_ESC_DENIED_BAD_REQUEST &&
		  pgwt_esc_request(&e, T0, -5, PGWT_ESC_MANUAL, &g) == PGWT_ESC_DENIED_BAD_REQUEST, "accepted");
	CHECK("esc-deescalate-closed", pgwt_esc_deescalate(&e, T0) == PGWT_ESC_NOT_OPEN, "not idempotent");
	pgwt_esc_request(&e, T0, 30, PGWT_ESC_MANUAL, &g);
	CHECK("esc-deescalate", pgwt_esc_deescalate(&e, T0 + S(5)) == PGWT_ESC_CLOSED_BY_REQUEST &&
		  pgwt_esc_used_ns(&e, T0 + S(6)) == S(5), "used %llu",
		  (unsigned long long) pgwt_esc_used_ns(&e, T0 + S(6)));
	CHECK("esc-deescalate-twice", pgwt_esc_deescalate(&e, T0 + S(7)) == PGWT_ESC_NOT_OPEN, "closed twice");
}

/* Requests every 10 s for 60 s each, for two hours: use never exceeds 300 s/h. */
static void
test_budget_adversarial(void)
{
	pgwt_escalation e;
	int64_t		g;
	uint64_t	worst = 0;

	pgwt_esc_init(&e, 300);
	for (int t = 0; t < 7200; t++)
	{
		uint64_t	now = T0 + S(t);

		if (t % 10 == 0)
			pgwt_esc_request(&e, now, 60, PGWT_ESC_MANUAL, &g);
		pgwt_esc_tick(&e, now);
		if (pgwt_esc_used_ns(&e, now) > worst)
			worst = pgwt_esc_used_ns(&e, now);
	}
	CHECK("esc-adversarial-bounded", worst <= S(300), "worst %.3f s", worst / 1e9);
	CHECK("esc-adversarial-uses-budget", worst >= S(299), "worst %.3f s", worst / 1e9);
}

/* A reloaded, smaller budget closes an open window the moment it is spent. */
static void
test_budget_midwindow(void)
{
	pgwt_escalation e;
	int64_t		g;

	pgwt_esc_init(&e, 300);
	pgwt_esc_request(&e, T0, 200, PGWT_ESC_MANUAL, &g);
	pgwt_esc_set_budget(&e, 100);
	CHECK("esc-midwindow-open", pgwt_esc_tick(&e, T0 + S(99)) == PGWT_ESC_STILL_OPEN, "closed early");
	CHECK("esc-midwindow-close", pgwt_esc_tick(&e, T0 + S(102)) == PGWT_ESC_CLOSED_BUDGET &&
		  e.closed_by_budget_total == 1, "not closed by budget");
	CHECK("esc-midwindow-at-instant", pgwt_esc_used_ns(&e, T0 + S(110)) == S(100),
		  "used %.3f s", pgwt_esc_used_ns(&e, T0 + S(110)) / 1e9);
	pgwt_esc_set_budget(&e, 300);
	CHECK("esc-midwindow-reopen", pgwt_esc_request(&e, T0 + S(120), 50, PGWT_ESC_MANUAL, &g) ==
		  PGWT_ESC_GRANTED && e.active, "not granted");
	pgwt_esc_set_budget(&e, 0);
	CHECK("esc-midwindow-disabled", pgwt_esc_tick(&e, T0 + S(121)) == PGWT_ESC_CLOSED_BUDGET && !e.active,
		  "still open");
}

/* Many tiny windows overflow the span list: merging may only overstate use. */
static void
test_budget_many_spans(void)
{
	pgwt_escalation e;
	int64_t		g;
	uint64_t	now = T0;
	uint64_t	real = 0;

	pgwt_esc_init(&e, 300);
	for (int i = 0; i < 250; i++)
	{
		if (pgwt_esc_request(&e, now, 1, PGWT_ESC_MANUAL, &g) <= PGWT_ESC_CLAMPED)
			real += S(1);
		now += S(2);
		pgwt_esc_tick(&e, now);
	}
	CHECK("esc-spans-conservative", pgwt_esc_used_ns(&e, now) >= real &&
		  pgwt_esc_used_ns(&e, now) <= S(300) + S(250), "used %.1f real %.1f",
		  pgwt_esc_used_ns(&e, now) / 1e9, real / 1e9);
	CHECK("esc-spans-bounded", e.nspans <= PGWT_ESC_MAX_SPANS, "%d", e.nspans);
}

static pgwt_anomaly_verdict
feed(pgwt_anomaly *a, uint64_t *now, int ticks, double aas, double lock, double cpu,
	 int *fires, pgwt_esc_reason *reason)
{
	pgwt_anomaly_verdict v = PGWT_ANOM_QUIET;

	for (int i = 0; i < ticks; i++)
	{
		pgwt_anomaly_tick t = {*now, 0.1, true, aas, lock, cpu};

		v = pgwt_anomaly_observe(a, &t);
		if (v == PGWT_ANOM_FIRE)
		{
			(*fires)++;
			*reason = a->last_reason;
		}
		*now += S(0.1);
	}
	return v;
}

static void
test_anomaly(void)
{
	pgwt_anomaly_cfg cfg;
	pgwt_anomaly a;
	uint64_t	now = T0;
	int			fires = 0;
	pgwt_esc_reason reason = PGWT_ESC_MANUAL;
	double		base;

	pgwt_anomaly_defaults(&cfg);
	pgwt_anomaly_init(&a, &cfg);
	feed(&a, &now, 1200, 0.5, 0, 0.3, &fires, &reason);
	CHECK("anom-quiet-baseline", fires == 0 && a.baseline > 0.45 && a.baseline < 0.55,
		  "fires %d baseline %.3f", fires, a.baseline);
	/* One session blocked on a row lock: lock fraction 1.0 but AAS 1. */
	feed(&a, &now, 600, 1.0, 1.0, 0, &fires, &reason);
	CHECK("anom-lone-lock-waiter-quiet", fires == 0, "fired %d (reason %d)", fires, reason);
	/* A lock convoy: 6 active, 5 of them waiting on locks. */
	feed(&a, &now, 3, 6.0, 5.0, 1.0, &fires, &reason);
	CHECK("anom-lock-convoy-fires", fires == 1 && reason == PGWT_ESC_ANOMALY_LOCK,
		  "fires %d reason %d", fires, reason);
	/* It goes on: the cooldown holds the next fire back for 120 s. */
	feed(&a, &now, 1000, 6.0, 5.0, 1.0, &fires, &reason);
	CHECK("anom-cooldown", fires == 1 && a.suppressed_cooldown_total > 0, "fires %d", fires);
	feed(&a, &now, 250, 6.0, 5.0, 1.0, &fires, &reason);
	CHECK("anom-refires-after-cooldown", fires == 2, "fires %d", fires);

	/* AAS spike over a learned baseline. */
	pgwt_anomaly_init(&a, &cfg);
	fires = 0;
	feed(&a, &now, 1200, 1.0, 0, 0.8, &fires, &reason);
	feed(&a, &now, 2, 5.0, 0, 4.0, &fires, &reason);
	CHECK("anom-aas-needs-sustain", fires == 0, "fired after 2 ticks");
	base = a.baseline;
	feed(&a, &now, 1, 5.0, 0, 4.0, &fires, &reason);
	CHECK("anom-aas-fires", fires == 1 && reason == PGWT_ESC_ANOMALY_AAS, "fires %d reason %d",
		  fires, reason);
	feed(&a, &now, 3000, 5.0, 0, 1.0, &fires, &reason);
	CHECK("anom-baseline-frozen", a.baseline == base, "moved %.4f -> %.4f", base, a.baseline);
	feed(&a, &now, 7000, 5.0, 0, 1.0, &fires, &reason);
	CHECK("anom-baseline-relearns", a.baseline > base + 0.1, "baseline %.4f (was %.4f)",
		  a.baseline, base);

	/* No history yet: warm-up keeps the AAS rule quiet. */
	pgwt_anomaly_init(&a, &cfg);
	fires = 0;
	feed(&a, &now, 50, 8.0, 0, 1.0, &fires, &reason);
	CHECK("anom-warmup", fires == 0, "fired during warm-up");

	/* Disabled AAS rules. */
	cfg.aas_factor = 1e6;
	pgwt_anomaly_init(&a, &cfg);
	fires = 0;
	feed(&a, &now, 1200, 0.5, 0, 0.3, &fires, &reason);
	feed(&a, &now, 100, 20.0, 0, 19.0, &fires, &reason);
	CHECK("anom-aas-disabled", fires == 0, "fired %d", fires);
}

static void
test_cpu_cusum(void)
{
	pgwt_anomaly_cfg cfg;
	pgwt_anomaly a;
	uint64_t	now = T0;
	int			fires = 0;
	pgwt_esc_reason reason = PGWT_ESC_MANUAL;
	pgwt_anomaly_verdict v;
	int			ticks_to_fire = 0;

	pgwt_anomaly_defaults(&cfg);
	cfg.cpu_capacity = 2.0;
	cfg.aas_factor = 100;		/* keep the AAS rule out of the way */
	pgwt_anomaly_init(&a, &cfg);
	feed(&a, &now, 100, 1.0, 0, 1.0, &fires, &reason);
	CHECK("cpu-under-capacity-quiet", fires == 0 && a.cusum == 0, "cusum %.3f", a.cusum);
	/* util 1.2 -> +0.038 per 0.1 s tick: S >= 1.5 after 40 ticks. */
	while (fires == 0 && ticks_to_fire < 100)
	{
		feed(&a, &now, 1, 2.4, 0, 2.4, &fires, &reason);
		ticks_to_fire++;
	}
	CHECK("cpu-cusum-fires", fires == 1 && reason == PGWT_ESC_ANOMALY_CPU && ticks_to_fire == 40,
		  "fires %d after %d ticks", fires, ticks_to_fire);
	feed(&a, &now, 3000, 2.4, 0, 2.4, &fires, &reason);
	CHECK("cpu-once-per-episode", fires == 1, "fires %d", fires);
	feed(&a, &now, 1, 1.0, 0, 1.0, &fires, &reason);	/* below k: re-armed */
	feed(&a, &now, 200, 2.4, 0, 2.4, &fires, &reason);
	CHECK("cpu-rearms", fires == 2, "fires %d", fires);

	/* Blind ticks never advance it. */
	pgwt_anomaly_init(&a, &cfg);
	for (int i = 0; i < 100; i++)
	{
		pgwt_anomaly_tick t = {now, 0.1, false, 3, 0, 3};

		v = pgwt_anomaly_observe(&a, &t);
		now += S(0.1);
		(void) v;
	}
	CHECK("cpu-blind-no-evidence", a.cusum == 0, "cusum %.3f", a.cusum);
	/* Below the absolute floor: no fire even when saturated. */
	cfg.cpu_capacity = 1.0;
	pgwt_anomaly_init(&a, &cfg);
	fires = 0;
	feed(&a, &now, 500, 1.5, 0, 1.5, &fires, &reason);
	CHECK("cpu-min-aas-floor", fires == 0, "fired %d", fires);
	/* Capacity change resets the sum. */
	pgwt_anomaly_set_capacity(&a, 4.0, true);
	CHECK("cpu-capacity-change-resets", a.cusum == 0, "cusum %.3f", a.cusum);
}

/*
 * A request is bounded: with no budget to clamp it, a huge duration used to
 * wrap duration_s * NS_PER_S into a short (or past) window end.
 */
static void
test_budget_bounds(void)
{
	pgwt_escalation e;
	int64_t		g = -1;
	pgwt_esc_result r;

	pgwt_esc_init(&e, PGWT_BUDGET_UNLIMITED);
	r = pgwt_esc_request(&e, T0, INT64_MAX, PGWT_ESC_MANUAL, &g);
	CHECK("esc-bound-int64-max-refused", r == PGWT_ESC_DENIED_BAD_REQUEST && g == 0 && !e.active &&
		  e.windows_total == 0 && e.denied_total == 1, "r=%d g=%lld active=%d", r, (long long) g, e.active);
	/* 18446744074 s * 1e9 wraps to 0.7 s: the old code opened a short window */
	r = pgwt_esc_request(&e, T0, 18446744074ll, PGWT_ESC_MANUAL, &g);
	CHECK("esc-bound-wrapping-refused", r == PGWT_ESC_DENIED_BAD_REQUEST && !e.active,
		  "r=%d g=%lld active=%d", r, (long long) g, e.active);
	r = pgwt_esc_request(&e, T0, PGWT_ESC_MAX_WINDOW_S + 1, PGWT_ESC_MANUAL, &g);
	CHECK("esc-bound-max-plus-one-refused", r == PGWT_ESC_DENIED_BAD_REQUEST && !e.active,
		  "r=%d active=%d", r, e.active);
	r = pgwt_esc_request(&e, T0, PGWT_ESC_MAX_WINDOW_S, PGWT_ESC_MANUAL, &g);
	CHECK("esc-bound-max-granted-unlimited", r == PGWT_ESC_GRANTED && g == PGWT_ESC_MAX_WINDOW_S &&
		  pgwt_esc_seconds_remaining(&e, T0) == PGWT_ESC_MAX_WINDOW_S &&
		  pgwt_esc_tick(&e, T0 + S(PGWT_ESC_MAX_WINDOW_S - 1)) == PGWT_ESC_STILL_OPEN &&
		  pgwt_esc_tick(&e, T0 + S(PGWT_ESC_MAX_WINDOW_S)) == PGWT_ESC_CLOSED_EXPIRED,
		  "r=%d g=%lld", r, (long long) g);

	/* a budget too large for nanoseconds saturates instead of wrapping */
	pgwt_esc_init(&e, INT64_MAX);
	r = pgwt_esc_request(&e, T0, 60, PGWT_ESC_MANUAL, &g);
	CHECK("esc-bound-huge-budget", r == PGWT_ESC_GRANTED && g == 60 &&
		  pgwt_esc_budget_remaining_s(&e, T0 + S(10)) > 1000000000ll &&
		  pgwt_esc_tick(&e, T0 + S(10)) == PGWT_ESC_STILL_OPEN,
		  "r=%d g=%lld left=%lld", r, (long long) g, (long long) pgwt_esc_budget_remaining_s(&e, T0 + S(10)));
	/* 18446744074 s of budget wraps to 0.7 s in nanoseconds */
	pgwt_esc_init(&e, 18446744074ll);
	r = pgwt_esc_request(&e, T0, 60, PGWT_ESC_MANUAL, &g);
	CHECK("esc-bound-wrapping-budget", r == PGWT_ESC_GRANTED && g == 60,
		  "r=%d g=%lld", r, (long long) g);
}

int
main(void)
{
	test_budget_basic();
	test_budget_modes();
	test_budget_adversarial();
	test_budget_many_spans();
	test_budget_midwindow();
	test_budget_bounds();
	test_anomaly();
	test_cpu_cusum();
	return tp_failures ? 1 : 0;
}
