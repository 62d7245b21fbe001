/*
 * Opening the store's database file: checked before anything is
 * written (store_open.c).  Errors are said without the file's name.
 */

#ifndef ORCHD_STORE_OPEN_H
#define ORCHD_STORE_OPEN_H

#include <stddef.h>

#include <sqlite3.h>

int	store_open_sqlite(const char *, sqlite3 **, char *, size_t);
/* "what: sqlite's message (the system's)" */
void	store_open_error(sqlite3 *, int, const char *, char *, size_t);

#endif
