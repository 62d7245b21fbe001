/*
 * RFC 7396 JSON merge patch, for PATCH /v1/workloads/{id}.
 */

#ifndef ORCHD_MERGE_H
#define ORCHD_MERGE_H

#include <jansson.h>

/* a patch nested deeper than this is refused: NULL, as out of memory */
#define MERGE_DEPTH_MAX		32

json_t	*json_merge_patch(const json_t *, const json_t *);

#endif /* ORCHD_MERGE_H */
