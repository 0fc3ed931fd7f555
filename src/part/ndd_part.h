/* ndd_part.h - how work is divided between ranks: input shards by bytes,
 * owners of global document numbers, the resume split of checkpointed
 * shards, and the placement of perhaps-similar sets (hash for small sets,
 * LPT for big ones). Pure functions of their arguments: the same on every
 * rank. Local. */
#ifndef NDD_PART_H
#define NDD_PART_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_reader.h"

/* A piece of one input: bytes [lo, hi) of a splittable file, or the whole
 * file (lo = 0, hi = UINT64_MAX). */
typedef struct ndd_piece {
    const ndd_input_t *in;
    uint64_t lo, hi;
} ndd_piece_t;

/* The pieces task `me` of `ntasks` reads: the concatenated byte stream of all
 * inputs is cut into ntasks equal ranges (floor(total * t / ntasks)); a
 * splittable file is cut at range borders (the reader takes the records
 * starting in its range), any other file goes whole to the task whose range
 * holds its first byte. *out is allocated (caller frees). NDD_ERR_INVAL unless
 * 0 <= me < ntasks. */
int ndd_part_plan(const ndd_input_t *in, size_t nin, int ntasks, int me, ndd_piece_t **out, size_t *nout);
/* Bytes of a piece. */
uint64_t ndd_piece_bytes(const ndd_piece_t *p);

/* Owner rank of global item g given starts[P+1] (every rank's first item and
 * the total): the rank r with starts[r] <= g < starts[r+1] (ranks holding
 * nothing are skipped). */
int ndd_part_owner_of(const uint64_t *starts, int P, uint64_t g);

/* Consecutive ranges of about equal weight: the buckets w[0..nb) are split
 * into P ranges, rank q taking [first[q], first[q+1]) (first has P+1
 * entries; first[0] = 0, first[P] = nb). first[q] for 0 < q < P is the
 * smallest b whose prefix weight w[0] + ... + w[b-1] reaches q/P of the
 * total (ranges may be empty: one heavy bucket is never split). */
void ndd_part_balance(const uint64_t *w, size_t nb, int P, size_t *first);
/* The rank whose range of ndd_part_balance holds bucket b. */
int ndd_part_balance_owner(const size_t *first, int P, size_t b);

/* The contiguous share [*lo, *hi) of total items that rank me of P takes
 * (floor(total * me / P) .. floor(total * (me+1) / P)). */
void ndd_part_share(uint64_t total, int P, int me, uint64_t *lo, uint64_t *hi);
/* The same with the items from heavy on weighing w each (the others 1):
 * rank me's first item is the smallest b whose prefix weight reaches
 * floor(W me / P), W the total weight (w = 1: ndd_part_share's shares).
 * NDD_ERR_INVAL for P < 1, me outside [0, P), w = 0, heavy > total or a
 * total weight past 2^64. */
int ndd_part_share_weighted(uint64_t total, uint64_t heavy, unsigned w, int P, int me, uint64_t *lo, uint64_t *hi);

/* Destination of a small set: XXH3 of its label mod P. */
uint32_t ndd_part_hash_dest(uint64_t label, int P);

typedef struct ndd_setsize {
    uint64_t label, size;
} ndd_setsize_t;

/* LPT placement of big sets: sorts sets by (size desc, label asc), then puts
 * each on the least loaded rank (ties: the lowest rank; load = start[rank]
 * (the load a rank has already: the small sets hashed to it; NULL: none)
 * plus the sizes placed on it). On return dest[i] is the rank of sets[i] in
 * the sorted order. */
void ndd_part_lpt(ndd_setsize_t *sets, size_t n, int P, const uint64_t *start, uint32_t *dest);

#endif
