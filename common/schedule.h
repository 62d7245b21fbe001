/*
 * Warm windows and scheduled wakes (common/sched.c, common/sched_wl.c): their text parsed
 * and checked, time zones read from the system's tzdata as the POSIX
 * rule its files end with, and the next window or wake computed from a
 * clock the tests may shift.
 */

#ifndef ORCHD_SCHEDULE_H
#define ORCHD_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define SCHED_MAX	16	/* windows, and wakes, of one workload */
#define SCHED_TEXT_MAX	128	/* the text of one */
#define SCHED_ZONE_MAX	64	/* a zone's name */
#define SCHED_RULE_MAX	64	/* a zone's POSIX rule */
#define SCHED_HOLD_MAX	(7 * 24 * 3600)	/* wake at ... for at most */
#define SCHED_ZONEINFO	"/usr/share/zoneinfo"
#define SCHED_LOCALTIME	"/etc/localtime"

/* a date of a POSIX TZ rule: Mm.w.d, Jn or n, and a time of that day */
struct sched_tzdate {
	char		 kind;		/* 'M', 'J' or 'n' */
	int		 m, w, d;	/* Mm.w.d */
	int		 n;		/* Jn, n */
	int32_t		 secs;		/* local time of the change */
};

/* a zone's rule: "CET-1CEST,M3.5.0,M10.5.0/3" */
struct sched_tz {
	int32_t			 std_off;	/* seconds east of UTC */
	int32_t			 dst_off;
	int			 has_dst;
	struct sched_tzdate	 start, end;
};

enum sched_kind {
	SCHED_WINDOW,		/* keep warm during */
	SCHED_WAKE		/* wake at */
};

struct sched_spec {
	enum sched_kind	 kind;
	uint8_t		 wdays;		/* bit 0 sunday ... bit 6 saturday */
	/* a window: minutes of the day; end <= start ends the next day */
	int		 from, to;
	/* a wake: the sets of a cron line */
	uint64_t	 minutes;
	uint32_t	 hours;
	uint32_t	 mdays;		/* bit 1 to 31 */
	uint16_t	 months;	/* bit 1 to 12 */
	int		 mday_any, wday_any;
	int64_t		 hold;		/* wake at ... for; 0: none */
	char		 zone[SCHED_ZONE_MAX]; /* "": the host's */
};

int	 sched_parse(enum sched_kind, const char *, struct sched_spec *,
	    char *, size_t);
int	 sched_zone_valid(const char *);
int	 sched_zone_rule(const char *, char *, size_t, char *, size_t);
int	 sched_tz_parse(const char *, struct sched_tz *);
int32_t	 sched_tz_offset(const struct sched_tz *, time_t);
time_t	 sched_tz_utc(const struct sched_tz *, time_t);
int	 sched_next(const struct sched_spec *, const struct sched_tz *,
	    time_t, time_t *, time_t *);
int	 sched_text_next(enum sched_kind, const char *, time_t, time_t *,
	    time_t *);
int	 sched_clock_init(const char *, char *, size_t);
time_t	 sched_now(void);

/* common/sched_wl.c: a workload's schedules and its zones' rules */
struct workload_conf;
int	 sched_zones_check(const struct workload_conf *, char *, size_t);
int	 sched_zones_fill(struct workload_conf *, char *, size_t);
int	 sched_zone_find(const struct workload_conf *, const char *,
	    struct sched_tz *);

/* a workload's schedules parsed once (sched_wl.c): its own, its group's */
#define SCHED_PLAN_MAX	(4 * SCHED_MAX)
struct sched_item {
	struct sched_spec	 sp;		/* its kind too */
	struct sched_tz		 tz;		/* its zone's rule */
	int			 group;		/* its group's */
	char			 text[SCHED_TEXT_MAX];
};
struct sched_plan {
	size_t			 n, max;
	struct sched_item	 item[];	/* max of them, n used */
};
int	 sched_plan_build(const struct workload_conf *, struct sched_plan **);
void	 sched_plan_free(struct sched_plan *);
int	 sched_plan_next(const struct sched_plan *, enum sched_kind, int,
	    time_t, time_t *, time_t *, const char **, int64_t *);
struct strlist;
int	 sched_group_line(const char *, char *, size_t, enum sched_kind *,
	    const char **);
int	 sched_group_fill(struct workload_conf *, const struct strlist *);

#endif /* ORCHD_SCHEDULE_H */
