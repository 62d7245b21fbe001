/*
 * SipHash-2-4 (common/siphash.c): a keyed 64-bit digest that whoever
 * does not know the key cannot make two inputs collide in.
 */

#ifndef ORCHD_SIPHASH_H
#define ORCHD_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define SIPHASH_KEY_LEN	16

uint64_t	 siphash24(const uint8_t [SIPHASH_KEY_LEN], const void *, size_t);

#endif /* ORCHD_SIPHASH_H */
