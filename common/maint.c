/*
 * Maintenance's input: its message and its end.  The message comes from
 * an operator (orchctl) or an API client and is shown to every client of
 * the workload, in a text body, a JSON string and an HTML page: it must
 * be text, so a control byte (a CR or LF that would forge a header, a
 * NUL, an escape) or a byte that is not UTF-8 refuses it, and it is
 * bounded (MAINT_MSG_MAX).  It never goes into a header: only Retry-After
 * does, a number made here.  The end, until, is a wall clock time in the
 * future and at most MAINT_UNTIL_MAX ahead.  runtimed checks what it is
 * sent whoever sent it; the API and orchctl check first for a clear error.
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "maint.h"
#include "msg.h"

/* the length of a UTF-8 sequence that starts s, at most n long; 0: bad */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	size_t		 len, i;
	uint32_t	 cp;

	if (s[0] < 0x80)
		return (1);
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else
		return (0);
	if (len > n)
		return (0);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return (0);
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond Unicode */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return (0);
	return (len);
}

/* msg of len bytes: text, bounded; 0, or -1 with why in err */
int
maint_msg_ok(const char *msg, size_t len, char *err, size_t errlen)
{
	const unsigned char	*s = (const unsigned char *)msg;
	size_t			 i, n;

	if (len >= MAINT_MSG_MAX) {
		(void)snprintf(err, errlen, "maintenance message: at most %d "
		    "bytes", MAINT_MSG_MAX - 1);
		return (-1);
	}
	for (i = 0; i < len; i += n) {
		if (s[i] < 0x20 || s[i] == 0x7f) {
			(void)snprintf(err, errlen, "maintenance message: a "
			    "control character (0x%02x) is not allowed", s[i]);
			return (-1);
		}
		if ((n = utf8_seq(s + i, len - i)) == 0) {
			(void)snprintf(err, errlen, "maintenance message: not "
			    "UTF-8");
			return (-1);
		}
	}
	return (0);
}

/*
 * m as another process sent it, checked at now (wall clock, s); off
 * clears the rest.  0, or -1 with why in err.
 */
int
maint_check(struct wl_maint *m, int64_t now, char *err, size_t errlen)
{
	const char	*nul;

	m->pad = 0;
	if (m->on == 0) {
		m->until = 0;
		memset(m->msg, 0, sizeof(m->msg));
		return (0);
	}
	if (m->on != 1) {
		(void)snprintf(err, errlen, "maintenance: on or off");
		return (-1);
	}
	if ((nul = memchr(m->msg, '\0', sizeof(m->msg))) == NULL) {
		(void)snprintf(err, errlen, "maintenance message: at most %d "
		    "bytes", MAINT_MSG_MAX - 1);
		return (-1);
	}
	if (maint_msg_ok(m->msg, nul - m->msg, err, errlen) == -1)
		return (-1);
	if (m->until != 0 && m->until <= now) {
		(void)snprintf(err, errlen, "maintenance until: that time has "
		    "passed");
		return (-1);
	}
	if (m->until != 0 && m->until - now > MAINT_UNTIL_MAX) {
		(void)snprintf(err, errlen, "maintenance until: at most %d "
		    "days ahead", MAINT_UNTIL_MAX / 86400);
		return (-1);
	}
	return (0);
}

/* seconds for Retry-After: to its end, or the default; 1 to a day */
int
maint_retry_after(const struct wl_maint *m, int64_t now)
{
	int64_t	 left;

	if (m->until == 0)
		return (MAINT_RETRY_AFTER);
	left = m->until - now;
	if (left < 1)
		return (1);
	return (left > MAINT_RETRY_AFTER_MAX ? MAINT_RETRY_AFTER_MAX :
	    (int)left);
}
