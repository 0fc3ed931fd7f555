/* ndd_util.h - error codes, growable buffers and UTF-8 helpers shared by every
 * module of the ndd core. Plain C11, no MPI, no printing. */
#ifndef NDD_UTIL_H
#define NDD_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- errors: functions return 0 (NDD_OK) or a negative NDD_ERR_* ---- */
enum {
    NDD_OK = 0,
    NDD_ERR_NOMEM = -1,       /* allocation failed */
    NDD_ERR_IO = -2,          /* open/read/write failed (errno kept by caller) */
    NDD_ERR_FORMAT = -3,      /* malformed input */
    NDD_ERR_INVAL = -4,       /* bad argument or option value */
    NDD_ERR_LIMIT = -5,       /* a configured limit was reached */
    NDD_ERR_COMPRESS = -6,    /* zstd / zlib failure */
    NDD_ERR_UNSUPPORTED = -7, /* input kind not supported */
    NDD_ERR_INTERNAL = -8,    /* invariant broken: a bug */
    NDD_ERR_EOF = -9,         /* end of input (for readers) */
    NDD_ERR_VERSION = -10,    /* a file written by another ndd format version */
    NDD_ERR_EMPTY = -11       /* no document was read (ndd run without --allow-empty) */
};

/* The error-forwarding idiom (as zstd's FORWARD_IF_ERROR): needs an int rc
 * and an 'out:' cleanup label in the calling function. */
#define NDD_TRY(expr)                  \
    do {                               \
        rc = (expr);                   \
        if (rc != NDD_OK)              \
            goto out;                  \
    } while (0)


/* Human-readable text for an NDD_ERR_* code (static string, never NULL). */
const char *ndd_strerror(int rc);

/* ---- growable byte buffer ---- */
typedef struct ndd_buf {
    char *data;  /* always NUL-terminated when data != NULL */
    size_t len;
    size_t cap;
} ndd_buf_t;

#define NDD_BUF_INIT {NULL, 0, 0}

int ndd_buf_reserve(ndd_buf_t *b, size_t extra);            /* room for len+extra+1 (regrowth from 4 MiB on: 8x) */
int ndd_buf_append(ndd_buf_t *b, const void *p, size_t n);
int ndd_buf_putc(ndd_buf_t *b, char c);
int ndd_buf_puts(ndd_buf_t *b, const char *s);
void ndd_buf_clear(ndd_buf_t *b);                           /* len = 0, keeps memory */
void ndd_buf_free(ndd_buf_t *b);                            /* frees, resets to empty */
/* Moves the buffer contents out (caller frees); the buffer becomes empty. */
char *ndd_buf_steal(ndd_buf_t *b, size_t *len);

/* ---- UTF-8 ---- */
/* Length of the longest valid UTF-8 prefix of s[0..n) (RFC 3629: no overlongs,
 * no surrogates, max U+10FFFF). Returns n when the whole input is valid. */
size_t ndd_utf8_valid_prefix(const char *s, size_t n);
static inline int ndd_utf8_valid(const char *s, size_t n) { return ndd_utf8_valid_prefix(s, n) == n; }
/* Encodes code point cp (<= 0x10FFFF, not a surrogate) into out[0..4); returns bytes written, 0 if invalid. */
size_t ndd_utf8_encode(uint32_t cp, char out[4]);
/* Largest cut <= max such that s[0..cut) does not end inside a UTF-8 sequence. */
size_t ndd_utf8_cut(const char *s, size_t n, size_t max);

/* ---- output escaping ---- */
/* Appends s as a JSON string literal (with the quotes); control characters
 * as \uXXXX, '"' and '\\' escaped; UTF-8 passed through. */
int ndd_json_append_string(ndd_buf_t *b, const char *s, size_t n);
/* Appends s as one TSV field: tab, newline, CR and backslash become
 * \t \n \r \\ so that every record stays one line. */
int ndd_tsv_append_field(ndd_buf_t *b, const char *s, size_t n);
/* For 0 <= v < 2^32: writes v as printf's "%.6f" does (the exact binary
 * value rounded half to even at the sixth decimal: the same bytes) by
 * integer arithmetic, NUL-terminated, into out; returns its length. Any
 * other v (negative, -0.0, larger, inf, NaN): returns 0, for printf. */
size_t ndd_fmt_f6(char out[32], double v);
/* v in decimal as printf's "%llu" writes it, NUL-terminated; returns its
 * length (at most 20). */
size_t ndd_fmt_u64(char out[24], uint64_t v);

/* ---- large blocks ---- */
/* Blocks of NDD_BIG_BLOCK bytes or more are asked to be backed by transparent
 * huge pages (madvise MADV_HUGEPAGE; Linux, THP mode "madvise" or "always"):
 * a fresh page costs one fault per 2 MiB instead of one per 4 KiB, which on
 * virtual machines is most of the cost of touching new memory
 * (docs/architecture.md, "Large blocks in huge pages"). Plain malloc/free
 * memory: free() it.
 * NDD_HUGE_PAGES=0 in the environment turns the request off. */
#define NDD_BIG_BLOCK ((size_t)4 << 20)
/* malloc(n) (n = 0: 1 byte), advised as above when n >= NDD_BIG_BLOCK. */
void *ndd_big_alloc(size_t n);
/* realloc(old, cap) that keeps the first used bytes; from NDD_BIG_BLOCK on
 * a new advised block, the used bytes copied, old freed (the peak is the old
 * block plus the new one, as for a realloc that copies). NULL on failure
 * (old is then untouched). */
void *ndd_grow_block(void *old, size_t used, size_t cap);

/* ---- misc ---- */
/* Grows the array *p (of *cap elements of elem bytes) to hold at least need
 * elements, doubling (from 64); NDD_ERR_NOMEM on overflow or failure. */
int ndd_array_grow(void **p, size_t *cap, size_t need, size_t elem);

/* qsort that accepts an empty (possibly NULL) array: glibc declares qsort's
 * array non-null, so qsort(NULL, 0, ...) is undefined behaviour. */
static inline void ndd_qsort(void *a, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(a, n, size, cmp);
}

/* Sorted arrays of u64: sorts v[0..n) ascending (small arrays by an inline
 * quicksort, large ones by an LSD radix sort); sorts and drops repeats,
 * returning the new count; the index of the first element >= x in a sorted
 * v (n when none). */
void ndd_u64_sort(uint64_t *v, size_t n);
size_t ndd_u64_sort_unique(uint64_t *v, size_t n);

/* SWAR on 8 bytes: the high bit of each byte of x that equals b (exact, per
 * byte: no false flag above a true one). */
static inline uint64_t ndd_bytes_eq8(uint64_t x, unsigned char b)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t t = x ^ (ones * b);
    return ~(((t & ~high) + ~high) | t | ~high);
}

/* The bits set in x, without a call: the build targets any x86-64, where
 * __builtin_popcountll is a call into libgcc (a byte table) unless the
 * compiler may use popcnt (0.5 % of ndd run's samples, in the HTML scan,
 * at stop 48). SWAR: a dozen instructions, the same on every CPU. */
static inline unsigned ndd_popcount64(uint64_t x)
{
#if defined(__POPCNT__)
    return (unsigned)__builtin_popcountll(x);
#else
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (unsigned)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* The number of bits x uses (0 for 0): how many 16-bit radix digits a key needs. */
static inline unsigned ndd_bits_of(uint64_t x) { return x ? 64u - (unsigned)__builtin_clzll(x) : 0u; }
/* a % d for a fixed d >= 1 without a division (Lemire, Kaser, Kurz, "Faster
 * remainder by direct computation", 2019: M = floor((2^128 - 1) / d) + 1,
 * a % d = ((M a mod 2^128) d) >> 128, exact for every 64-bit a and d): a
 * 64-bit div costs 14-45 cycles, this a few multiplies (shuffle 1 takes one
 * per signature key and pass). Plain % where the compiler has no 128 bits. */
typedef struct {
#ifdef __SIZEOF_INT128__
    unsigned __int128 m;
#endif
    uint64_t d;
} ndd_fastmod_t;
static inline ndd_fastmod_t ndd_fastmod_init(uint64_t d)
{
    ndd_fastmod_t f;
#ifdef __SIZEOF_INT128__
    f.m = ~(unsigned __int128)0 / d + 1;
#endif
    f.d = d;
    return f;
}
static inline uint64_t ndd_fastmod(const ndd_fastmod_t *f, uint64_t a)
{
#ifdef __SIZEOF_INT128__
    unsigned __int128 low = f->m * a;
    unsigned __int128 bottom = ((unsigned __int128)(uint64_t)low * f->d) >> 64, top = (low >> 64) * f->d;
    return (uint64_t)((bottom + top) >> 64);
#else
    return a % f->d;
#endif
}
/* Scratch for a radix sort of n records of size bytes, when use is true:
 * the second array, and *count (65,536 counters); NULL when use is false or
 * memory is short - the caller then sorts with qsort. ndd_radix_done frees both. */
void *ndd_radix_scratch(int use, size_t n, size_t size, size_t **count);
/* Ends a radix sort of v[0..n) (size bytes each) whose passes left the
 * sorted records in src (v or the scratch tmp): copies them into v, frees
 * tmp and count. */
void ndd_radix_done(void *v, const void *src, size_t n, size_t size, void *tmp, size_t *count);

/* One stable LSD radix pass with a 16-bit digit: the n records of type T in
 * src are placed into dst by (KEY(record) >> shift) & 0xFFFF, then src and
 * dst are swapped. count: scratch of 65,536 size_t. The sorts that use it
 * (u64 sets, links, giant-set links, shuffle-2 order) make one pass per 16
 * bits of their keys. */
#define NDD_RADIX_PASS(T, src, dst, n, count, shift, KEY)                                  \
    do {                                                                                  \
        memset((count), 0, ((size_t)1 << 16) * sizeof *(count));                          \
        for (size_t k_ = 0; k_ < (n); k_++)                                               \
            (count)[((KEY((src)[k_])) >> (shift)) & 0xFFFF]++;                            \
        for (size_t d_ = 0, at_ = 0; d_ < ((size_t)1 << 16); d_++) {                      \
            size_t c_ = (count)[d_];                                                      \
            (count)[d_] = at_;                                                            \
            at_ += c_;                                                                    \
        }                                                                                 \
        for (size_t k_ = 0; k_ < (n); k_++)                                               \
            (dst)[(count)[((KEY((src)[k_])) >> (shift)) & 0xFFFF]++] = (src)[k_];         \
        T *t_ = (src);                                                                    \
        (src) = (dst);                                                                    \
        (dst) = t_;                                                                       \
    } while (0)
/* One level of an in-place MSD radix sort (American flag sort) of records
 * of type T in a[], 256 buckets: head[b] and end[b] the bucket's range
 * (head moves to end), DIGIT(x) the bucket of record x. Each record is
 * moved straight to its bucket, the one it displaces goes on (a cycle);
 * the entries a few ahead in a bucket are fetched as it is written (the
 * cycle's reads wait on each other: -14 % on 1.6 M postings). */
#define NDD_FLAG_PERMUTE(T, a, head, end, DIGIT)                                          \
    for (unsigned b_ = 0; b_ < 256; b_++)                                                 \
        while ((head)[b_] < (end)[b_]) {                                                  \
            T x_ = (a)[(head)[b_]];                                                       \
            unsigned d_ = (unsigned)(DIGIT(x_));                                          \
            while (d_ != b_) {                                                            \
                if ((head)[d_] + 8 < (end)[d_])                                           \
                    __builtin_prefetch(&(a)[(head)[d_] + 8], 1);                          \
                T t_ = (a)[(head)[d_]];                                                   \
                (a)[(head)[d_]++] = x_;                                                   \
                x_ = t_;                                                                  \
                d_ = (unsigned)(DIGIT(x_));                                               \
            }                                                                             \
            (a)[(head)[b_]++] = x_;                                                       \
        }
/* One level of an MSD radix sort of a[0..n) (records of type T) whose
 * buckets' sizes are count[0..256): head[] and end[] set from them, then
 * the records distributed into scr[0..n) and copied back when n <= scap
 * (no chain of dependent loads: a bucket that fits a scratch array), else
 * permuted in place (NDD_FLAG_PERMUTE). DIGIT(x) the bucket of record x. */
#define NDD_FLAG_LEVEL(T, a, n, count, head, end, DIGIT, scr, scap)                        \
    do {                                                                                  \
        for (size_t b_ = 0, at_ = 0; b_ < 256; b_++) {                                    \
            (head)[b_] = at_;                                                             \
            at_ += (count)[b_];                                                           \
            (end)[b_] = at_;                                                              \
        }                                                                                 \
        if ((n) <= (scap)) {                                                              \
            for (size_t i_ = 0; i_ < (n); i_++)                                           \
                (scr)[(head)[DIGIT((a)[i_])]++] = (a)[i_];                                \
            memcpy((a), (scr), (n) * sizeof *(a));                                        \
        } else {                                                                          \
            NDD_FLAG_PERMUTE(T, a, head, end, DIGIT);                                     \
        }                                                                                 \
    } while (0)
/* Entries of the scratch array NDD_FLAG_LEVEL distributes into (1.5 MB of
 * 24-byte records) */
#define NDD_FLAG_SCRATCH ((size_t)1 << 16)
size_t ndd_u64_lower_bound(const uint64_t *v, size_t n, uint64_t x);

/* Seconds on a monotonic clock (for stage timings). */
double ndd_now(void);
/* Peak resident set size of this process in KiB since it started or since
 * the last ndd_rss_peak_reset (VmHWM of /proc/self/status; getrusage's
 * ru_maxrss where that cannot be read; 0 when neither can). */
uint64_t ndd_rss_peak_kib(void);
/* Resident set size of this process now, in KiB (VmRSS; 0 when unknown). */
uint64_t ndd_rss_now_kib(void);
/* The memory this process may use on its node, in bytes: the smallest of
 * MemTotal, its cgroup's memory.max and Slurm's allocation
 * (SLURM_MEM_PER_NODE, or SLURM_MEM_PER_CPU x SLURM_CPUS_ON_NODE); *source
 * names the one that decided (a static string). 0 when none can be read. */
uint64_t ndd_mem_limit(const char **source);
/* Starts a new peak (5 written to /proc/self/clear_refs, Linux >= 4.0):
 * 0 when done, -1 when this system cannot (the peak then runs on). */
int ndd_rss_peak_reset(void);
/* Gives the heap's free memory back to the system (glibc keeps freed
 * blocks below its mmap threshold in the heap, where they count as
 * resident): called between stages when a rank nears its memory budget,
 * and before the budget's spills. */
void ndd_mem_release(void);
/* Sets TCP_NODELAY on every connected TCP socket of this process whose peer
 * is a loopback address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104): the
 * connections a process has right after MPI_Init are MPI's own, among them
 * the PMIx client's to the node's PMIx server, whose small messages
 * otherwise wait on the server's delayed acknowledgement (Nagle's rule).
 * Returns the number of sockets set, or -1 where this process's open files
 * cannot be listed (/proc/self/fd; not Linux). A hint: a socket that refuses
 * is skipped. */
int ndd_loopback_nodelay(void);

/* Reads a whole file into memory (NUL-terminated). limit = 0 means no limit;
 * otherwise a larger file gives NDD_ERR_LIMIT. */
int ndd_read_file(const char *path, size_t limit, char **data, size_t *len);

#endif
