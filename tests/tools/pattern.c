// SPDX-License-Identifier: GPL-2.0
/*
 * The content of one 512-byte sector as a pure function of
 * (seed, sector, gen), and its decoding when it does not match.
 *
 * Layout, in native (little-endian) 64-bit words:
 *   word 0     sector number
 *   word 1     gen | seed_tag(seed) << 32
 *   word 2..63 splitmix64(key + i * golden), key = f(seed, sector, gen)
 */
#include <stdio.h>
#include <string.h>

#include "iover.h"

#define GOLDEN 0x9e3779b97f4a7c15ull

uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint32_t seed_tag(uint64_t seed)
{
	return (uint32_t)(mix64(seed ^ 0x5eed5eed5eed5eedull) >> 32);
}

static uint64_t sector_key(uint64_t seed, uint64_t sector, uint32_t gen)
{
	return mix64(seed ^ mix64(sector + GOLDEN) ^
		     mix64(((uint64_t)gen << 1) ^ 0x6a09e667f3bcc909ull));
}

static uint64_t header_word(uint64_t seed, uint32_t gen)
{
	return gen | (uint64_t)seed_tag(seed) << 32;
}

void pattern_fill(uint64_t seed, uint64_t sector, uint32_t gen, void *buf)
{
	uint64_t w[SECTOR_WORDS];
	uint64_t key = sector_key(seed, sector, gen);
	unsigned int i;

	w[0] = sector;
	w[1] = header_word(seed, gen);
	for (i = 2; i < SECTOR_WORDS; i++)
		w[i] = mix64(key + i * GOLDEN);
	memcpy(buf, w, SECTOR_SIZE);
}

bool pattern_match(uint64_t seed, uint64_t sector, uint32_t gen,
		   const void *buf)
{
	uint64_t w[SECTOR_WORDS];
	uint64_t key;
	unsigned int i;

	memcpy(w, buf, SECTOR_SIZE);
	if (w[0] != sector || w[1] != header_word(seed, gen))
		return false;
	key = sector_key(seed, sector, gen);
	for (i = 2; i < SECTOR_WORDS; i++)
		if (w[i] != mix64(key + i * GOLDEN))
			return false;
	return true;
}

/* Bytes [from, from + len) of the sector, for byte-granular reads. */
bool pattern_match_part(uint64_t seed, uint64_t sector, uint32_t gen,
			const void *buf, unsigned int from, unsigned int len)
{
	unsigned char want[SECTOR_SIZE];

	if (from == 0 && len == SECTOR_SIZE)
		return pattern_match(seed, sector, gen, buf);
	pattern_fill(seed, sector, gen, want);
	return memcmp(want + from, buf, len) == 0;
}

static bool all_bytes(const unsigned char *p, size_t len, unsigned char c)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != c)
			return false;
	return true;
}

/* Say what a sector that failed to match actually holds. */
void pattern_describe(uint64_t seed, uint64_t sector, const void *buf,
		      char *out, size_t outlen)
{
	uint64_t w[2];
	uint64_t hsect;
	uint32_t hgen, htag;

	if (all_bytes(buf, SECTOR_SIZE, 0)) {
		snprintf(out, outlen, "zeros");
		return;
	}
	if (all_bytes(buf, SECTOR_SIZE, 0xff)) {
		snprintf(out, outlen, "all 0xff");
		return;
	}
	memcpy(w, buf, sizeof(w));
	hsect = w[0];
	hgen = (uint32_t)w[1];
	htag = (uint32_t)(w[1] >> 32);
	if (htag != seed_tag(seed)) {
		snprintf(out, outlen,
			 "not data of this seed (seed tag 0x%08x, not 0x%08x; header sector %llu gen %u)",
			 htag, seed_tag(seed), (unsigned long long)hsect, hgen);
		return;
	}
	if (!pattern_match(seed, hsect, hgen, buf)) {
		snprintf(out, outlen,
			 "damaged data, header says gen %u of sector %llu",
			 hgen, (unsigned long long)hsect);
		return;
	}
	snprintf(out, outlen, "intact gen %u of sector %llu%s", hgen,
		 (unsigned long long)hsect,
		 hsect == sector ? "" : " (misplaced)");
}
