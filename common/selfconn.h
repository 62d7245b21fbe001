/*
 * A TCP connect that reached itself (selfconn.c).
 */

#ifndef SELFCONN_H
#define SELFCONN_H

struct sockaddr;

int	 sock_self(int, const struct sockaddr *);

#endif /* SELFCONN_H */
