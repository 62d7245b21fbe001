/*
 * orchd.conf's pieces between processes (common/msg.h lists the
 * messages): confd's records to the parent, the pages of "error page".
 * Included by msg.h alone.
 */

#ifndef ORCHD_MSG_CONF_H
#define ORCHD_MSG_CONF_H

#include <stdint.h>

/*
 * orchd.conf read by confd (confd/), sent to the parent piece by piece:
 * every global setting as a struct conf_set with its bytes, a row of
 * common/conf_wire.c's table; each listener, keypair, workload, ignore
 * rule, password file and the acme block as its own message.  The
 * parent checks each against the table and its rules, as it would a
 * child's: it takes none of it on trust.
 */
#define CONF_FD			3	/* confd's socket to the parent */
#define CONF_MSG_MAX		(512 * 1024) /* a message, header included:
					   a workload's 256 KiB fit */
#define CONF_LOG_MAX		1024	/* a line, NUL included */
#define CONF_MACRO_MAX		8448	/* -D NAME=VALUE, NUL included */
#define CONF_STRING_MAX		4096	/* a setting's string, NUL included */

struct conf_macro {
	char			 def[CONF_MACRO_MAX];
};
struct conf_read {
	char			 file[CONF_STRING_MAX];
	int32_t			 host_checks;	/* PARSE_HOST_* */
	int32_t			 verbose;	/* -v: macros never used */
	int32_t			 print;		/* orchd -nv: print it */
	int32_t			 key_env;	/* the key is ORCHD_KEY's: said
						   when printed */
	int64_t			 idle_timeout;	/* ORCHD_IDLE_TIMEOUT's, which
						   replaces the file's; -1:
						   none */
};
/*
 * The no-change reload (confd/inputs.c): the parent keeps what the
 * running configuration's parse read, as these records and a digest
 * keyed by a key drawn at its start, and sends them with the next
 * READ; confd reads them again and answers SAME when the digest is
 * equal, or parses and sends the new ones before END.
 */
#define CONF_INPUTS_MAX		512	/* records; more: no fast path */
enum conf_input_kind {
	CONF_INPUT_FILE = 1,		/* a file's bytes */
	CONF_INPUT_GLOB,		/* an include pattern's matches */
	CONF_INPUT_HTPASSWD,		/* a password file's users */
	CONF_INPUT_MAX
};
#define CONF_INPUT_NOFOLLOW	0x1	/* read with O_NOFOLLOW */
struct conf_input {
	int32_t			 kind;		/* CONF_INPUT_* */
	int32_t			 flags;		/* CONF_INPUT_NOFOLLOW */
	char			 path[CONF_STRING_MAX];
};
struct conf_digest {
	uint8_t			 key[16];	/* parent -> confd only */
	uint64_t		 digest;
	int32_t			 replay;	/* parent: compare first;
						   confd: the records fit */
	int32_t			 ninputs;	/* the records that follow */
};
struct conf_log {
	int32_t			 pri;		/* LOG_* */
	char			 line[CONF_LOG_MAX];
};
struct conf_set {
	uint32_t		 field;		/* its row in conf_fields[] */
	uint32_t		 len;		/* bytes after this header */
	int64_t			 num;		/* a number's value */
};
struct conf_listener {
	char			 name[ORCHD_HOST_MAX];
	struct sockaddr_storage	 ss;
	uint32_t		 sslen;
	int32_t			 api;		/* LISTENER_API, _STATUS, 0 */
	int32_t			 tls;
	int32_t			 http2;		/* LISTENER_H2_* */
	int32_t			 acme;
	int32_t			 redirect;
	int32_t			 redirect_port;
	int32_t			 hsts;
	int32_t			 hsts_sub;
	int32_t			 pad;
	int64_t			 hsts_age;
	char			 tls_cert[CONF_STRING_MAX]; /* "": none */
	char			 tls_key[CONF_STRING_MAX];
	char			 workload[ORCHD_NAME_MAX]; /* "": HTTP */
};
struct conf_keypair {
	char			 host[ORCHD_HOST_MAX];
	char			 cert[CONF_STRING_MAX];
	char			 key[CONF_STRING_MAX];
};
struct conf_acme {
	char			 directory[ACME_URL_MAX];
	char			 contact[ACME_CONTACT_MAX]; /* "": none */
	char			 ca_file[CONF_STRING_MAX];  /* "": none */
	char			 eab_kid[ACME_EAB_MAX];
	char			 eab_hmac_file[CONF_STRING_MAX];
	char			 eab_hmac[ACME_EAB_MAX];
	int64_t			 per_hour;	/* -1: not set */
	int32_t			 per_hour_set;
	int32_t			 pad;
};

/*
 * "error page STATUS FILE": a page of the operator's for an answer of
 * orchd's own, read by confd, checked by the parent, held by the
 * gateways (gatewayd/errpage.c).  The global ones travel as
 * cfg_errpage records; a workload's are its field "error_pages", each
 * "STATUS PATH".
 */
#define ERRPAGE_MAX		(64 * 1024)	/* a page's bytes */
#define ERRPAGE_PATH_MAX	1024		/* its file's path, NUL in */
#define ERRPAGE_FILES_MAX	64		/* distinct files, per load */

struct cfg_page {
	char			 path[ERRPAGE_PATH_MAX];
};
struct cfg_errpage {
	int32_t			 status;
	char			 path[ERRPAGE_PATH_MAX];
};

#endif /* ORCHD_MSG_CONF_H */
