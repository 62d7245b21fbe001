/*
 * Users and groups, as the parent and confd look them up.
 *
 * The normal build asks the name service (nsswitch.conf).  A statically
 * linked orchd (make STATIC=1) cannot: glibc would load the name
 * service's modules, built for the shared libc, and crashes doing so for
 * a name that /etc/passwd does not have.  That build reads /etc/passwd
 * and /etc/group itself, as OpenBSD's daemons see users, and its manual
 * says so.
 */

#include <sys/types.h>

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "users.h"

#ifndef ORCHD_STATIC

struct passwd *
users_getpwnam(const char *name)
{
	return (getpwnam(name));
}

/*
 * Before the parent's filter: a name and an id that no database has,
 * looked up in each, so that glibc loads every module nsswitch.conf
 * names now.  One loaded later (libnss_systemd for a uid not in
 * /etc/passwd) would map code, which the filter forbids.
 */
void
users_preload(void)
{
	gid_t	 groups[1];
	int	 n = 1;

	(void)getpwnam("orchd-nss-preload");
	(void)getpwuid((uid_t)-2);
	(void)getgrnam("orchd-nss-preload");
	(void)getgrgid((gid_t)-2);
	(void)getgrouplist("orchd-nss-preload", (gid_t)-2, groups, &n);
	endpwent();
	endgrent();
}

struct passwd *
users_getpwuid(uid_t uid)
{
	return (getpwuid(uid));
}

struct group *
users_getgrnam(const char *name)
{
	return (getgrnam(name));
}

struct group *
users_getgrgid(gid_t gid)
{
	return (getgrgid(gid));
}

int
users_getgrouplist(const char *user, gid_t gid, gid_t *groups, int *ngroups)
{
	return (getgrouplist(user, gid, groups, ngroups));
}

#else /* ORCHD_STATIC */

#define USERS_PASSWD	"/etc/passwd"
#define USERS_GROUP	"/etc/group"

/* by name, or by uid when name is NULL; fgetpwent's storage is static */
static struct passwd *
users_scan(const char *name, uid_t uid)
{
	struct passwd	*pw;
	FILE		*fp;

	if ((fp = fopen(USERS_PASSWD, "re")) == NULL)
		return (NULL);
	while ((pw = fgetpwent(fp)) != NULL)
		if (name != NULL ? strcmp(pw->pw_name, name) == 0 :
		    pw->pw_uid == uid)
			break;
	fclose(fp);
	return (pw);
}

struct passwd *
users_getpwnam(const char *name)
{
	return (users_scan(name, 0));
}

struct passwd *
users_getpwuid(uid_t uid)
{
	return (users_scan(NULL, uid));
}

/* by name, or by gid when name is NULL */
static struct group *
users_scan_group(const char *name, gid_t gid)
{
	struct group	*gr;
	FILE		*fp;

	if ((fp = fopen(USERS_GROUP, "re")) == NULL)
		return (NULL);
	while ((gr = fgetgrent(fp)) != NULL)
		if (name != NULL ? strcmp(gr->gr_name, name) == 0 :
		    gr->gr_gid == gid)
			break;
	fclose(fp);
	return (gr);
}

struct group *
users_getgrnam(const char *name)
{
	return (users_scan_group(name, 0));
}

struct group *
users_getgrgid(gid_t gid)
{
	return (users_scan_group(NULL, gid));
}

static int
users_member(const struct group *gr, const char *user)
{
	char	**m;

	for (m = gr->gr_mem; m != NULL && *m != NULL; m++)
		if (strcmp(*m, user) == 0)
			return (1);
	return (0);
}

/* getgrouplist(3): gid first, then each group listing user, once */
int
users_getgrouplist(const char *user, gid_t gid, gid_t *groups, int *ngroups)
{
	struct group	*gr;
	FILE		*fp;
	int		 n = 0, i, max = *ngroups;

	if (max > 0)
		groups[n] = gid;
	n++;
	if ((fp = fopen(USERS_GROUP, "re")) != NULL) {
		while ((gr = fgetgrent(fp)) != NULL) {
			if (!users_member(gr, user))
				continue;
			for (i = 0; i < n && i < max; i++)
				if (groups[i] == gr->gr_gid)
					break;
			if (i < n && i < max)
				continue;
			if (n < max)
				groups[n] = gr->gr_gid;
			n++;
		}
		fclose(fp);
	}
	*ngroups = n;
	return (n > max ? -1 : n);
}

/* the files are read at each lookup: no module to load */
void
users_preload(void)
{
}

#endif /* ORCHD_STATIC */

/* for the configuration's checks of users (parse_user_lookup) */
int
users_lookup(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd	*pw;

	if ((pw = users_getpwnam(name)) == NULL)
		return (-1);
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return (0);
}
