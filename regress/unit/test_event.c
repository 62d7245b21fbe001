/*
 * The events of orchctl monitor and GET /v1/events (common/event.c):
 * which of runtimed's messages are events, and their text and JSON.
 */

#include <sys/types.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "event_json.h"
#include "msg.h"
#include "util.h"
#include "workload.h"

#define T0	1700000000123LL		/* 2023-11-14T22:13:20.123Z */

static void
state(struct rt_state *st, int from, int to, int reason)
{
	memset(st, 0, sizeof(*st));
	strlcpy(st->name, "blog", sizeof(st->name));
	st->from = from;
	st->state = to;
	st->reason = reason;
	st->since = T0 / 1000;
	st->since_ms = T0;
}

static char *
dump(const struct ctl_event *ev)
{
	json_t	*o;
	char	*s;

	o = event_json(ev);
	assert_non_null(o);
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_non_null(s);
	json_decref(o);
	return (s);
}

/* a state told again is no event; a change is, with its wake's cause */
static void
test_event_state(void **state_)
{
	struct rt_state		 st;
	struct ctl_event	 ev;
	char			 buf[1024], *s;

	state(&st, WL_RUNNING, WL_RUNNING, RT_REASON_NONE);
	assert_int_equal(event_from_state(&ev, &st), -1);
	state(&st, WL_ASLEEP, 42, RT_REASON_REQUEST);
	assert_int_equal(event_from_state(&ev, &st), -1);

	state(&st, WL_ASLEEP, WL_WAKING, RT_REASON_REQUEST);
	st.cause.kind = WAKE_REQUEST;
	strlcpy(st.cause.method, "GET", sizeof(st.cause.method));
	strlcpy(st.cause.host, "blog.test", sizeof(st.cause.host));
	strlcpy(st.cause.path, "/feed", sizeof(st.cause.path));
	strlcpy(st.cause.client, "192.0.2.1", sizeof(st.cause.client));
	memcpy(st.cause.agent, "a\"b\xfe", 5);
	assert_int_equal(event_from_state(&ev, &st), 0);
	assert_string_equal(event_text(&ev, buf, sizeof(buf)),
	    "2023-11-14T22:13:20.123Z blog: asleep -> waking (request) by "
	    "GET blog.test/feed from 192.0.2.1 \"a\"b?\"");
	s = dump(&ev);
	assert_string_equal(s, "{\"type\":\"state\","
	    "\"time\":\"2023-11-14T22:13:20.123Z\",\"workload\":\"blog\","
	    "\"from\":\"asleep\",\"to\":\"waking\",\"reason\":\"request\","
	    "\"message\":null,\"cause\":{\"kind\":\"request\","
	    "\"method\":\"GET\",\"host\":\"blog.test\",\"path\":\"/feed\","
	    "\"client\":\"192.0.2.1\",\"agent\":\"a\\\"b?\"}}");
	free(s);

	/* a cause on any other change is not the event's */
	state(&st, WL_WAKING, WL_FAILED, RT_REASON_START_FAILED);
	st.cause.kind = WAKE_ORCHCTL;
	strlcpy(st.msg, "exited with status 1", sizeof(st.msg));
	assert_int_equal(event_from_state(&ev, &st), 0);
	assert_int_equal(ev.cause.kind, WAKE_NONE);
	assert_string_equal(event_text(&ev, buf, sizeof(buf)),
	    "2023-11-14T22:13:20.123Z blog: waking -> failed (start failed): "
	    "exited with status 1");
	s = dump(&ev);
	assert_non_null(strstr(s, "\"reason\":\"start_failed\","
	    "\"message\":\"exited with status 1\",\"cause\":null}"));
	free(s);
}

/*
 * Every reason has a name, the same in the monitor, the API, runtimed's
 * log and orchctl (one table, common/util.c): the JSON's is the text's
 * with '_' for ' '.  An OOM kill's event once said "unknown".
 */
static void
test_event_reasons(void **state_)
{
	struct ctl_event	 ev;
	struct rt_state		 st;
	const char		*text, *json;
	char			 buf[256], *s;
	size_t			 i;
	int			 r;

	for (r = RT_REASON_NONE; r <= RT_REASON_MAINTENANCE; r++) {
		text = workload_reason_name(r, 0);
		json = workload_reason_name(r, 1);
		assert_string_not_equal(text, "unknown");
		assert_int_equal(strlen(text), strlen(json));
		for (i = 0; text[i] != '\0'; i++)
			assert_int_equal(json[i], text[i] == ' ' ? '_' :
			    text[i]);
	}
	assert_string_equal(workload_reason_name(RT_REASON_MAINTENANCE + 1, 0),
	    "unknown");
	assert_string_equal(workload_reason_name(-1, 1), "unknown");

	state(&st, WL_RUNNING, WL_FAILED, RT_REASON_OOM);
	assert_int_equal(event_from_state(&ev, &st), 0);
	assert_string_equal(event_text(&ev, buf, sizeof(buf)),
	    "2023-11-14T22:13:20.123Z blog: running -> failed (oom)");
	/* the freeze tier: frozen, and thawed */
	state(&st, WL_RUNNING, WL_FROZEN, RT_REASON_IDLE);
	assert_int_equal(event_from_state(&ev, &st), 0);
	assert_string_equal(event_text(&ev, buf, sizeof(buf)),
	    "2023-11-14T22:13:20.123Z blog: running -> frozen (idle)");
	state(&st, WL_WAKING, WL_RUNNING, RT_REASON_THAWED);
	assert_int_equal(event_from_state(&ev, &st), 0);
	s = dump(&ev);
	assert_non_null(strstr(s, "\"reason\":\"thawed\""));
	free(s);
	state(&st, WL_WAKING, WL_ASLEEP, RT_REASON_NO_ROOM);
	assert_int_equal(event_from_state(&ev, &st), 0);
	s = dump(&ev);
	assert_non_null(strstr(s, "\"reason\":\"no_room\""));
	free(s);
}

static void
test_event_reload(void **state_)
{
	struct ctl_event	 ev;
	char			 buf[256], *s;

	event_reload(&ev, 1, T0);
	assert_string_equal(event_text(&ev, buf, sizeof(buf)),
	    "2023-11-14T22:13:20.123Z reload: loaded");
	s = dump(&ev);
	assert_string_equal(s, "{\"type\":\"reload\","
	    "\"time\":\"2023-11-14T22:13:20.123Z\",\"ok\":true}");
	free(s);
	event_reload(&ev, 0, T0);
	assert_string_equal(event_text(&ev, buf, sizeof(buf)),
	    "2023-11-14T22:13:20.123Z reload: refused");
	assert_string_equal(event_type_name(EVENT_RELOAD), "reload");
	assert_string_equal(event_type_name(99), "unknown");
}

/* from another process: whatever it holds comes out terminated, clean */
static void
test_event_sanitize(void **state_)
{
	struct ctl_event	 ev;
	char			 buf[2048], *s;

	memset(&ev, 'x', sizeof(ev));
	ev.type = EVENT_STATE;
	ev.from = -7;
	ev.to = 1000;
	ev.reason = 77;
	ev.time_ms = T0;
	ev.cause.kind = WAKE_REQUEST;
	ev.msg[3] = '\n';
	event_sanitize(&ev);
	assert_int_equal(strlen(ev.name), sizeof(ev.name) - 1);
	assert_int_equal(ev.msg[3], '?');
	assert_int_equal(ev.from, WL_ASLEEP);
	assert_int_equal(ev.to, WL_ASLEEP);
	(void)event_text(&ev, buf, sizeof(buf));
	assert_non_null(strstr(buf, "(unknown)"));
	s = dump(&ev);
	free(s);
}

/* maintenance on and off, told with the state it leaves as it is */
static void
test_event_maint(void **state_)
{
	struct ctl_event	 ev;
	struct rt_state		 st;
	char			 buf[2048], *s;

	memset(&st, 0, sizeof(st));
	strlcpy(st.name, "blog", sizeof(st.name));
	st.state = st.from = WL_ASLEEP;
	st.reason = RT_REASON_MAINTENANCE;
	st.maint.on = 1;
	st.maint.changed_ms = T0;
	strlcpy(st.maint.msg, "<b>back\r\nsoon</b>", sizeof(st.maint.msg));
	assert_int_equal(event_from_state(&ev, &st), 0);
	assert_int_equal(ev.type, EVENT_MAINT);
	assert_string_equal(event_text(&ev, buf, sizeof(buf)),
	    "2023-11-14T22:13:20.123Z blog: maintenance on: <b>back??soon</b>");
	s = dump(&ev);
	assert_string_equal(s, "{\"type\":\"maintenance\","
	    "\"time\":\"2023-11-14T22:13:20.123Z\",\"workload\":\"blog\","
	    "\"on\":true,\"message\":\"<b>back??soon</b>\"}");
	free(s);
	memset(&st.maint, 0, sizeof(st.maint));
	st.maint.changed_ms = T0;
	assert_int_equal(event_from_state(&ev, &st), 0);
	assert_string_equal(event_text(&ev, buf, sizeof(buf)),
	    "2023-11-14T22:13:20.123Z blog: maintenance off");
	/* a state told again for any other reason is still no event */
	st.reason = RT_REASON_NONE;
	assert_int_equal(event_from_state(&ev, &st), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_state),
		cmocka_unit_test(test_event_reasons),
		cmocka_unit_test(test_event_reload),
		cmocka_unit_test(test_event_sanitize),
		cmocka_unit_test(test_event_maint),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
