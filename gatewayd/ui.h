/*
 * The status page's assets, compiled in: tools/uiassets.sh makes
 * build/obj/gatewayd/ui_assets.c from every file under ui/.
 */

#ifndef ORCHD_GATEWAY_UI_H
#define ORCHD_GATEWAY_UI_H

#include <stddef.h>

struct ui_asset {
	const char		*name;		/* under ui/ */
	const char		*served;	/* NAME.HASH.EXT; index.html */
	const char		*ctype;
	const char		*hash;		/* of what is served */
	const unsigned char	*data;
	size_t			 len;
};

extern const struct ui_asset	ui_assets[];
extern const size_t		ui_nassets;

#endif /* ORCHD_GATEWAY_UI_H */
