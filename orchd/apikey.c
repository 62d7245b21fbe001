/*
 * The HTTP API's bearer key.  The parent reads it, as root, from the
 * "api key file" or takes it from ORCHD_KEY, which overrides the file;
 * it goes to the gateway with the next configuration transaction and is
 * then forgotten here (config_send, apikey_send).
 *
 * A key file that anyone but its owner may read, or that belongs to
 * neither root nor the user orchd runs as, is refused: the configuration
 * is invalid, at start and on reload alike.  ORCHD_KEY is taken out of
 * the environment the first time it is read, so that no child inherits
 * it; reloads use the copy kept here.
 *
 * Either way the key must hold at least 128 bits (apikey_strong): an
 * API key holder may create workloads, so the key is what stands between
 * the network and every API workload.  A short key is refused like a
 * file readable by others: the configuration is invalid.
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"

static char	*apikey_env;		/* ORCHD_KEY, or NULL */
static int	 apikey_env_taken;

/* a bearer token is printable ASCII without spaces (token68 and more) */
static int
apikey_valid(const uint8_t *key, size_t len)
{
	size_t	 i;

	if (len == 0 || len > ORCHD_API_KEY_MAX)
		return (0);
	for (i = 0; i < len; i++)
		if (key[i] <= 0x20 || key[i] >= 0x7f)
			return (0);
	return (1);
}

/*
 * At least 128 bits, judged from the key's alphabet: 32 or more hex
 * digits (4 bits each), or 22 or more characters of base64 or base64url
 * (6 bits each; one or two "=" of padding at the end do not count).  A
 * key of other characters cannot be judged and is refused: such keys are
 * made by hand, not by a generator.  0, or -1 with why.
 */
int
apikey_strong(const uint8_t *key, size_t len, const char **why)
{
	size_t	 i, n, pad = 0;
	int	 hex = 1, b64 = 1;

	while (pad < 2 && pad < len && key[len - pad - 1] == '=')
		pad++;
	n = len - pad;
	for (i = 0; i < n; i++) {
		if (!isxdigit(key[i]))
			hex = 0;
		if (!isalnum(key[i]) && key[i] != '+' && key[i] != '/' &&
		    key[i] != '-' && key[i] != '_')
			b64 = 0;
	}
	if (n == 0 || !b64) {
		*why = "the key must be hex or base64 "
		    "(openssl rand -hex 16 makes one)";
		return (-1);
	}
	if (hex && pad == 0) {
		if (n < APIKEY_HEX_MIN) {
			*why = "a hex key must be at least 32 digits "
			    "(128 bits)";
			return (-1);
		}
		return (0);
	}
	if (n < APIKEY_B64_MIN) {
		*why = "a base64 key must be at least 22 characters "
		    "(128 bits)";
		return (-1);
	}
	return (0);
}

static void
apikey_take_env(void)
{
	char	*v;

	if (apikey_env_taken)
		return;
	apikey_env_taken = 1;
	if ((v = getenv("ORCHD_KEY")) == NULL || *v == '\0')
		return;
	if ((apikey_env = strdup(v)) == NULL)
		fatal("%s", __func__);
	explicit_bzero(v, strlen(v));
	if (unsetenv("ORCHD_KEY") == -1)
		fatal("unsetenv ORCHD_KEY");
}

/*
 * A file of secrets (what: "api key file", "registry auth file"): a
 * regular file only its owner, root or orchd's own user, may read or
 * write.  0, or -1 with why logged.
 */
int
secretfile_check(const char *what, const char *path, const struct stat *st)
{
	if (!S_ISREG(st->st_mode)) {
		log_warnx("%s %s is not a regular file", what, path);
		return (-1);
	}
	if (st->st_mode & (S_IRGRP | S_IROTH)) {
		log_warnx("%s %s is readable by others", what, path);
		return (-1);
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		log_warnx("%s %s is writable by others", what, path);
		return (-1);
	}
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		log_warnx("%s %s is owned by uid %u, neither root nor uid %u",
		    what, path, (unsigned int)st->st_uid,
		    (unsigned int)geteuid());
		return (-1);
	}
	return (0);
}

/* the file's bytes without the line end(s) after the key; what: its name */
static uint8_t *
apikey_read_file(const char *what, const char *path, size_t *lenp)
{
	struct stat	 st;
	uint8_t		 buf[ORCHD_API_KEY_MAX + 4], *key = NULL;
	const char	*why;
	ssize_t		 n;
	size_t		 len = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		log_warn("%s %s", what, path);
		return (NULL);
	}
	if (fstat(fd, &st) == -1) {
		log_warn("%s %s", what, path);
		goto done;
	}
	if (secretfile_check(what, path, &st) == -1)
		goto done;
	while (len < sizeof(buf)) {
		if ((n = read(fd, buf + len, sizeof(buf) - len)) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("%s %s", what, path);
			goto done;
		}
		if (n == 0)
			break;
		len += n;
	}
	/* for a reload with nothing changed: the bytes, as read */
	confsame_parent_read(path, buf, len);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	if (!apikey_valid(buf, len)) {
		log_warnx("%s %s: the key must be 1 to %d printable "
		    "characters without spaces, on one line", what, path,
		    ORCHD_API_KEY_MAX);
		goto done;
	}
	if (apikey_strong(buf, len, &why) == -1) {
		log_warnx("%s %s: %s", what, path, why);
		goto done;
	}
	if ((key = malloc(len)) == NULL) {
		log_warn("%s", __func__);
		goto done;
	}
	memcpy(key, buf, len);
	*lenp = len;
 done:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return (key);
}

/*
 * Part of loading a configuration: 0, or -1 (logged) to refuse it.  No
 * key at all is valid: the API then answers 401 to everything but
 * public metrics.
 */
static int	apikey_load_api(struct orchd_conf *);

/*
 * The status page's read-only key ("status key file"), read and checked
 * as the API key is, and never the API key itself: a key that is both
 * would give full rights where read-only ones were meant.
 */
static int
statuskey_load(struct orchd_conf *conf)
{
	if (conf->status_key_file == NULL)
		return (0);
	if ((conf->status_key = apikey_read_file("status key file",
	    conf->status_key_file, &conf->status_key_len)) == NULL)
		return (-1);
	if (conf->api_key != NULL && conf->api_key_len ==
	    conf->status_key_len && ct_memcmp(conf->api_key,
	    conf->status_key, conf->api_key_len) == 0) {
		log_warnx("status key file %s: the same key as the API's",
		    conf->status_key_file);
		return (-1);
	}
	return (0);
}

/*
 * The webhooks' key ("notify key file"), read and checked as the API
 * key is, into the settings notifyd gets; a receiver holds it to check
 * the signatures, so it may be neither of the API's keys.
 */
static int
notifykey_load(struct orchd_conf *conf)
{
	uint8_t		*key;
	size_t		 len;
	const char	*f = conf->notify_key_file;

	if (conf->notify == NULL || conf->notify->ntargets == 0) {
		if (f != NULL)
			log_warnx("notify key file %s: no notify URL", f);
		else if (conf->notify != NULL)
			log_warnx("notify allow: no notify URL");
		return (f != NULL || conf->notify != NULL ? -1 : 0);
	}
	if (f == NULL) {
		log_warnx("notify: no notify key file to sign with");
		return (-1);
	}
	if ((key = apikey_read_file("notify key file", f, &len)) == NULL)
		return (-1);
	if ((conf->api_key != NULL && len == conf->api_key_len &&
	    ct_memcmp(key, conf->api_key, len) == 0) ||
	    (conf->status_key != NULL && len == conf->status_key_len &&
	    ct_memcmp(key, conf->status_key, len) == 0)) {
		log_warnx("notify key file %s: the same key as the API's", f);
		freezero(key, len);
		return (-1);
	}
	if (len > sizeof(conf->notify->key)) {
		freezero(key, len);
		return (-1);
	}
	memcpy(conf->notify->key, key, len);
	conf->notify->keylen = len;
	freezero(key, len);
	return (0);
}

int
apikey_load(struct orchd_conf *conf)
{
	if (apikey_load_api(conf) == -1 || statuskey_load(conf) == -1)
		return (-1);
	return (notifykey_load(conf));
}

static int
apikey_load_api(struct orchd_conf *conf)
{
	const char	*why;
	size_t		 len;

	apikey_take_env();
	conf->api_key_loaded = 1;
	if (apikey_env != NULL) {
		len = strlen(apikey_env);
		if (!apikey_valid((uint8_t *)apikey_env, len)) {
			log_warnx("ORCHD_KEY: the key must be 1 to %d "
			    "printable characters without spaces",
			    ORCHD_API_KEY_MAX);
			return (-1);
		}
		if (apikey_strong((uint8_t *)apikey_env, len, &why) == -1) {
			log_warnx("ORCHD_KEY: %s", why);
			return (-1);
		}
		if ((conf->api_key = malloc(len)) == NULL)
			fatal("%s", __func__);
		memcpy(conf->api_key, apikey_env, len);
		conf->api_key_len = len;
		conf->api_key_set = 1;
		return (0);
	}
	if (conf->api_key_file == NULL)
		return (0);
	if ((conf->api_key = apikey_read_file("api key file",
	    conf->api_key_file, &conf->api_key_len)) == NULL)
		return (-1);
	/* remembered after the key is sent and freed: policy_api_open() */
	conf->api_key_set = 1;
	return (0);
}

/*
 * In the gateway's configuration transaction, once per configuration
 * loaded: the key, or an empty message for none.  Later transactions of
 * the same configuration (the API's changes) send nothing, and the
 * gateway keeps what it has.
 */
void
apikey_send(struct orchd *env)
{
	struct orchd_conf	*conf = env->conf;

	if (!conf->api_key_loaded)
		return;
	if (proc_compose(&env->ps, PROC_GATEWAY, IMSG_CFG_APIKEY, 0, -1,
	    conf->api_key, conf->api_key_len) == -1)
		fatal("%s: compose", __func__);
	/* the status page's read-only key: the same message, peerid 1 */
	if (proc_compose(&env->ps, PROC_GATEWAY, IMSG_CFG_APIKEY,
	    APIKEY_STATUS, -1, conf->status_key, conf->status_key_len) == -1)
		fatal("%s: compose", __func__);
	freezero(conf->status_key, conf->status_key_len);
	conf->status_key = NULL;
	conf->status_key_len = 0;
	freezero(conf->api_key, conf->api_key_len);
	conf->api_key = NULL;
	conf->api_key_len = 0;
	conf->api_key_loaded = 0;
}
