/* ndd_rstream.h - buffered byte source for the readers (internal to src/reader).
 *
 * Gives a sliding window over the DECOMPRESSED bytes of one file: plain,
 * gzip (any number of members, zlib) or zstd (any number of frames, libzstd
 * streaming). Compression is detected from the magic bytes.
 *
 * Damage in a compressed file (a truncated gzip member or zstd frame, corrupt
 * data) does not end the stream: the stream stops at a "break". fill()
 * returns NDD_RS_BREAK once the bytes produced before the damage are used
 * up; the caller rejects the partial record it holds (reason brk_reason) and
 * calls ndd_rstream_resume(), which continues with the next member/frame
 * that decodes, or ends the stream when there is none.
 *
 * Finding the damage early: the decoder is never fed past a place where the
 * magic bytes of another member/frame appear (1f 8b 08 + valid flags; 28 b5
 * 2f fd) before that place is looked at. A member that ends there is the
 * normal case. When the current member goes on past it, a second decoder
 * probes it (256 KiB of output, its end, or the end of the file without an
 * error): if it decodes, the current member was cut short there ("truncated
 * ... member/frame") and reading resumes at it, so no garbage from decoding
 * the next member's bytes with the old state ever reaches the caller; if not,
 * it was a chance match inside compressed data. A decoder error (corrupt
 * data, bad CRC) or the end of the file inside a member scans the rest of the
 * file for the next member that probes well.
 *
 * Window: w[pos..len) holds unread bytes, base is the stream offset of w[0];
 * w[len] is always writable (room for a NUL). Pointers into the window are
 * invalidated by fill(); keep offsets relative to pos. */
#ifndef NDD_RSTREAM_H
#define NDD_RSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>
#include <zstd.h>

/* zstd frames may declare a window of at most 2^27 bytes (128 MiB, zstd's
 * own default limit; `zstd --long` writes 2^27): a few bytes of frame
 * header can no longer make the reader allocate gigabytes. Frames that ask
 * for more are rejected (docs/readers.md). */
#define NDD_ZSTD_WINDOW_LOG_MAX 27

enum {
    NDD_RS_OK = 0,   /* the requested bytes are in the window */
    NDD_RS_EOF = 1,  /* end of data before the requested bytes */
    NDD_RS_BREAK = 2 /* damaged compressed data before the requested bytes */
};

enum { NDD_RS_PLAIN = 0, NDD_RS_GZIP = 1, NDD_RS_ZSTD = 2 };

typedef struct ndd_rstream {
    int fd;
    int comp;            /* NDD_RS_PLAIN / GZIP / ZSTD */
    /* window of decompressed bytes */
    char *w;
    size_t cap, pos, len, max_cap;
    uint64_t base;       /* stream offset of w[0] */
    uint64_t file_off;   /* plain: file offset of the next read */
    /* compressed input */
    unsigned char *in;
    size_t in_cap, in_pos, in_len;
    uint64_t in_off;     /* file offset of in[0] */
    int in_eof;
    z_stream z;
    int z_ready;
    ZSTD_DCtx *zd;
    int in_unit;         /* inside a gzip member / zstd frame */
    uint64_t unit_start; /* file offset where that member/frame began */
    uint64_t magic_from; /* no other member can begin in [unit_start, magic_from) */
    z_stream pz;         /* probe decoders: does a member begin at a given offset? */
    int pz_ready;
    ZSTD_DCtx *pzd;
    /* state */
    int eof;
    int brk;
    const char *brk_reason;
    int resume_ok;
    uint64_t resume_at;
    unsigned char *scratch; /* for candidate checks after damage */
    /* where each member/frame began (ndd_rstream_start_at turns it on):
     * file offset u_comp[i], stream offset u_dec[i], for i in [u_head, u_n);
     * entries wholly before keep_from are dropped */
    int track_units;
    uint64_t *u_comp, *u_dec;
    size_t u_head, u_n, u_cap;
    uint64_t keep_from;
    uint64_t start_comp, start_dec;
} ndd_rstream_t;

/* Opens path; the window starts at init_cap bytes and never grows beyond
 * max_cap. NDD_ERR_IO with errno set when the file cannot be opened. */
int ndd_rstream_open(ndd_rstream_t *s, const char *path, size_t init_cap, size_t max_cap);
void ndd_rstream_close(ndd_rstream_t *s);
/* Compressed files only, before the first fill: decode from the member or
 * frame that begins at file offset comp_off, whose first byte is stream
 * offset dec_off; from then on every member/frame start is recorded for
 * ndd_rstream_unit_of. */
int ndd_rstream_start_at(ndd_rstream_t *s, uint64_t comp_off, uint64_t dec_off);
/* The member/frame holding stream offset x (the last one begun at or before
 * x; the start when none): its file offset *comp and stream offset *dec. x
 * must not lie before the last ndd_rstream_keep. */
void ndd_rstream_unit_of(const ndd_rstream_t *s, uint64_t x, uint64_t *comp, uint64_t *dec);
static inline void ndd_rstream_keep(ndd_rstream_t *s, uint64_t x) { s->keep_from = x; }

/* Plain files only: restart reading at byte off. */
int ndd_rstream_seek(ndd_rstream_t *s, uint64_t off);
/* Makes at least need bytes available at w+pos (or as many as exist before
 * EOF/break). NDD_RS_OK / NDD_RS_EOF / NDD_RS_BREAK, or a negative NDD_ERR_*
 * (NDD_ERR_LIMIT when need would exceed max_cap). */
int ndd_rstream_fill(ndd_rstream_t *s, size_t need);
/* After NDD_RS_BREAK: drops the window contents and continues after the damage. */
int ndd_rstream_resume(ndd_rstream_t *s);

static inline size_t ndd_rstream_avail(const ndd_rstream_t *s) { return s->len - s->pos; }
static inline char *ndd_rstream_ptr(const ndd_rstream_t *s) { return s->w + s->pos; }
static inline uint64_t ndd_rstream_offset(const ndd_rstream_t *s) { return s->base + s->pos; }

/* Reads the first bytes of a file (decompressed when gzip/zstd) for format
 * sniffing: up to cap bytes into buf, *n set. *comp gets the compression. */
int ndd_rstream_sniff(const char *path, char *buf, size_t cap, size_t *n, int *comp);

#endif
