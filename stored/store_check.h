/*
 * "checking" for show workloads until runtimed has told each workload's
 * state after a start (store_check.c).
 */

#ifndef STORE_CHECK_H
#define STORE_CHECK_H

struct cfg_generation;
struct ctl_workload;

void	store_check_begin(const struct cfg_generation *);
void	store_check_told(const char *);
void	store_check_overlay(struct ctl_workload *);

#endif /* STORE_CHECK_H */
