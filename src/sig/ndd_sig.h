/* ndd_sig.h - paper 002 signatures: MD5 per sentence (OpenSSL libcrypto),
 * 16 ring rotations, m residue classes x n rotations, k smallest per class,
 * weighted +-w projection (w = 1 + ln(sentence length)) -> m*n 128-bit
 * signatures per document. Plain C, no MPI. */
#ifndef NDD_SIG_H
#define NDD_SIG_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_text.h"

#define NDD_SIG_MAX 256  /* m*n <= NDD_SIG_MAX */
#define NDD_SIG_K_ALL 0  /* k = 0: every distinct fingerprint of the class (measurement mode) */
#define NDD_SIG_K_MAX 64 /* largest finite k accepted */
#define NDD_SIG_DEFAULT_M 7
#define NDD_SIG_DEFAULT_N 16
#define NDD_SIG_DEFAULT_K 2  /* chosen by measurement: docs/signatures.md */
/* Text mode the signature stage should extract with (ndd_text_opts_t.boilerplate):
 * 1 = boilerplate removal on, chosen by measurement (docs/signatures.md). */
#define NDD_SIG_DEFAULT_BOILERPLATE 1

typedef struct ndd_sig_params {
    unsigned m;           /* residue classes (default 7) */
    unsigned n;           /* rotations 1..16 (default 16) */
    unsigned k;           /* smallest fingerprints per class (default: see docs/signatures.md; 0 = all) */
    size_t min_sentence;  /* bytes (default 17: "longer than 16 bytes") */
} ndd_sig_params_t;
/* Fingerprint reading: the rotated 16 bytes as one 128-bit big-endian
 * integer; its class is that integer mod m and "smallest" is numeric order.
 * Duplicate sentences of one document count once (fingerprints are a set). */

void ndd_sig_params_default(ndd_sig_params_t *p);
int ndd_sig_params_check(const ndd_sig_params_t *p); /* NDD_ERR_INVAL when out of range */

/* One signature: which (rotation, class) slot it came from and its 128 bits. */
typedef struct ndd_sig {
    uint16_t slot;        /* rotation * m + class */
    uint8_t bits[16];
} ndd_sig_t;

/* 64-bit key used for postings/shuffles: XXH3 over (slot, bits). */
uint64_t ndd_sig_key(const ndd_sig_t *s);

/* MD5 through the library (exposed for tests and the benchmark). */
void ndd_md5(const void *data, size_t n, uint8_t out[16]);
/* The MD5 digest of each span text[spans[i].off ..) of spans[i].len bytes
 * into out[i]: the digests ndd_md5 gives, sixteen sentences at a time in the
 * lanes of AVX-512 registers where the CPU has AVX-512 F and BW and n >=
 * NDD_MD5X_MIN (ndd_md5x.c), else one at a time through the library. */
#define NDD_MD5X_MIN 4
void ndd_md5_spans(const char *text, const ndd_span_t *spans, size_t n, uint8_t (*out)[16]);
/* For tests and the benchmark: the widest path ndd_md5_spans may take (0 the
 * library one at a time, 1 AVX-512 where the CPU has it: the default); returns
 * the former setting. Not thread-safe. */
unsigned ndd_md5_isa(unsigned max);
/* Rotation r (0..15) of a 16-byte digest: out[j] = in[(j + r) % 16]. */
void ndd_ring_rotate(const uint8_t in[16], unsigned r, uint8_t out[16]);

typedef struct ndd_sig_ctx ndd_sig_ctx_t;
int ndd_sig_ctx_create(ndd_sig_ctx_t **ctx, const ndd_sig_params_t *p);
void ndd_sig_ctx_free(ndd_sig_ctx_t *ctx);

/* Signatures of one normalised text (output of ndd_text_*). out must hold
 * m*n entries; *nout = number produced (slots with no sentence give none;
 * this count is the document weight W_d); *nsentences = sentences kept. */
int ndd_sig_doc(ndd_sig_ctx_t *ctx, const char *text, size_t n,
                ndd_sig_t *out, size_t *nout, size_t *nsentences);

/* The same from sentences already split (spans into text, each hashed as
 * is: no length filter here). Signatures come out in ascending slot order. */
int ndd_sig_spans(ndd_sig_ctx_t *ctx, const char *text, const ndd_span_t *spans, size_t nspans,
                  ndd_sig_t *out, size_t *nout);

/* Parameters the context was created with. */
const ndd_sig_params_t *ndd_sig_ctx_params(const ndd_sig_ctx_t *ctx);

#endif
