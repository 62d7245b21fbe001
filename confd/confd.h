/*
 * confd's own: its socket to the parent (confd.c), what it sends on it
 * (send.c), and the parser and printer it runs.
 */

#ifndef ORCHD_CONFD_H
#define ORCHD_CONFD_H

#include <sys/types.h>

#include <glob.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"

#include <stdio.h>

void	confd_send(uint32_t, const void *, size_t);
void	confd_flush(void);
void	confd_send_conf(const struct orchd_conf *);

/* what the parse read, for a reload with nothing changed (inputs.c) */
struct conf_digest;
struct conf_input;
struct htfile;
void	inputs_key(const struct conf_digest *);
void	inputs_take(const struct conf_input *);
void	inputs_mix(int32_t, int32_t, const char *, const void *, size_t);
void	inputs_prelude_done(void);
int	inputs_fd_read(int, uint8_t **, size_t *);
int	inputs_glob(const char *, const glob_t *);
void	inputs_htfile(const struct htfile *);
int	inputs_same(void);
void	inputs_result(struct conf_digest *);
void	inputs_record(size_t, struct conf_input *);
void	confd_send_inputs(void);	/* send.c */

/* the parser's entry points (parse_conf.c, parse_input.c), the printer */
struct orchd_conf	*parse_config(const char *, int);
int			 cmdline_symset(const char *);
int			 print_config(FILE *, const struct orchd_conf *);
void			 print_limits(FILE *, const struct orchd_conf *); /* parse_limits.c */
/* set by confd: 0 and the ids, or -1 */
extern int		(*parse_user_lookup)(const char *, uid_t *, gid_t *);
extern int		 parse_host_checks;

#endif /* ORCHD_CONFD_H */
