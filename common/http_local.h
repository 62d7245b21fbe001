/*
 * What the files of the HTTP/1.1 parser share (common/http.c, the head;
 * http_head.c, the checks of a whole head; http_ser.c, serialisation;
 * http_chunked.c, the chunked coding).  Not for their callers: those
 * include http.h.
 */

#ifndef ORCHD_HTTP_LOCAL_H
#define ORCHD_HTTP_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"

/* character classes (RFC 9110 section 5.6, RFC 9112) */
#define C_TCHAR		0x01	/* token character */
#define C_VCHAR		0x02	/* visible US-ASCII */
#define C_VALUE		0x04	/* field-vchar, SP, HTAB */
#define C_WS		0x08	/* SP, HTAB */
#define C_HEX		0x10
#define C_DIGIT		0x20
#define C_QDTEXT	0x40	/* inside a quoted-string */
#define C_TARGET	0x80	/* request-target: VCHAR but '#' */

extern const uint8_t	 http_cclass[256];
#define IS(c, cl)	((http_cclass[(unsigned char)(c)] & (cl)) != 0)

/* head parser states, in input order */
enum {
	S_START,	/* request: leading CRLF or the method */
	S_LEAD_LF,	/* LF of a leading empty line */
	S_METHOD,
	S_TARGET,
	S_VERSION,	/* request: "HTTP/x.y" up to CR */
	S_RVERSION,	/* response: "HTTP/x.y" up to SP */
	S_CODE,
	S_CODE_END,	/* SP or CR after the status code */
	S_REASON,
	S_LINE_LF,	/* LF ending the start line */
	S_FIELD_START,
	S_NAME,
	S_VALUE_OWS,
	S_VALUE,
	S_FIELD_LF,
	S_END_LF,	/* LF of the empty line */
	S_DONE,
	S_ERROR
};

size_t		 http_run(const char *, const char *, uint8_t);
void		 http_head_fail(struct http_head *, int, const char *);
int		 http_parse_authority(const char *, size_t, int, size_t *,
		    int *);
void		 http_head_finish(struct http_head *);

/* the small helpers of every file's inner loops, inline */
static inline int
http_lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* ASCII case-insensitive, independent of the locale */
static inline int
http_ci_eq(const char *a, const char *b, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (http_lower((unsigned char)a[i]) !=
		    http_lower((unsigned char)b[i]))
			return 0;
	return 1;
}

#endif /* ORCHD_HTTP_LOCAL_H */
