/*
 * The root parent's reading of a definition from a child (orchd/apidef.c
 * over common/workload_wire.c): packed bytes, never JSON.  Handed
 * truncated, overlong, unterminated and lying ones, it refuses each with
 * a status and never reads outside the message (the sanitizer build
 * checks that); a good one comes back whole, of the API, and a header's
 * pointers are never used.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat.h"
#include "msg.h"
#include "proc.h"
#include "workload.h"
#include "workload_fields.h"
#include "../../orchd/parent.h"
#include "conf.h"

static const char	*good_json = "{\"name\": \"w\", \"hosts\": "
    "[\"w.test\", \"x.test\"], \"driver\": \"process\", \"command\": "
    "\"/bin/true\", \"port\": 8080, \"env\": [\"A=1\"], "
    "\"ignore\": [{\"path\": \"/health*\"}]}";

struct msg {
	char	 buf[8192];
	size_t	 len;
};

/* an empty configuration that allows process workloads */
static void
conf_api(struct orchd_conf *c)
{
	conf_init(c);
	c->api_allow_process = 1;
	c->conffile = "/etc/orchd.conf";
}

static struct workload_conf *
good(void)
{
	struct workload_conf	*wc;
	char			 err[256];

	wc = workload_from_json(good_json, strlen(good_json), err,
	    sizeof(err));
	if (wc == NULL)
		fail_msg("%s", err);
	wc->source = SOURCE_API;
	return (wc);
}

static void
put(struct msg *m, const void *p, size_t len)
{
	assert_true(m->len + len <= sizeof(m->buf));
	memcpy(m->buf + m->len, p, len);
	m->len += len;
}

static void
put_u32(struct msg *m, uint32_t v)
{
	put(m, &v, sizeof(v));
}

/* a string as the wire has it: its length, NUL included, then it */
static void
put_str(struct msg *m, const char *s)
{
	put_u32(m, s != NULL ? strlen(s) + 1 : 0);
	if (s != NULL)
		put(m, s, strlen(s) + 1);
}

/* the header of wc as workload_wire() makes it */
static void
put_header(struct msg *m, const struct workload_conf *wc)
{
	void	*def;
	size_t	 len;

	assert_non_null(def = workload_wire(wc, &len));
	put(m, def, sizeof(*wc));
	free(def);
}

/* where the last put_rest() put the command's length */
static size_t	 command_at;

/* one field after the header, as the hand-made good() has it */
static void
put_default(struct msg *m, const struct wl_field *f, const char *command)
{
	if (strcmp(f->json, "command") == 0) {
		command_at = m->len;
		put_str(m, command);
	} else if (strcmp(f->json, "address") == 0)
		put_str(m, "127.0.0.1");
	else if (strcmp(f->json, "hosts") == 0) {
		put_u32(m, 1);
		put_str(m, "w.test");
	} else
		put_u32(m, 0);		/* no string, or an empty list */
}

/* does field f hold anything beyond the header on the wire? */
static int
on_wire(const struct wl_field *f)
{
	switch (f->type) {
	case WF_STRING:
	case WF_NETWORK:
	case WF_STRLIST:
	case WF_VOLUMES:
	case WF_IGNORES:
		return (1);
	default:
		return (0);
	}
}

/*
 * After the header, in the order of the table of the fields: the
 * strings and lists of good(), but the field named, which fn writes.
 */
static void
put_rest_but(struct msg *m, const char *command, const char *field,
    void (*fn)(struct msg *))
{
	const struct wl_field	*f;
	size_t			 i;

	for (i = 0; i < wl_nfields; i++) {
		f = &wl_fields[i];
		if (!on_wire(f))
			continue;
		if (field != NULL && strcmp(f->json, field) == 0)
			fn(m);
		else
			put_default(m, f, command);
	}
}

static void
put_rest(struct msg *m, const char *command)
{
	put_rest_but(m, command, NULL, NULL);
}

/* read as the parent reads a gateway's; the status, 0 if taken */
static int
parent_reads(const void *data, size_t len, struct workload_conf **out)
{
	struct orchd_conf	 conf;
	struct workload_conf	*wc;
	char			 err[CTL_MSG_MAX];
	int			 status = -1;

	conf_api(&conf);
	err[0] = '\0';
	wc = api_def_read(&conf, data, len, &status, err, sizeof(err));
	if (wc == NULL) {
		assert_true(status >= 400 && status < 500);
		assert_true(err[0] != '\0');
		return (status);
	}
	assert_int_equal(wc->source, SOURCE_API);
	if (out != NULL)
		*out = wc;
	else
		workload_free(wc);
	return (0);
}

/* what a gateway sends for good JSON is read back the same */
static void
test_roundtrip(void **state)
{
	struct workload_conf	*wc, *back = NULL;
	void			*def, *again;
	size_t			 len, alen;

	wc = good();
	assert_non_null(def = workload_wire(wc, &len));
	assert_int_equal(parent_reads(def, len, &back), 0);
	assert_string_equal(back->name, "w");
	assert_string_equal(back->command, "/bin/true");
	assert_string_equal(TAILQ_LAST(&back->hosts, strlist)->str,
	    "x.test");
	assert_string_equal(TAILQ_FIRST(&back->env)->str, "A=1");
	assert_int_equal(back->port, 8080);
	/* the same bytes again, and the same hash the gateway computes */
	assert_non_null(again = workload_wire(back, &alen));
	assert_int_equal(alen, len);
	assert_memory_equal(again, def, len);
	assert_true(workload_wire_hash(wc) == workload_wire_hash(back));
	free(again);
	free(def);
	workload_free(back);
	workload_free(wc);
}

/* every prefix of a good one, and one byte more: refused */
static void
test_truncated_overlong(void **state)
{
	struct workload_conf	*wc = good();
	char			*def, *more;
	size_t			 len, i;

	assert_non_null(def = workload_wire(wc, &len));
	for (i = 0; i < len; i++)
		assert_int_equal(parent_reads(def, i, NULL), 400);
	assert_non_null(more = malloc(len + 1));
	memcpy(more, def, len);
	more[len] = '\0';
	assert_int_equal(parent_reads(more, len + 1, NULL), 400);
	/* larger than any the API may send */
	assert_int_equal(parent_reads(more, ORCHD_API_JSON_MAX + 1, NULL),
	    413);
	free(more);
	free(def);
	workload_free(wc);
}

/* the hand-made form of good() is taken: the tests below are its kin */
static void
test_handmade(void **state)
{
	struct workload_conf	*wc = good();
	struct msg		 m;

	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest(&m, "/bin/true");
	assert_int_equal(parent_reads(m.buf, m.len, NULL), 0);
	workload_free(wc);
}

/* strings not ending at their length, or ending before it */
static void
test_unterminated(void **state)
{
	struct workload_conf	*wc = good();
	struct msg		 m;
	uint32_t		 n;

	/* the command's NUL replaced */
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest(&m, "/bin/true");
	n = command_at + sizeof(uint32_t) + strlen("/bin/true");
	assert_int_equal(m.buf[n], '\0');
	m.buf[n] = 'x';
	assert_int_equal(parent_reads(m.buf, m.len, NULL), 400);

	/* a NUL inside: "/bin\0true" with the length of the whole */
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest(&m, "/bin/true");
	m.buf[command_at + sizeof(uint32_t) + 4] = '\0';
	assert_int_equal(parent_reads(m.buf, m.len, NULL), 400);

	/* the name in the header fills it, no NUL */
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	memset(m.buf + offsetof(struct workload_conf, name), 'a',
	    ORCHD_NAME_MAX);
	put_rest(&m, "/bin/true");
	assert_int_equal(parent_reads(m.buf, m.len, NULL), 400);
	workload_free(wc);
}

/* lengths and counts that say more than there is */
static void
hosts_big(struct msg *m)
{
	put_u32(m, UINT32_MAX);
	put_str(m, "w.test");
}

static void
host_none(struct msg *m)
{
	put_u32(m, 1);
	put_u32(m, 0);
}

static void
ignore_unknown(struct msg *m)
{
	put_u32(m, 1);
	put_u32(m, 77);
	put_u32(m, 503);
	put_str(m, "/x");
}

static void
test_lying(void **state)
{
	struct workload_conf	*wc = good();
	struct msg		 m;
	uint32_t		 big = UINT32_MAX;

	/* a string's length past the end */
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest(&m, "/bin/true");
	memcpy(m.buf + command_at, &big, sizeof(big));
	assert_int_equal(parent_reads(m.buf, m.len, NULL), 400);

	/* a list of four billion hosts */
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest_but(&m, "/bin/true", "hosts", hosts_big);
	assert_int_equal(parent_reads(m.buf, m.len, NULL), 400);

	/* a host with no string (length 0) */
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest_but(&m, "/bin/true", "hosts", host_none);
	assert_int_equal(parent_reads(m.buf, m.len, NULL), 400);

	/* an ignore rule of a kind that does not exist */
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest_but(&m, "/bin/true", "ignore", ignore_unknown);
	assert_int_equal(parent_reads(m.buf, m.len, NULL), 400);
	workload_free(wc);
}

/*
 * The header's own lies: pointers (never followed), values out of
 * range (the rules), fields only the parent gives (the policy), a
 * source of the file (made the API's).
 */
static void
test_header(void **state)
{
	struct workload_conf	*wc = good(), *back = NULL;
	struct msg		 m;
	char			*p;

	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	memset(m.buf + offsetof(struct workload_conf, command), 0x41,
	    sizeof(void *));
	memset(m.buf + offsetof(struct workload_conf, hosts), 0x41,
	    sizeof(struct strlist));
	put_rest(&m, "/bin/true");
	assert_int_equal(parent_reads(m.buf, m.len, &back), 0);
	assert_string_equal(back->command, "/bin/true");
	p = back->command;
	assert_true(p != (char *)0x4141414141414141ULL);
	workload_free(back);

	wc->driver = 99;
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest(&m, "/bin/true");
	assert_int_equal(parent_reads(m.buf, m.len, NULL), 400);
	wc->driver = DRIVER_PROCESS;

	wc->health = 12;
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest(&m, "/bin/true");
	assert_int_equal(parent_reads(m.buf, m.len, NULL), 400);
	wc->health = HEALTH_TCP;

	wc->run_uid = 0;
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest(&m, "/bin/true");
	assert_true(parent_reads(m.buf, m.len, NULL) >= 400);
	wc->run_uid = -1;

	wc->source = SOURCE_CONFIG;
	wc->allow_root = 0;
	memset(&m, 0, sizeof(m));
	put_header(&m, wc);
	put_rest(&m, "/bin/true");
	assert_int_equal(parent_reads(m.buf, m.len, &back), 0);
	assert_int_equal(back->source, SOURCE_API);
	workload_free(back);
	workload_free(wc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_truncated_overlong),
		cmocka_unit_test(test_handmade),
		cmocka_unit_test(test_unterminated),
		cmocka_unit_test(test_lying),
		cmocka_unit_test(test_header),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
