/*
 * Users and groups as orchd looks them up (common/users.c): the name
 * service, or /etc/passwd and /etc/group in a static build.  The parent
 * and confd use them; the other children get numbers on their command
 * line.
 */

#ifndef ORCHD_USERS_H
#define ORCHD_USERS_H

#include <sys/types.h>

#include <grp.h>
#include <pwd.h>

struct passwd	*users_getpwnam(const char *);
struct passwd	*users_getpwuid(uid_t);
struct group	*users_getgrnam(const char *);
struct group	*users_getgrgid(gid_t);
int		 users_lookup(const char *, uid_t *, gid_t *);
int		 users_getgrouplist(const char *, gid_t, gid_t *, int *);
void		 users_preload(void);

#endif /* ORCHD_USERS_H */
