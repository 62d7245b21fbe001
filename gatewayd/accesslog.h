/*
 * The access log's lines (accesslog_fmt.c): what one line says, and its
 * formatting, apart from the gateway so that the unit tests reach it.
 */

#ifndef ORCHD_GATEWAY_ACCESSLOG_H
#define ORCHD_GATEWAY_ACCESSLOG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define ALOG_LINE_MAX	PIPE_BUF	/* a line, newline included */
/* the request's fields are cut to this many bytes as received, and to
   this many written (escaped); the line is then never longer than
   ALOG_LINE_MAX */
#define ALOG_METHOD_MAX	32
#define ALOG_HOST_MAX	256
#define ALOG_TARGET_MAX	2048
#define ALOG_AGENT_MAX	512
#define ALOG_REFERER_MAX 512
#define ALOG_CLIENT_MAX	64

/* a string field: NULL for none ("-", or null in JSON) */
struct alog_str {
	const char	*s;
	size_t		 len;
};

struct alog_line {
	int		 format;	/* enum access_log_format */
	int64_t		 start_ms;	/* wall clock, the request's start */
	struct alog_str	 client;
	struct alog_str	 method;	/* NULL: no head was read */
	struct alog_str	 target;
	int		 version;	/* 10, 11, 20 (an h2 stream) */
	struct alog_str	 host;
	struct alog_str	 referer;
	struct alog_str	 agent;
	struct alog_str	 workload;
	int		 status;
	uint64_t	 bytes_in;
	uint64_t	 bytes_out;
	int64_t		 duration_ns;
	int		 held;		/* parked for a wake */
	int64_t		 wake_ns;	/* for so long */
	struct alog_str	 gate;		/* refused by the gate: why */
};

size_t	 alog_format(char *, const struct alog_line *);
size_t	 alog_chunk(const char *, size_t);

#endif /* ORCHD_GATEWAY_ACCESSLOG_H */
