/*
 * Warm windows and scheduled wakes (common/sched.c): the text parsed or
 * refused with a clear error, POSIX zone rules, and the next window or
 * wake computed on a fake clock across both changes of summer time, in
 * Europe/Paris (the last sundays of march and october) and in a southern
 * zone whose summer spans the new year.
 */

#include <sys/types.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "compat.h"
#include "schedule.h"
#include "workload.h"

#define PARIS	"CET-1CEST,M3.5.0,M10.5.0/3"
#define SYDNEY	"AEST-10AEDT,M10.1.0,M4.1.0/3"

/* a UTC time from its parts (timegm reads no zone file) */
static time_t
utc(int y, int mo, int d, int h, int mi)
{
	struct tm	 tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	return (timegm(&tm));
}

static void
parse_ok(enum sched_kind k, const char *s, struct sched_spec *sp)
{
	char	 err[256] = "";

	if (sched_parse(k, s, sp, err, sizeof(err)) != 0)
		fail_msg("\"%s\" refused: %s", s, err);
}

static void
parse_bad(enum sched_kind k, const char *s, const char *want)
{
	struct sched_spec	 sp;
	char			 err[256] = "";

	if (sched_parse(k, s, &sp, err, sizeof(err)) == 0)
		fail_msg("\"%s\" taken", s);
	if (strstr(err, want) == NULL)
		fail_msg("\"%s\": \"%s\" does not say \"%s\"", s, err, want);
}

static void
test_parse(void **state)
{
	struct sched_spec	 sp;
	char			 huge[512];

	parse_ok(SCHED_WINDOW, "mon-fri 09:00-18:00", &sp);
	assert_int_equal(sp.wdays, 0x3e);
	assert_int_equal(sp.from, 540);
	assert_int_equal(sp.to, 1080);
	parse_ok(SCHED_WINDOW, "sat,sun 10:00-24:00 timezone Europe/Paris",
	    &sp);
	assert_int_equal(sp.wdays, 0x41);
	assert_int_equal(sp.to, 0);
	assert_string_equal(sp.zone, "Europe/Paris");
	parse_ok(SCHED_WINDOW, "fri-sun,mon 22:00-02:00", &sp);
	assert_int_equal(sp.wdays, 0x63);
	parse_ok(SCHED_WINDOW, "* 00:00-23:59", &sp);
	assert_int_equal(sp.wdays, 0x7f);

	parse_bad(SCHED_WINDOW, "mon-fri 25:00-26:00", "hours are 00 to 23");
	parse_bad(SCHED_WINDOW, "mon-fri 09:00-25:00", "hours are 00 to 23");
	parse_bad(SCHED_WINDOW, "mon 24:00-02:00", "24:00 only as an end");
	parse_bad(SCHED_WINDOW, "fri-mon 09:00-18:00", "does not wrap");
	parse_bad(SCHED_WINDOW, "mon-fri 9:00-18:00", "must be HH:MM");
	parse_bad(SCHED_WINDOW, "mon-fri 09:00-09:00", "empty");
	parse_bad(SCHED_WINDOW, "funday 09:00-18:00", "days are mon");
	parse_bad(SCHED_WINDOW, "mon, 09:00-18:00", "ends with");
	parse_bad(SCHED_WINDOW, "mon 09:00-18:00 timezone ../../etc/shadow",
	    "must be a zone");
	parse_bad(SCHED_WINDOW, "mon 09:00-18:00 timezone", "must be a zone");
	parse_bad(SCHED_WINDOW, "mon 09:00-18:00 for 1h", "unexpected");
	parse_bad(SCHED_WINDOW, "mon\n09:00-18:00", "printable ASCII");
	memset(huge, 'a', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	parse_bad(SCHED_WINDOW, huge, "longer than");

	parse_ok(SCHED_WAKE, "0 3 * * *", &sp);
	assert_true(sp.minutes == 1);
	assert_int_equal(sp.hours, 1 << 3);
	assert_true(sp.mday_any && sp.wday_any);
	assert_int_equal(sp.hold, 0);
	parse_ok(SCHED_WAKE, "*/15 1-5/2 1,15 jan-mar mon-fri timezone UTC "
	    "for 10m", &sp);
	assert_true(sp.minutes == (1ULL | 1ULL << 15 | 1ULL << 30 |
	    1ULL << 45));
	assert_int_equal(sp.hours, 1 << 1 | 1 << 3 | 1 << 5);
	assert_int_equal(sp.mdays, 1 << 1 | 1 << 15);
	assert_int_equal(sp.months, 1 << 1 | 1 << 2 | 1 << 3);
	assert_int_equal(sp.wdays, 0x3e);
	assert_int_equal(sp.hold, 600);
	parse_ok(SCHED_WAKE, "0 0 * * 7", &sp);
	assert_int_equal(sp.wdays, 1);
	parse_ok(SCHED_WAKE, "5/20 * * * SUN", &sp);
	assert_true(sp.minutes == (1ULL << 5 | 1ULL << 25 | 1ULL << 45));

	parse_bad(SCHED_WAKE, "0 0 3 * * *", "6 fields");
	parse_bad(SCHED_WAKE, "0 3 * *", "4 fields");
	parse_bad(SCHED_WAKE, "60 3 * * *", "minute");
	parse_bad(SCHED_WAKE, "0 24 * * *", "hour");
	parse_bad(SCHED_WAKE, "0 3 0 * *", "day of month");
	parse_bad(SCHED_WAKE, "0 3 * 13 *", "month");
	parse_bad(SCHED_WAKE, "0 3 * * 8", "day of week");
	parse_bad(SCHED_WAKE, "0 5-2 * * *", "a range goes up");
	parse_bad(SCHED_WAKE, "*/0 * * * *", "minute");
	parse_bad(SCHED_WAKE, "0 3 * * * for 0s", "duration");
	parse_bad(SCHED_WAKE, "0 3 * * * for 8d", "duration");
	parse_bad(SCHED_WAKE, "0 3 * * * for", "duration");
	parse_bad(SCHED_WAKE, "0 3 * * * for 1h timezone UTC", "unexpected");
	parse_bad(SCHED_WAKE, "0 3 1,,2 * *", "day of month");
	parse_bad(SCHED_WAKE, "99999999999 3 * * *", "minute");
	parse_bad(SCHED_WAKE, "0 3 * * * * * * * * * * * *", "too many");
}

static void
test_zones(void **state)
{
	struct sched_tz	 tz;
	char		 rule[SCHED_RULE_MAX], err[256];

	assert_true(sched_zone_valid("Europe/Paris"));
	assert_true(sched_zone_valid("Etc/GMT+5"));
	assert_false(sched_zone_valid("../etc/shadow"));
	assert_false(sched_zone_valid("/etc/shadow"));
	assert_false(sched_zone_valid("Europe//Paris"));
	assert_false(sched_zone_valid("Europe/"));
	assert_false(sched_zone_valid(""));
	assert_int_equal(sched_zone_rule("No/Such_Zone", rule, sizeof(rule),
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no such zone"));
	/* the system's tzdata, where there is one */
	if (sched_zone_rule("Europe/Paris", rule, sizeof(rule), err,
	    sizeof(err)) == 0)
		assert_string_equal(rule, PARIS);
	/* a short file: its rule's line right after binary NULs */
	if (sched_zone_rule("UTC", rule, sizeof(rule), err,
	    sizeof(err)) == 0)
		assert_string_equal(rule, "UTC0");
	else
		assert_non_null(strstr(err, "no such zone"));

	assert_int_equal(sched_tz_parse(PARIS, &tz), 0);
	assert_int_equal(tz.std_off, 3600);
	assert_int_equal(tz.dst_off, 7200);
	assert_int_equal(sched_tz_parse("UTC0", &tz), 0);
	assert_int_equal(tz.has_dst, 0);
	assert_int_equal(sched_tz_parse("<+0530>-5:30", &tz), 0);
	assert_int_equal(tz.std_off, 5 * 3600 + 1800);
	assert_int_equal(sched_tz_parse("EST5EDT", &tz), 0);
	assert_int_equal(tz.dst_off, -4 * 3600);
	assert_int_equal(sched_tz_parse("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1",
	    &tz), 0);
	assert_int_equal(sched_tz_parse("", &tz), -1);
	assert_int_equal(sched_tz_parse("CE1", &tz), -1);
	assert_int_equal(sched_tz_parse("CET-1CEST,M13.5.0,M10.5.0", &tz),
	    -1);
	assert_int_equal(sched_tz_parse("CET-1CEST,M3.5.0", &tz), -1);
	assert_int_equal(sched_tz_parse("CET-99", &tz), -1);

	/* Paris 2026: summer time from 29 march 01:00Z to 25 october */
	assert_int_equal(sched_tz_parse(PARIS, &tz), 0);
	assert_int_equal(sched_tz_offset(&tz, utc(2026, 3, 29, 0, 59)), 3600);
	assert_int_equal(sched_tz_offset(&tz, utc(2026, 3, 29, 1, 0)), 7200);
	assert_int_equal(sched_tz_offset(&tz, utc(2026, 10, 25, 0, 59)),
	    7200);
	assert_int_equal(sched_tz_offset(&tz, utc(2026, 10, 25, 1, 0)), 3600);
	/* 02:30 skipped in spring: the change; repeated in autumn: first */
	assert_int_equal(sched_tz_utc(&tz, utc(2026, 3, 29, 2, 30)),
	    utc(2026, 3, 29, 1, 0));
	assert_int_equal(sched_tz_utc(&tz, utc(2026, 10, 25, 2, 30)),
	    utc(2026, 10, 25, 0, 30));
	/* Sydney: summer across the new year */
	assert_int_equal(sched_tz_parse(SYDNEY, &tz), 0);
	assert_int_equal(sched_tz_offset(&tz, utc(2026, 1, 10, 0, 0)),
	    11 * 3600);
	assert_int_equal(sched_tz_offset(&tz, utc(2026, 6, 10, 0, 0)),
	    10 * 3600);
}

static void
next(const char *rule, enum sched_kind k, const char *text, time_t now,
    time_t want_s, time_t want_e)
{
	struct sched_spec	 sp;
	struct sched_tz		 tz;
	time_t			 s = 0, e = 0;

	assert_int_equal(sched_tz_parse(rule, &tz), 0);
	parse_ok(k, text, &sp);
	assert_int_equal(sched_next(&sp, &tz, now, &s, &e), 0);
	if (s != want_s || e != want_e)
		fail_msg("%s at %lld: [%lld, %lld), not [%lld, %lld)", text,
		    (long long)now, (long long)s, (long long)e,
		    (long long)want_s, (long long)want_e);
}

static void
test_next(void **state)
{
	struct sched_spec	 sp;
	struct sched_tz		 tz;
	time_t			 s, e;

	/* friday 2026-03-27 12:00Z: inside; then monday's */
	next(PARIS, SCHED_WINDOW, "mon-fri 09:00-18:00",
	    utc(2026, 3, 27, 12, 0), utc(2026, 3, 27, 8, 0),
	    utc(2026, 3, 27, 17, 0));
	/* across the spring change: monday is in summer time */
	next(PARIS, SCHED_WINDOW, "mon-fri 09:00-18:00",
	    utc(2026, 3, 27, 17, 0), utc(2026, 3, 30, 7, 0),
	    utc(2026, 3, 30, 16, 0));
	/* across the autumn change */
	next(PARIS, SCHED_WINDOW, "mon-fri 09:00-18:00",
	    utc(2026, 10, 23, 17, 0), utc(2026, 10, 26, 8, 0),
	    utc(2026, 10, 26, 17, 0));
	/* a window over the night of the change: 23:00 to 04:00 */
	next(PARIS, SCHED_WINDOW, "sat 23:00-04:00",
	    utc(2026, 3, 28, 12, 0), utc(2026, 3, 28, 22, 0),
	    utc(2026, 3, 29, 2, 0));
	next(PARIS, SCHED_WINDOW, "sat 23:00-04:00",
	    utc(2026, 10, 24, 12, 0), utc(2026, 10, 24, 21, 0),
	    utc(2026, 10, 25, 3, 0));
	/* inside a window that began yesterday */
	next("UTC0", SCHED_WINDOW, "fri 22:00-02:00",
	    utc(2026, 3, 28, 1, 0), utc(2026, 3, 27, 22, 0),
	    utc(2026, 3, 28, 2, 0));

	/* wakes: 03:00 each day, an hour's hold */
	next(PARIS, SCHED_WAKE, "0 3 * * * for 1h", utc(2026, 3, 28, 3, 0),
	    utc(2026, 3, 29, 1, 0), utc(2026, 3, 29, 2, 0));
	next(PARIS, SCHED_WAKE, "0 3 * * * for 1h", utc(2026, 3, 29, 1, 30),
	    utc(2026, 3, 29, 1, 0), utc(2026, 3, 29, 2, 0));
	/* 02:30 does not exist on the spring day: at the change, once */
	next(PARIS, SCHED_WAKE, "30 2 * * *", utc(2026, 3, 28, 12, 0),
	    utc(2026, 3, 29, 1, 0), utc(2026, 3, 29, 1, 1));
	next(PARIS, SCHED_WAKE, "30 2 * * *", utc(2026, 3, 29, 1, 1),
	    utc(2026, 3, 30, 0, 30), utc(2026, 3, 30, 0, 31));
	/* 02:30 twice on the autumn day: the first only */
	next(PARIS, SCHED_WAKE, "30 2 * * *", utc(2026, 10, 24, 12, 0),
	    utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 0, 31));
	next(PARIS, SCHED_WAKE, "30 2 * * *", utc(2026, 10, 25, 0, 31),
	    utc(2026, 10, 26, 1, 30), utc(2026, 10, 26, 1, 31));
	/* day of month or of week, both given: either */
	next("UTC0", SCHED_WAKE, "0 12 13 * fri", utc(2026, 3, 1, 0, 0),
	    utc(2026, 3, 6, 12, 0), utc(2026, 3, 6, 12, 1));
	next("UTC0", SCHED_WAKE, "0 0 29 feb *", utc(2026, 3, 1, 0, 0),
	    utc(2028, 2, 29, 0, 0), utc(2028, 2, 29, 0, 1));
	/* february 30: never */
	assert_int_equal(sched_tz_parse("UTC0", &tz), 0);
	parse_ok(SCHED_WAKE, "0 0 30 feb *", &sp);
	assert_int_equal(sched_next(&sp, &tz, utc(2026, 1, 1, 0, 0), &s, &e),
	    -1);
}

/*
 * A workload's plan (common/sched_wl.c): its schedules parsed once give
 * the same next times as the text; its own win a tie with its group's;
 * one whose zone has no rule is left out; the group's alone when asked;
 * bounded at SCHED_PLAN_MAX items, none at all without a schedule.
 */
static void
test_plan(void **state)
{
	struct workload_conf	*wl;
	struct sched_plan	*p;
	const char		*text = NULL;
	int64_t			 hold = -1;
	time_t			 s = 0, e = 0, now = utc(2026, 3, 27, 12, 0);
	char			 line[64];
	int			 i;

	assert_non_null(wl = workload_new("plan"));
	assert_int_equal(sched_plan_build(wl, &p), 0);
	assert_null(p);
	assert_int_equal(sched_plan_next(NULL, SCHED_WINDOW, 0, now, &s, &e,
	    NULL, NULL), -1);

	assert_int_equal(strlist_add(&wl->zones, "Europe/Paris " PARIS), 0);
	assert_int_equal(strlist_add(&wl->zones, "- UTC0"), 0);
	assert_int_equal(strlist_add(&wl->warm_windows,
	    "mon-fri 09:00-18:00 timezone Europe/Paris"), 0);
	/* no rule for it: left out */
	assert_int_equal(strlist_add(&wl->warm_windows,
	    "sat 09:00-10:00 timezone Asia/Tokyo"), 0);
	assert_int_equal(strlist_add(&wl->group_windows,
	    "fri 08:00-09:00"), 0);
	assert_int_equal(strlist_add(&wl->wake_at, "0 3 * * * timezone "
	    "Europe/Paris for 1h"), 0);
	assert_int_equal(sched_plan_build(wl, &p), 0);
	assert_non_null(p);
	assert_int_equal(p->n, 3);

	/* friday 12:00Z: inside the own window, which began first */
	assert_int_equal(sched_plan_next(p, SCHED_WINDOW, 0, now, &s, &e,
	    &text, NULL), 0);
	assert_true(s == utc(2026, 3, 27, 8, 0) && e == utc(2026, 3, 27, 17,
	    0));
	assert_string_equal(text, "mon-fri 09:00-18:00 timezone Europe/Paris");
	/* the group's alone: next friday's, in UTC */
	assert_int_equal(sched_plan_next(p, SCHED_WINDOW, 1, now, &s, &e,
	    NULL, NULL), 0);
	assert_true(s == utc(2026, 4, 3, 8, 0) && e == utc(2026, 4, 3, 9, 0));
	/* the wake, its hold; the group has none */
	assert_int_equal(sched_plan_next(p, SCHED_WAKE, 0, now, &s, &e,
	    &text, &hold), 0);
	assert_true(s == utc(2026, 3, 28, 2, 0) && e == utc(2026, 3, 28, 3,
	    0));
	assert_int_equal(hold, 3600);
	assert_int_equal(sched_plan_next(p, SCHED_WAKE, 1, now, &s, &e,
	    NULL, NULL), -1);
	sched_plan_free(p);

	/* bounded, whatever the lists hold */
	for (i = 0; i < 3 * SCHED_PLAN_MAX; i++) {
		(void)snprintf(line, sizeof(line), "%d 4 * * *", i % 60);
		assert_int_equal(strlist_add(&wl->wake_at, line), 0);
	}
	assert_int_equal(sched_plan_build(wl, &p), 0);
	assert_int_equal(p->n, SCHED_PLAN_MAX);
	print_message("a plan: %zu bytes and %zu a schedule\n",
	    sizeof(*p), sizeof(p->item[0]));
	sched_plan_free(p);
	workload_free(wl);
}

static void
test_clock(void **state)
{
	char	 err[128];
	time_t	 t;

	assert_int_equal(sched_clock_init("3600", err, sizeof(err)), 0);
	t = time(NULL);
	assert_true(sched_now() - t >= 3599 && sched_now() - t <= 3601);
	assert_int_equal(sched_clock_init("-86400", err, sizeof(err)), 0);
	assert_int_equal(sched_clock_init("12abc", err, sizeof(err)), -1);
	assert_string_equal(err, "ORCHD_TEST_CLOCK_OFFSET \"12abc\" is "
	    "invalid: seconds from -632448000 to 632448000");
	assert_int_equal(sched_clock_init("99999999999999", err, sizeof(err)),
	    -1);
	assert_int_equal(sched_clock_init(NULL, err, sizeof(err)), 0);
	assert_true(sched_now() - time(NULL) <= 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_zones),
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_clock),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
