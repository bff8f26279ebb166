// SPDX-License-Identifier: GPL-2.0
/*
 * The content of one 512-byte sector as a pure function of
 * (seed, sector, gen), and its decoding when it does not match.
 *
 * Layout, in native (little-endian) 64-bit words:
 *   word 0     sector number
 *   word 1     gen | seed_tag(seed) << 32
 *   word 2..63 stream_word(key, i), key = mix64 of (seed, sector, gen)
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

/*
 * The stream: a bijective xor-multiply-xor of key + i * golden, so words
 * differ between any two keys and positions; 2.5x cheaper than mix64,
 * which matters under TCG.
 */
static inline uint64_t stream_word(uint64_t key, unsigned int i)
{
	uint64_t x = key + i * GOLDEN;

	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ull;
	x ^= x >> 32;
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
		w[i] = stream_word(key, i);
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
		if (w[i] != stream_word(key, i))
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

/* Words 2..63 alone: finds the gen of a sector whose header was hit. */
static bool body_match(uint64_t seed, uint64_t sector, uint32_t gen,
		       const uint64_t *w)
{
	uint64_t key = sector_key(seed, sector, gen);
	unsigned int i;

	for (i = 2; i < SECTOR_WORDS; i++)
		if (w[i] != stream_word(key, i))
			return false;
	return true;
}

#define GEN_SEARCH 4096	/* gens either side of the expected one */

static uint32_t body_search(uint64_t seed, uint64_t sector, uint32_t want,
			    const uint64_t *w)
{
	uint32_t g = want > GEN_SEARCH ? want - GEN_SEARCH : 1;

	for (; g <= want + GEN_SEARCH; g++)
		if (body_match(seed, sector, g, w))
			return g;
	return 0;
}

/* How far a damaged sector is from gen want. */
static void describe_damage(uint64_t seed, uint64_t sector, uint32_t want,
			    const void *buf, char *out, size_t outlen)
{
	unsigned char exp[SECTOR_SIZE];
	const unsigned char *p = buf;
	unsigned int i, first = 0, ndiff = 0;
	uint64_t w[SECTOR_WORDS];
	uint32_t g;

	memcpy(w, buf, SECTOR_SIZE);
	g = want ? body_search(seed, sector, want, w) : 0;
	if (g) {
		snprintf(out, outlen, "body is gen %u", g);
		return;
	}
	if (!want) {
		snprintf(out, outlen, "no gen near");
		return;
	}
	pattern_fill(seed, sector, want, exp);
	for (i = 0; i < SECTOR_SIZE; i++) {
		if (p[i] == exp[i])
			continue;
		if (!ndiff++)
			first = i;
	}
	snprintf(out, outlen, "%u of 512 bytes differ from gen %u, first at +%u",
		 ndiff, want, first);
}

/*
 * Say what a sector that does not hold gen want actually holds: zeros,
 * another seed's data, another gen or sector intact, or damage measured
 * against want (0: unknown).
 */
void pattern_describe(uint64_t seed, uint64_t sector, uint32_t want,
		      const void *buf, char *out, size_t outlen)
{
	uint64_t w[2];
	uint64_t hsect;
	uint32_t hgen, htag;
	char dmg[96];

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
		describe_damage(seed, sector, want, buf, dmg, sizeof(dmg));
		snprintf(out, outlen,
			 "not data of this seed (seed tag 0x%08x, not 0x%08x; header sector %llu gen %u; %s)",
			 htag, seed_tag(seed), (unsigned long long)hsect, hgen,
			 dmg);
		return;
	}
	if (!pattern_match(seed, hsect, hgen, buf)) {
		/* Measure against the gen the header names when it is ours. */
		describe_damage(seed, sector, hsect == sector ? hgen : want,
				buf, dmg, sizeof(dmg));
		snprintf(out, outlen,
			 "damaged data, header says gen %u of sector %llu; %s",
			 hgen, (unsigned long long)hsect, dmg);
		return;
	}
	snprintf(out, outlen, "intact gen %u of sector %llu%s", hgen,
		 (unsigned long long)hsect,
		 hsect == sector ? "" : " (misplaced)");
}
