/*
 * orchd's version: this line alone.  orchd -V, orchctl -V, orchctl show
 * version and the orchd_build_info metric say it; CHANGELOG tells what
 * each one brought.
 */

#ifndef ORCHD_VERSION_H
#define ORCHD_VERSION_H

#define ORCHD_VERSION		"0.9.0"

#endif /* ORCHD_VERSION_H */
