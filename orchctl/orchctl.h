/*
 * orchctl: what its files share.  The output layer is a small vtable, as
 * bgpctl's: one printer per reply kind, a text and a JSON instance.
 */

#ifndef ORCHCTL_H
#define ORCHCTL_H

#include <stddef.h>

#include "compat.h"
#include "msg.h"
#include "parser.h"

struct output {
	/* before the first reply item, or before tail if there is none */
	void	(*head)(const struct parse_result *);
	void	(*summary)(const struct ctl_summary *);
	/* the store's held writes, after the summary's items */
	void	(*store_queue)(const struct st_queue_stats *);
	/* the access log's lines the parent holds, from the first gateway */
	void	(*alog_queue)(const struct alog_queue_stats *);
	/* show stats: runtimed's memory budget, beside the store's items */
	void	(*budget)(const struct rt_budget *);
	void	(*workload)(const struct parse_result *,
		    const struct ctl_workload *);
	void	(*transition)(const struct parse_result *,
		    const struct ctl_transition *);
	void	(*stats)(const struct parse_result *,
		    const struct ctl_stats *);
	/* show workload: the definition's JSON, env values left out */
	void	(*definition)(const struct parse_result *, const char *,
		    size_t);
	/* reload: what orchd found, before its OK or FAIL */
	void	(*reload)(const struct ctl_reload *);
	/* pull: how it goes, before its OK or FAIL */
	void	(*pull)(const struct parse_result *,
		    const struct ctl_pull *);
	/* show certificates: one host */
	void	(*certificate)(const struct acme_status *);
	/* IMSG_CTL_OK */
	void	(*result)(const struct parse_result *);
	/* the END of the whole reply */
	void	(*tail)(const struct parse_result *);
};

/* orchctl.c */
int	 ctl_connect(const char *);
int	 own_options(const char *);
void	 ctl_names(const char *, const char *, const struct output *, int);

/* complete.c */
__dead void complete_main(int, char *[]);
extern const struct output	 quiet_output;
extern const struct output	 names_output;

/* output.c */
extern const struct output	 show_output;
extern const struct output	 json_output;
void	 str_printable(char *, size_t);

#endif /* ORCHCTL_H */
