/* ndd_verify.h - the trustable-LCS verifier of paper 002: filtered sketches
 * (Rabin-Karp windows), Myers O(ND) LCS + shortest edit script with a cost
 * limit, the edit-operation curve, the trustable region (continuity,
 * centricity, extensity) and its iterative variant, resemblance/containment.
 * Plain C11, no MPI, no printing. Algorithm and formulas: docs/verify.md. */
#ifndef NDD_VERIFY_H
#define NDD_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"

/* ===================================================================== */
/* Filtered sketches (paper 002, section 3.3)                            */
/* ===================================================================== */

#define NDD_SKETCH_DEFAULT_WINDOW 16

/* A run of kept bytes: sketch bytes [sk, sk+len) are document bytes [pos, pos+len). */
typedef struct ndd_sketch_run {
    size_t sk;
    size_t pos;
    size_t len;
} ndd_sketch_run_t;

/* Read-only view of one sketch held by a sketch workspace. */
typedef struct ndd_sketch_view {
    const char *bytes;            /* the kept bytes, concatenated */
    size_t len;
    const ndd_sketch_run_t *runs; /* maximal runs, increasing in sk and pos */
    size_t nruns;
} ndd_sketch_view_t;

typedef struct ndd_sketch_ws ndd_sketch_ws_t;

int ndd_sketch_ws_create(ndd_sketch_ws_t **ws);
void ndd_sketch_ws_free(ndd_sketch_ws_t *ws);

/* Computes both filtered sketches: a byte of A is kept iff it lies in some
 * window of `window` bytes of A whose content also occurs as a window of B,
 * and vice versa. Window matches are found with a rolling Rabin-Karp
 * fingerprint (mod 2^64) in a chained hash table and confirmed with a byte
 * comparison, so there are no false matches. O(na + nb) time and space.
 * Documents shorter than `window` give empty sketches. */
int ndd_sketch_filter(ndd_sketch_ws_t *ws, const void *a, size_t na, const void *b, size_t nb,
                      size_t window);
/* which = 0: sketch of A, 1: sketch of B (valid until the next filter call). */
void ndd_sketch_get(const ndd_sketch_ws_t *ws, int which, ndd_sketch_view_t *v);

/* ---- anchors: an upper bound of both sketch lengths, per pair in time
 * proportional to the anchors (about a fifth of the bytes), from data made
 * once per document (ndd's addition; verify_anchor.c has the proof) ----
 * A document's anchors are its winnowed k-grams: in every run of w = S-k+1
 * consecutive k-grams the rightmost one of least hash (k = 8, w = 9 for
 * S = 16; ndd_anchor_shape). */
/* ndd_anchors_likely_close's sample: the distinct hashes below this (a 64th
 * of the range, about a 14th of the anchors' hashes: each is the least of w) */
#define NDD_ANCHOR_SAMPLE_CUT (1u << 26)
/* The anchor bound's two merges at once: the distinct hashes below this
 * and the others. 0.113 of the range: the median of the anchors' hashes
 * over 10 KB Reuters texts (each is the least of w: they crowd the low
 * values; the median of a text's own 0.098-0.126) */
#define NDD_ANCHOR_SPLIT 0x1CE00000u
typedef struct ndd_anchors {
    void *v;        /* the anchors by hash, then position (n of them): uint64_t hash << 32 | position;
                     * v_narrow (len <= 65,536): uint32_t (hash >> (bidx_shift - 16) & 0xffff) << 16 |
                     * position, increasing within each bucket (hashes that share those bits: one key) */
    unsigned v_narrow;
    uint32_t *h;    /* the distinct hashes, increasing (nh of them; the first ns below NDD_ANCHOR_SAMPLE_CUT) */
    uint32_t *ppos; /* the positions, increasing */
    void *pu;       /* the distinct hash (index into h) of the anchor at ppos[t]: uint16_t entries
                     * (pu_wide = 0: n <= 65,536, so that the bound reads 2 bytes an anchor), else uint32_t */
    unsigned pu_wide;
    uint8_t *gap;   /* per anchor: min(S + w - 1, its gap to the one before) (NULL when that can pass 255) */
    uint32_t *bidx; /* v's entries with hash >> bidx_shift == b start at bidx[b] (2^(32 - shift) + 1 of them) */
    unsigned bidx_shift;
    size_t n, nh, ns, cap, hcap, pcap, ucap, gcap, bidx_cap; /* (cap, ucap: v's and pu's room in bytes) */
    size_t nlo;         /* the distinct hashes below NDD_ANCHOR_SPLIT */
    size_t len, window; /* the text's length and the S they were made for */
    uint8_t *off;       /* window j's anchor is at j + off[j], for j < noff = len - S + 1 */
    size_t noff, off_cap; /* (made when w <= 255, else noff = 0: ndd_sketch_filter_anchored falls back) */
    uint64_t *bits;     /* filter of the anchor hashes: bit h >> bits_shift set for each */
    size_t bits_cap;
    unsigned bits_shift;
} ndd_anchors_t;

void ndd_anchor_shape(size_t window, size_t *k, size_t *w);
/* The distinct hash (index into a->h) of the anchor at a->ppos[t]. */
static inline uint32_t ndd_anchors_pu(const ndd_anchors_t *a, size_t t)
{
    return a->pu_wide ? ((const uint32_t *)a->pu)[t] : ((const uint16_t *)a->pu)[t];
}
/* (Re)makes a's anchors for text[0..n) and sketch window S (a's memory is
 * reused; start from a zeroed struct): 11 bytes per anchor (texts up to
 * 65,536 bytes; 15 up to 65,536 anchors, 17 past) and 4 per distinct hash,
 * a byte per window, the filter's 2-4 and the buckets' 1-2 bytes per
 * anchor: 4.5-4.9 bytes per text byte for S = 16 on Reuters text (0.2
 * anchors a byte). *scratch (*scratch_cap entries) is grown to 2.5 (n - k +
 * 1) entries and may be shared by all documents. */
int ndd_anchors_make(ndd_anchors_t *a, const void *text, size_t n, size_t window, uint64_t **scratch,
                     size_t *scratch_cap);
void ndd_anchors_free(ndd_anchors_t *a); /* frees, zeroes */
/* Brings the arrays a lookup of a's anchors reads (the filter, the buckets,
 * v) into the caches ahead of use, by a load from each of their lines (plain
 * loads: more of them in flight than prefetch instructions got on AMD
 * cores). No effect on any result. */
void ndd_anchors_prefetch(const ndd_anchors_t *a);
/* The same sketches as ndd_sketch_filter (byte for byte, runs included),
 * found without a table of windows: a window is matched by continuing the
 * last match, else through its anchor - an equal window of the other text
 * has the same anchor hash at the same offset, so the other text's anchor
 * list (sorted by hash) gives every candidate, confirmed byte by byte.
 * xa, xb: anchors made for exactly these texts and this window; when they
 * are not (or have no offsets) this is ndd_sketch_filter. Near-duplicates
 * cost about one byte comparison per window. */
int ndd_sketch_filter_anchored(ndd_sketch_ws_t *ws, const void *a, size_t na, const ndd_anchors_t *xa,
                               const void *b, size_t nb, const ndd_anchors_t *xb, size_t window);
/* *ua >= the length of the filtered sketch of A against B (ndd_sketch_filter
 * with the same window), *ub >= that of B: the union of [p - w + 1, p + S)
 * over the anchors p of A whose hash is an anchor hash of B (and vice versa).
 * When *ua < need, *ub is B's length (its union is not made: a caller that
 * stops the pairs whose bound is below need stops this one either way; 0:
 * both always). *mark (*mark_cap entries) is scratch, grown to about one bit
 * per anchor. */
int ndd_anchors_bound(const ndd_anchors_t *a, const ndd_anchors_t *b, uint64_t **mark, size_t *mark_cap,
                      size_t need, size_t *ua, size_t *ub);
/* Are a and b likely close (a near-duplicate pair, which the bound would
 * not stop)? From the distinct anchor hashes below 2^26 (about 130 for
 * 10 KB of text; a->ns): 1 when each side has at least 16 there and
 * 3/4 of the smaller side's are shared. Only an order hint:
 * ndd_tlcs_compare's results never depend on it. */
int ndd_anchors_likely_close(const ndd_anchors_t *a, const ndd_anchors_t *b);

/* ===================================================================== */
/* Myers O(ND) LCS and shortest edit script                              */
/* ===================================================================== */

enum { NDD_EDIT_EQ = 0, NDD_EDIT_DEL = 1, NDD_EDIT_INS = 2 };

/* One run of the edit script, in order along both sequences:
 * EQ : a[a..a+len) == b[b..b+len)
 * DEL: a[a..a+len) is deleted (b = current position in b)
 * INS: b[b..b+len) is inserted before a[a] */
typedef struct ndd_edit {
    int op;
    size_t a;
    size_t b;
    size_t len;
} ndd_edit_t;

typedef struct ndd_myers_out {
    size_t d;         /* size of the shortest edit script (valid when !hit_limit) */
    size_t lcs;       /* (na + nb - d) / 2 when !hit_limit, else a lower bound
                         (common prefix + common suffix) */
    int hit_limit;    /* 1: D > max_d (or the work cap was reached): the run stopped; no script */
} ndd_myers_out_t;

typedef struct ndd_myers_ws ndd_myers_ws_t;

int ndd_myers_ws_create(ndd_myers_ws_t **ws);
void ndd_myers_ws_free(ndd_myers_ws_t *ws);

/* Longest sequence ndd_myers_diff accepts (NDD_ERR_LIMIT beyond). */
#define NDD_MYERS_MAX_LEN ((size_t)INT32_MAX - 2)

/* Linear-space divide-and-conquer Myers (middle snake) on byte sequences.
 * Stops when the shortest edit script is longer than max_d (SIZE_MAX: no D
 * limit; the work cap below still applies) and reports hit_limit = 1: never
 * a non-minimal answer. Memory
 * O(min(D, max_d)) besides the script; no allocation in the inner loop.
 * Returns NDD_OK (also when the limit was hit) or NDD_ERR_*. */
int ndd_myers_diff(ndd_myers_ws_t *ws, const void *a, size_t na, const void *b, size_t nb,
                   size_t max_d, ndd_myers_out_t *out);
/* The edit script of the last successful ndd_myers_diff (runs merged, in order). */
const ndd_edit_t *ndd_myers_script(const ndd_myers_ws_t *ws, size_t *n);
/* The default cost limit for sequences of total length n: the worst-case
 * work of a Myers run is about n * D, for near-duplicates rather D^2, so D
 * is limited to max(NDD_MYERS_WORK / n, NDD_MYERS_MIN_LIMIT), at most n.
 * Independently of max_d, the top-level bisection stops (hit_limit) after
 * NDD_MYERS_MAX_WORK steps: the run is bounded on any input. */
#define NDD_MYERS_WORK ((size_t)1 << 28)
#define NDD_MYERS_MIN_LIMIT ((size_t)1 << 15)
#define NDD_MYERS_MAX_WORK ((uint64_t)1 << 32)
size_t ndd_myers_auto_limit(size_t n);

/* ===================================================================== */
/* Trustable LCS and the verdict                                         */
/* ===================================================================== */

#define NDD_TLCS_MAX_REGIONS 16

typedef struct ndd_tlcs_params {
    size_t window;          /* sketch window S (paper: 16 bytes) */
    double slope;           /* slope threshold of the trustable region (paper: 0.1) */
    double min_resemblance; /* duplicate if resemblance >= this (paper: 0.28) ... */
    double min_containment; /* ... or containment >= this (paper: 0.7) */
    size_t max_d;           /* Myers cost limit per iteration; 0 = ndd_myers_auto_limit */
    unsigned max_iter;      /* iterative TLCS depth (1 = the paper's basic TLCS); <= NDD_TLCS_MAX_REGIONS */
    int exact;              /* 1: no sketch filtering, exact LCS of the byte sequences */
    size_t min_iter_tlcs;   /* iterations after the first stop when their TLCS is shorter */
    unsigned blocks;        /* k blocks for the base regions; 0 = auto (see docs) */
    int reserve;            /* 1: also run the exact TLCS to report the reserve rate */
    /* Added (issue 11): small substitutions. A gap between two consecutive
     * matched pieces that is non-empty in BOTH documents (bytes of A replaced
     * by other bytes of B at the same place: a rotating snippet, a changed
     * name, a typo and the window around it) and at most subst_max bytes long
     * in each is not an edit for the slope; such bytes may make up at most
     * subst_share of a trustable region, and they never count as TLCS. */
    double subst_share;     /* 0 = the paper's curve (every unmatched byte an edit) */
    size_t subst_max;       /* 0 = auto: max(4 * window, |X| / 8), X the curve's document */
} ndd_tlcs_params_t;

/* Defaults: window 16, slope 0.1, resemblance 0.28, containment 0.7,
 * max_d auto, max_iter 4, exact 0, min_iter_tlcs 64, blocks auto, reserve 0,
 * subst_share 1/3, subst_max auto. */
#define NDD_TLCS_DEFAULT_SUBST_SHARE (1.0 / 3.0)
void ndd_tlcs_params_default(ndd_tlcs_params_t *p);

/* One trustable region (one iteration): [a_start, a_end) in A and the span
 * [b_start, b_end) of its TLCS partners in B, in ORIGINAL byte offsets (a
 * region of a later iteration may span an earlier, removed one). */
typedef struct ndd_tlcs_region {
    size_t a_start, a_end;
    size_t b_start, b_end;
    size_t tlcs;
} ndd_tlcs_region_t;

typedef struct ndd_tlcs_result {
    size_t len_a, len_b;          /* document lengths (bytes) */
    size_t sketch_a, sketch_b;    /* filtered sketch lengths (= len with exact) */
    size_t lcs;                   /* LCS of the sketches (first iteration); a lower bound if hit_cost_limit */
    size_t lcs_upper;             /* min(sketch_a, sketch_b): the bound checked before any LCS */
    size_t d;                     /* SES size of the first iteration (0 if not run) */
    size_t max_d;                 /* cost limit used in the first iteration */
    size_t tlcs;                  /* total trustable LCS over all iterations */
    unsigned iterations;          /* Myers runs made */
    int pruned_by_bound;          /* 1: the upper bound could not reach the thresholds: no LCS run */
    int anchor_pruned;            /* 1: the anchor bound (ndd_tlcs_ws_anchors) did, before any sketch:
                                     sketch_a/b and strain_away are 0, lcs_upper is the anchor bound */
    int hit_cost_limit;           /* 1: some Myers run stopped at max_d (verdict is then conservative) */
    int duplicate;                /* the verdict */
    double resemblance;           /* tlcs / (len_a + len_b - tlcs) */
    double containment;           /* tlcs / min(len_a, len_b) */
    double strain_away;           /* 1 - (sketch_a + sketch_b) / (len_a + len_b) */
    double reserve;               /* tlcs(sketches) / tlcs(exact), -1 when not computed or undefined */
    unsigned nregions;
    ndd_tlcs_region_t regions[NDD_TLCS_MAX_REGIONS];
} ndd_tlcs_result_t;

typedef struct ndd_tlcs_ws ndd_tlcs_ws_t; /* sketch tables, sketches, Myers arrays, curve arrays */

int ndd_tlcs_ws_create(ndd_tlcs_ws_t **ws);
void ndd_tlcs_ws_free(ndd_tlcs_ws_t *ws);

/* Verifies one pair. Symmetric: compare(A,B) and compare(B,A) give the same
 * numbers (regions swapped). Returns NDD_OK or NDD_ERR_INVAL / NOMEM / LIMIT
 * (a document of 4 GiB or more). Empty documents are never duplicates. */
int ndd_tlcs_compare(ndd_tlcs_ws_t *ws, const ndd_tlcs_params_t *p, const char *a, size_t na,
                     const char *b, size_t nb, ndd_tlcs_result_t *r);
/* The next ndd_tlcs_compare(ws, p, a, .., b, ..) (not exact) uses these
 * anchors of a and b: the anchor bound (a pair it stops is rejected as the
 * sketch bound would reject it, anchor_pruned = 1) and the sketches from the
 * anchors - the same verdict and scores, less time when a document meets
 * several partners. The bound comes first unless a sample of the anchors
 * says the pair is close (ndd_anchors_likely_close): then the sketches, and
 * the bound only when they stop the pair; the result is the same. Used once. */
void ndd_tlcs_ws_anchors(ndd_tlcs_ws_t *ws, const ndd_anchors_t *a, const ndd_anchors_t *b);

/* The verdict rule alone: resemblance >= min_resemblance or containment >= min_containment. */
int ndd_tlcs_verdict(const ndd_tlcs_params_t *p, double resemblance, double containment);
/* Resemblance and containment of a common length t between lengths na, nb. */
void ndd_tlcs_scores(size_t t, size_t na, size_t nb, double *resemblance, double *containment);
/* The least common length L <= min(na, nb) whose scores pass the verdict
 * (min(na, nb) + 1 when none does): a bound below it stops the pair. */
size_t ndd_tlcs_need(const ndd_tlcs_params_t *p, size_t na, size_t nb);

/* ===================================================================== */
/* Formulaic texts (issue 11; docs/verify.md "Formulaic texts")          */
/* ===================================================================== */

/* After a TLCS "duplicate": the span of its trustable regions in each
 * document, widened to whole blocks, as word tokens aligned by Myers; the
 * tokens of the shorter side that are REPLACED by a few others (a gap with
 * 1..max_gap tokens on both sides) are the changes; deleted tokens and those
 * of larger gaps are left out of every count. Keys are numbers (a digit, or one..twelve) and
 * names (a capital not starting a sentence). Formulaic - the same wording
 * about other names and numbers - when
 *   changed keys >= min_changed, changed keys / keys >= min_key_share and
 *   changed keys / replaced tokens >= min_purity, or
 *   changed numbers >= min_changed, changed numbers / numbers > num_share and
 *   changed numbers / replaced tokens >= num_purity.
 * Not formulaic when every change lies in one block (line) of at most
 * line_bytes and the other blocks are unchanged: the same text under a new
 * headline, dateline or byline. Sequences that need more than max_d edits are not judged
 * (aligned = 0). */
typedef struct ndd_formula_params {
    size_t min_changed;
    double min_key_share, min_purity, num_share, num_purity;
    size_t max_d;
    size_t line_bytes;
    size_t max_gap;
} ndd_formula_params_t;

#define NDD_FORMULA_DEFAULT_MIN_CHANGED 2
#define NDD_FORMULA_DEFAULT_KEY_SHARE 0.2
#define NDD_FORMULA_DEFAULT_PURITY 0.5
#define NDD_FORMULA_DEFAULT_NUM_SHARE 0.5
#define NDD_FORMULA_DEFAULT_NUM_PURITY 0.25
#define NDD_FORMULA_DEFAULT_MAX_D 600
#define NDD_FORMULA_DEFAULT_LINE_BYTES 120
#define NDD_FORMULA_DEFAULT_MAX_GAP 12

typedef struct ndd_formula_result {
    int aligned;            /* 0: not judged (no region, or more than max_d token edits) */
    size_t words;           /* tokens of the shorter side's span */
    size_t keys, numbers;   /* of them (matched or in small replacements), numbers and names; numbers */
    size_t replaced;        /* its tokens replaced by other tokens */
    size_t keys_changed, numbers_changed;
    int one_line;           /* every change in one short block (a headline, a dateline) */
    int different;          /* 1: formulaic, other names or numbers: not a duplicate */
} ndd_formula_result_t;

void ndd_formula_params_default(ndd_formula_params_t *p);
/* r: the ndd_tlcs_compare result of (a, b) (regions in a, partner spans in b). */
int ndd_formula_check(const ndd_formula_params_t *p, const char *a, size_t na, const char *b, size_t nb,
                      const ndd_tlcs_result_t *r, ndd_formula_result_t *out);
/* The same with a workspace kept between checks (its token arrays, the
 * alignment's paths: nothing allocated once they have grown). Not shared
 * between threads. */
typedef struct ndd_formula_ws ndd_formula_ws_t;
int ndd_formula_ws_create(ndd_formula_ws_t **ws);
void ndd_formula_ws_free(ndd_formula_ws_t *ws);
int ndd_formula_check_ws(ndd_formula_ws_t *ws, const ndd_formula_params_t *p, const char *a, size_t na,
                         const char *b, size_t nb, const ndd_tlcs_result_t *r, ndd_formula_result_t *out);

#endif
