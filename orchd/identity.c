/*
 * Workload identities: the uid, and the gid of the same number, of each
 * process workload that names no user, and of each container of the API
 * (identity_run_uid).  The parent allocates them from
 * "workload uids", so that no workload runs as a daemon or shares a uid
 * with another, and the store remembers them, so that a workload keeps
 * its uid, and with it the files it made, across restarts.  An uid is
 * never taken back from its name: a workload removed and added again
 * finds its state directory as it left it, and no other workload ever
 * inherits what a uid owns.
 *
 * The table is read from the store at start, before the first
 * configuration is sent (IMSG_ST_UID_LOAD goes ahead of IMSG_API_LOAD on the
 * same channel, and the parent waits for the API's answer).  The store is
 * a less trusted child: every uid it hands back is checked here, and one
 * that fails is logged and ignored, the workload getting a fresh uid at
 * its next start.  A store that has not answered yet is not waited for:
 * the uid is allocated and recorded all the same.
 */

#include <sys/types.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "imsg.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "proc.h"
#include "units.h"
#include "workload.h"

#define IDENT_MAX	(1024 * 1024)	/* names, whatever the store says */

struct ident {
	char	 name[ORCHD_NAME_MAX];
	uid_t	 uid;
};

static struct ident	*idents;
static size_t		 nidents, sidents;
static int		 ident_loading;		/* the store's answer is due */

static struct ident *
ident_by_name(const char *name)
{
	size_t	 i;

	for (i = 0; i < nidents; i++)
		if (strcmp(idents[i].name, name) == 0)
			return (&idents[i]);
	return (NULL);
}

static struct ident *
ident_by_uid(uid_t uid)
{
	size_t	 i;

	for (i = 0; i < nidents; i++)
		if (idents[i].uid == uid)
			return (&idents[i]);
	return (NULL);
}

/*
 * May uid be a workload's?  In the range, neither root's nor the
 * daemons' uid or gid, and nobody's in the passwd or group database (a
 * user or group made since it was allocated takes it back).  NULL, or
 * why not.
 */
static const char *
ident_unfit(struct orchd *env, uint32_t uid)
{
	const struct orchd_conf	*conf = env->conf;

	if (uid < conf->wl_uid_low || uid > conf->wl_uid_high)
		return ("outside workload uids");
	if (uid == 0 || uid == (uint32_t)-1)
		return ("root's");
	if (uid == env->uid || uid == env->gid)
		return ("the daemons'");
	if (users_getpwuid(uid) != NULL)
		return ("a user's");
	if (users_getgrgid(uid) != NULL)
		return ("a group's");
	return (NULL);
}

static int
ident_add(const char *name, uid_t uid)
{
	struct ident	*n;
	size_t		 size;

	if (nidents == sidents) {
		if (sidents >= IDENT_MAX)
			return (-1);
		size = sidents == 0 ? 64 : sidents * 2;
		if ((n = reallocarray(idents, size, sizeof(*n))) == NULL)
			return (-1);
		idents = n;
		sidents = size;
	}
	strlcpy(idents[nidents].name, name, sizeof(idents[nidents].name));
	idents[nidents].uid = uid;
	nidents++;
	return (0);
}

/* as root or not: the API's containers run as theirs either way */
void
identity_load_start(struct orchd *env)
{
	if (proc_compose(&env->ps, PROC_STORE, IMSG_ST_UID_LOAD, 0, -1, NULL,
	    0) == -1)
		fatal("%s: compose", __func__);
	ident_loading = 1;
}

/* one the store remembers: taken only if it is still fit and free */
void
identity_recv_entry(struct imsgev *iev, struct imsg *imsg)
{
	struct orchd	*env = orchd_env;
	struct wl_uid	 wu;
	struct ident	*id;
	const char	*why;

	(void)imsg_get_data(imsg, &wu, sizeof(wu));
	if (!valid_workload_name(wu.name)) {
		log_warnx("the store gives uid %u to an invalid workload "
		    "name: ignored", wu.uid);
		return;
	}
	if ((id = ident_by_name(wu.name)) != NULL) {
		/* allocated here before the store answered: ours stands */
		if (id->uid != wu.uid)
			log_debug("workload %s: uid %u, not %u as stored",
			    wu.name, (unsigned)id->uid, wu.uid);
		return;
	}
	why = ident_unfit(env, wu.uid);
	if (why == NULL && (id = ident_by_uid(wu.uid)) != NULL)
		why = "given to another workload";
	if (why != NULL) {
		log_warnx("workload %s: stored uid %u is %s: ignored, it "
		    "gets a new one", wu.name, wu.uid, why);
		return;
	}
	if (ident_add(wu.name, wu.uid) == -1)
		log_warnx("workload %s: uid %u not loaded: too many",
		    wu.name, wu.uid);
}

void
identity_recv_load_end(struct imsgev *iev, struct imsg *imsg)
{
	if (!ident_loading)
		return;
	ident_loading = 0;
	log_debug("%zu workload uids loaded", nidents);
}

/* the lowest uid of the range that is fit and nobody's */
static int
ident_allocate(struct orchd *env, uid_t *uidp)
{
	int64_t	 u;

	for (u = env->conf->wl_uid_low; u <= env->conf->wl_uid_high; u++) {
		if (ident_by_uid((uid_t)u) != NULL ||
		    ident_unfit(env, (uint32_t)u) != NULL)
			continue;
		*uidp = (uid_t)u;
		return (0);
	}
	return (-1);
}

static void
ident_record(struct orchd *env, const char *name, uid_t uid)
{
	struct wl_uid	 wu;

	memset(&wu, 0, sizeof(wu));
	strlcpy(wu.name, name, sizeof(wu.name));
	wu.uid = uid;
	if (proc_compose(&env->ps, PROC_STORE, IMSG_ST_UID_PUT, 0, -1, &wu,
	    sizeof(wu)) == -1)
		log_warn("workload %s: uid %u to the store", name,
		    (unsigned)uid);
}

/*
 * The uid of workload name, allocated (and recorded) if it has none or
 * the one it had is no longer fit: the range changed, or a user or group
 * took that number.  0, or -1 with msg.
 */
int
identity_get(struct orchd *env, const char *name, uid_t *uidp, char *msg,
    size_t len)
{
	struct ident	*id;
	const char	*why;
	uid_t		 uid;

	if ((id = ident_by_name(name)) != NULL) {
		if ((why = ident_unfit(env, id->uid)) == NULL) {
			*uidp = id->uid;
			return (0);
		}
		log_warnx("workload %s: uid %u is now %s: it gets a new one",
		    name, (unsigned)id->uid, why);
	}
	if (ident_allocate(env, &uid) == -1) {
		snprintf(msg, len, "no free uid in workload uids %lld-%lld",
		    (long long)env->conf->wl_uid_low,
		    (long long)env->conf->wl_uid_high);
		return (-1);
	}
	if (id != NULL)
		id->uid = uid;
	else if (ident_add(name, uid) == -1) {
		snprintf(msg, len, "too many workload uids");
		return (-1);
	}
	if (ident_loading)
		log_info("workload %s: the store has not listed the uids "
		    "yet: allocating one", name);
	log_info("workload %s: uid %u allocated", name, (unsigned)uid);
	ident_record(env, name, uid);
	*uidp = uid;
	return (0);
}

/*
 * The uid and gid an API container runs as, which the parent puts in the
 * definition it sends its children (config_send), never in its own or
 * the store's: the workload's own from "workload uids", the one a
 * process workload of that name would have, whatever its image says.
 * orchd.conf alone decides otherwise: "api allow root" leaves it to the
 * image.  -1 for none: not the API's, not a container, or allowed root.
 * A range with no uid free left is logged, and the container runs as
 * ORCHD_UID_NOBODY, which no file and no daemon has: never as root.
 */
int64_t
identity_run_uid(struct orchd *env, const struct workload_conf *wl)
{
	char	 msg[128];
	uid_t	 uid;

	if (wl->source != SOURCE_API || wl->driver != DRIVER_DOCKER ||
	    wl->user != NULL || env->conf->api_allow_root)
		return (-1);
	if (identity_get(env, wl->name, &uid, msg, sizeof(msg)) == -1) {
		log_warnx("workload %s: %s: its container runs as uid %u",
		    wl->name, msg, ORCHD_UID_NOBODY);
		return (ORCHD_UID_NOBODY);
	}
	return (uid);
}

/* the uid name has, if it has one: nothing is allocated (owner.c) */
int
identity_find(const char *name, uid_t *uidp)
{
	struct ident	*id;

	if ((id = ident_by_name(name)) == NULL)
		return (-1);
	*uidp = id->uid;
	return (0);
}
