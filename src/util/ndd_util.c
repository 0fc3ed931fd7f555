/* ndd_util.c - see ndd_util.h */
#include "ndd_util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *ndd_strerror(int rc)
{
    switch (rc) {
    case NDD_OK: return "ok";
    case NDD_ERR_NOMEM: return "out of memory";
    case NDD_ERR_IO: return "input/output error";
    case NDD_ERR_FORMAT: return "malformed input";
    case NDD_ERR_INVAL: return "invalid argument";
    case NDD_ERR_LIMIT: return "limit reached";
    case NDD_ERR_COMPRESS: return "compression error";
    case NDD_ERR_UNSUPPORTED: return "unsupported input";
    case NDD_ERR_INTERNAL: return "internal error";
    case NDD_ERR_EOF: return "end of input";
    case NDD_ERR_VERSION: return "written by another ndd version (format mismatch)";
    case NDD_ERR_EMPTY: return "no document read";
    default: return "unknown error";
    }
}

/* The request covers all the pages of the block (a block malloc took from its
 * own mapping stays one mapping with one set of flags); the kernel places huge
 * pages wherever 2 MiB-aligned runs lie inside. A hint: a failure is ignored. */
void *ndd_big_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const char *e = getenv("NDD_HUGE_PAGES");
    long pg = sysconf(_SC_PAGESIZE);
    if (p && n >= NDD_BIG_BLOCK && !(e && strcmp(e, "0") == 0) && pg > 0) {
        uintptr_t mask = ~((uintptr_t)pg - 1), a = (uintptr_t)p & mask;
        (void)madvise((void *)a, (((uintptr_t)p + n + (uintptr_t)pg - 1) & mask) - a, MADV_HUGEPAGE);
    }
#endif
    return p;
}

void *ndd_grow_block(void *old, size_t used, size_t cap)
{
    if (cap < NDD_BIG_BLOCK)
        return realloc(old, cap);
    /* a new block advised before the copy, so that the copied bytes and the
     * room after them fault in huge pages (realloc would copy into small
     * pages first, or move a mapping whose new part is not advised) */
    void *p = ndd_big_alloc(cap);
    if (!p)
        return NULL;
    if (used)
        memcpy(p, old, used);
    free(old);
    return p;
}

int ndd_buf_reserve(ndd_buf_t *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len - 1)
        return NDD_ERR_NOMEM;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return NDD_OK;
    size_t cap = b->cap ? b->cap : 64, used = b->data ? b->len + 1 : 0;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    /* A buffer that grows again from NDD_BIG_BLOCK on grows 8x at a time
     * (2x when that cannot be had): each growth copies the bytes into fresh
     * pages, which the kernel clears (a buffer grown from 4 MiB to 80 MB by
     * doubling touched 2.5x its size, now 1.5x). A buffer only appends, so
     * the pages past its end are never touched: the room costs address
     * space, not memory. (The first room asked of an empty buffer is what
     * its caller knows it needs: kept as asked.) */
    char *p = b->data && cap >= NDD_BIG_BLOCK && cap <= SIZE_MAX / 4 ? ndd_grow_block(b->data, used, cap * 4) : NULL;
    if (p)
        cap *= 4;
    else if (!(p = ndd_grow_block(b->data, used, cap)))
        return NDD_ERR_NOMEM;
    b->data = p;
    b->cap = cap;
    return NDD_OK;
}

int ndd_buf_append(ndd_buf_t *b, const void *p, size_t n)
{
    int rc = ndd_buf_reserve(b, n);
    if (rc)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return NDD_OK;
}

int ndd_buf_putc(ndd_buf_t *b, char c) { return ndd_buf_append(b, &c, 1); }
int ndd_buf_puts(ndd_buf_t *b, const char *s) { return ndd_buf_append(b, s, strlen(s)); }

void ndd_buf_clear(ndd_buf_t *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void ndd_buf_free(ndd_buf_t *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *ndd_buf_steal(ndd_buf_t *b, size_t *len)
{
    char *p = b->data;
    if (len)
        *len = b->len;
    if (!p)
        p = calloc(1, 1);
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}

size_t ndd_utf8_valid_prefix(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
#if defined(__SSE2__)
        /* fast path: 32 ASCII bytes at a time (SSE2: the high bits of two
         * loads, or'ed; 8 at a time was 1.1 % of ndd run) */
        while (i + 32 <= n) {
            __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
            if (_mm_movemask_epi8(_mm_or_si128(a, b)))
                break;
            i += 32;
        }
#endif
        /* then 8 ASCII bytes at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ull)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F; /* no surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return i;
        }
        if (i + len > n)
            return i;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t k = 2; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
        i += len;
    }
    return n;
}

size_t ndd_utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp <= 0x10FFFF) {
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        return 4;
    }
    return 0;
}

size_t ndd_utf8_cut(const char *str, size_t n, size_t max)
{
    const unsigned char *s = (const unsigned char *)str;
    if (n <= max)
        return n;
    size_t cut = max;
    /* back up over continuation bytes to the start of the sequence at s[cut] */
    while (cut > 0 && (s[cut] & 0xC0) == 0x80)
        cut--;
    return cut;
}

int ndd_json_append_string(ndd_buf_t *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    int rc = ndd_buf_reserve(b, n + 2);
    if (rc)
        return rc;
    ndd_buf_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        if ((rc = ndd_buf_append(b, s + run, i - run)))
            return rc;
        run = i + 1;
        char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
        size_t el = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            el = 6;
        }
        if ((rc = ndd_buf_append(b, esc, el)))
            return rc;
    }
    if ((rc = ndd_buf_append(b, s + run, n - run)))
        return rc;
    return ndd_buf_putc(b, '"');
}

static inline int tsv_special(char c) { return c == '\t' || c == '\n' || c == '\r' || c == '\\'; }

int ndd_tsv_append_field(ndd_buf_t *b, const char *s, size_t n)
{
    int rc;
    size_t run = 0, i = 0;
    for (;;) { /* to the next byte to escape (field values rarely have one: URLs, ids) */
#if defined(__SSE2__)
        while (n - i >= 16) { /* 16 bytes at a time */
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            __m128i tn = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
            __m128i rb = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
            __m128i m = _mm_or_si128(tn, rb);
            unsigned bits = (unsigned)_mm_movemask_epi8(m);
            if (bits) {
                i += (size_t)__builtin_ctz(bits);
                break;
            }
            i += 16;
        }
#endif
        while (i < n && !tsv_special(s[i]))
            i++;
        if (i >= n)
            break;
        char c = s[i];
        if ((rc = ndd_buf_append(b, s + run, i - run)))
            return rc;
        run = ++i;
        char esc[2] = {'\\', c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\'};
        if ((rc = ndd_buf_append(b, esc, 2)))
            return rc;
    }
    return ndd_buf_append(b, s + run, n - run);
}

size_t ndd_fmt_u64(char out[24], uint64_t v)
{
    char t[24];
    size_t k = 0;
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < k; i++)
        out[i] = t[k - 1 - i];
    out[k] = '\0';
    return k;
}

size_t ndd_fmt_f6(char out[32], double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    unsigned be = (unsigned)(bits >> 52) & 0x7FF;
    if ((bits >> 63) || be >= 1023 + 32) { /* negative (also -0.0), 2^32 or more, inf, NaN */
        out[0] = '\0';
        return 0;
    }
    /* v = m * 2^-k, k > 0 (v < 2^32, m < 2^53) */
    uint64_t m = bits & ((1ULL << 52) - 1);
    unsigned k = be ? 1075 - be : 1074;
    if (be)
        m |= 1ULL << 52;
    uint64_t q = 0;
    if (k < 74) { /* else v * 10^6 < 2^73 / 2^74: rounds to 0 */
        unsigned __int128 p = (unsigned __int128)m * 1000000u, half = (unsigned __int128)1 << (k - 1);
        q = (uint64_t)(p >> k);
        unsigned __int128 r = p - ((unsigned __int128)q << k);
        q += r > half || (r == half && (q & 1));
    }
    unsigned fr = (unsigned)(q % 1000000u);
    size_t n = ndd_fmt_u64(out, q / 1000000u); /* the integer part */
    out[n++] = '.';
    for (int d = 5; d >= 0; d--, fr /= 10)
        out[n + (size_t)d] = (char)('0' + fr % 10);
    n += 6;
    out[n] = '\0';
    return n;
}

int ndd_array_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return NDD_OK;
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return NDD_ERR_NOMEM;
        c *= 2;
    }
    if (elem && c > SIZE_MAX / elem)
        return NDD_ERR_NOMEM;
    void *q = ndd_grow_block(*p, *cap * elem, c * elem);
    if (!q)
        return NDD_ERR_NOMEM;
    *p = q;
    *cap = c;
    return NDD_OK;
}

int ndd_read_file(const char *path, size_t limit, char **data, size_t *len)
{
    int rc = NDD_OK;
    ndd_buf_t b = NDD_BUF_INIT;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NDD_ERR_IO;
    /* room for the whole file at once (its size now; a file that grows
     * meanwhile is read on), read straight into place: no regrowth, no copy */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        size_t want = (uint64_t)st.st_size < SIZE_MAX / 2 ? (size_t)st.st_size : SIZE_MAX / 2;
        if ((rc = ndd_buf_reserve(&b, limit && want >= limit ? limit + 1 : want + 1))) /* +1: the end seen */
            goto out;
    }
    for (;;) {
        if (b.cap <= b.len + 1 && (rc = ndd_buf_reserve(&b, 65536)))
            goto out;
        size_t n = fread(b.data + b.len, 1, b.cap - 1 - b.len, f);
        if (n == 0)
            break;
        if (limit && b.len + n > limit) {
            rc = NDD_ERR_LIMIT;
            goto out;
        }
        b.len += n;
    }
    if (b.data)
        b.data[b.len] = '\0';
    if (ferror(f)) {
        rc = NDD_ERR_IO;
        goto out;
    }
    *data = ndd_buf_steal(&b, len);
out:
    fclose(f);
    ndd_buf_free(&b);
    return rc;
}

/* The value of "KEY: N kB" in a /proc file, or 0. */
static uint64_t proc_kib(const char *file, const char *key)
{
    char line[256];
    size_t kl = strlen(key);
    unsigned long long kib = 0;
    int found = 0;
    FILE *f = fopen(file, "r");
    while (f && !found && fgets(line, sizeof line, f))
        found = !strncmp(line, key, kl) && line[kl] == ':' && sscanf(line + kl + 1, " %llu", &kib) == 1;
    if (f)
        fclose(f);
    return found ? (uint64_t)kib : 0;
}

uint64_t ndd_rss_now_kib(void) { return proc_kib("/proc/self/status", "VmRSS"); }

/* The first number in file (a cgroup limit; "max" = none), or 0. */
static uint64_t file_u64(const char *file)
{
    char line[64];
    unsigned long long v = 0;
    FILE *f = fopen(file, "r");
    int ok = f && fgets(line, sizeof line, f) && sscanf(line, "%llu", &v) == 1;
    if (f)
        fclose(f);
    return ok ? (uint64_t)v : 0;
}

/* The memory limit of this process's cgroup: v2's memory.max ("0::/PATH"
 * in /proc/self/cgroup) or v1's memory.limit_in_bytes ("N:memory:/PATH");
 * 0 when none. */
static uint64_t cgroup_limit(void)
{
    char line[4096], path[4200];
    uint64_t lim = 0;
    FILE *f = fopen("/proc/self/cgroup", "r");
    while (f && !lim && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        const char *v1 = strstr(line, ":memory:/");
        int n = !strncmp(line, "0::/", 4) ? snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3)
                : v1 ? snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", v1 + 8)
                     : -1;
        if (n > 0 && (size_t)n < sizeof path)
            lim = file_u64(path);
    }
    if (f)
        fclose(f);
    return lim >= ((uint64_t)1 << 60) ? 0 : lim; /* v1 writes "no limit" as a huge number */
}

uint64_t ndd_mem_limit(const char **source)
{
    uint64_t total = proc_kib("/proc/meminfo", "MemTotal") * 1024, lim = cgroup_limit(), slurm = 0;
    const char *node = getenv("SLURM_MEM_PER_NODE"), *cpu = getenv("SLURM_MEM_PER_CPU"), *cpus = getenv("SLURM_CPUS_ON_NODE");
    unsigned long long mb = 0, nc = 0;
    if (node && sscanf(node, "%llu", &mb) == 1 && mb)
        slurm = (uint64_t)mb << 20;
    else if (cpu && cpus && sscanf(cpu, "%llu", &mb) == 1 && sscanf(cpus, "%llu", &nc) == 1 && mb && nc)
        slurm = ((uint64_t)mb << 20) * nc;
    *source = "MemTotal";
    uint64_t best = total;
    if (lim && (!best || lim < best)) {
        best = lim;
        *source = "cgroup memory.max";
    }
    if (slurm && (!best || slurm < best)) {
        best = slurm;
        *source = node && mb ? "SLURM_MEM_PER_NODE" : "SLURM_MEM_PER_CPU";
    }
    return best;
}

uint64_t ndd_rss_peak_kib(void)
{
    uint64_t kib = proc_kib("/proc/self/status", "VmHWM");
    if (kib)
        return kib;
    struct rusage ru;
    return !getrusage(RUSAGE_SELF, &ru) && ru.ru_maxrss > 0 ? (uint64_t)ru.ru_maxrss : 0; /* KiB on Linux */
}

#if defined(__SANITIZE_ADDRESS__)
#define NDD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NDD_ASAN 1
#endif
#endif

void ndd_mem_release(void)
{
#if defined(__GLIBC__) && !defined(NDD_ASAN)
    (void)malloc_trim(0); /* (not under ASan: its allocator is not glibc's heap) */
#endif
}

static int is_loopback(const struct sockaddr_storage *a)
{
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)(const void *)a;
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)(const void *)a;
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        const unsigned char *b = v6->sin6_addr.s6_addr;
        return IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr) || (!memcmp(b, mapped, 12) && b[12] == 127);
    }
    return 0;
}

int ndd_loopback_nodelay(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int set = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        int type = 0, on = 1;
        socklen_t tl = sizeof type;
        struct sockaddr_storage peer;
        socklen_t pl = sizeof peer;
        if (*end || end == e->d_name || fd < 0 || fd > INT_MAX || fd == dirfd(d))
            continue;
        if (getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &tl) || type != SOCK_STREAM)
            continue; /* not a socket, or not a stream */
        if (getpeername((int)fd, (struct sockaddr *)&peer, &pl) || !is_loopback(&peer))
            continue; /* not connected, not TCP/IP, or not to this node */
        if (!setsockopt((int)fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on))
            set++;
    }
    closedir(d);
    return set;
}

int ndd_rss_peak_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return -1;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

double ndd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void *ndd_radix_scratch(int use, size_t n, size_t size, size_t **count)
{
    void *tmp = use && n ? ndd_big_alloc(n * size) : NULL;
    *count = tmp ? malloc(((size_t)1 << 16) * sizeof **count) : NULL;
    if (!*count) {
        free(tmp);
        return NULL;
    }
    return tmp;
}

void ndd_radix_done(void *v, const void *src, size_t n, size_t size, void *tmp, size_t *count)
{
    if (src != v)
        memcpy(v, src, n * size);
    free(tmp);
    free(count);
}

/* v[0..n) ascending without a comparison callback: insertion sort below 16
 * elements, else quicksort on the median of three, the smaller side first
 * (recursion depth <= log2 n), the larger side looped. */
static void u64_quick(uint64_t *v, size_t n)
{
    while (n > 16) {
        uint64_t a = v[0], b = v[n / 2], c = v[n - 1];
        uint64_t piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        size_t i = 0, j = n - 1;
        for (;;) { /* Hoare partition: v[0..j] <= piv <= v[j+1..n) */
            while (v[i] < piv)
                i++;
            while (v[j] > piv)
                j--;
            if (i >= j)
                break;
            uint64_t t = v[i];
            v[i++] = v[j];
            v[j--] = t;
        }
        size_t left = j + 1;
        if (left < n - left) {
            u64_quick(v, left);
            v += left;
            n -= left;
        } else {
            u64_quick(v + left, n - left);
            n = left;
        }
    }
    for (size_t k = 1; k < n; k++) {
        uint64_t x = v[k];
        size_t j = k;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* An LSD radix sort with 16-bit digits over the bits the largest value uses
 * (document numbers: two passes); u64_quick below 8,192 values (each pass
 * clears 65,536 counters: 48-bit values took 61 us by radix against 1 us by
 * u64_quick at 256 values, 76 / 48 us at 4,096, 136 / 686 us at 16,384) or
 * when the scratch array cannot be had. */
void ndd_u64_sort(uint64_t *v, size_t n)
{
    if (n < 8192) {
        u64_quick(v, n);
        return;
    }
    uint64_t mx = 0;
    for (size_t i = 0; i < n; i++)
        mx |= v[i];
    unsigned bits = ndd_bits_of(mx);
    size_t *count;
    uint64_t *tmp = ndd_radix_scratch(1, n, sizeof *tmp, &count);
    if (!tmp) {
        u64_quick(v, n);
        return;
    }
    uint64_t *src = v, *dst = tmp;
#define U64_KEY(x) (x)
    for (unsigned shift = 0; shift < bits; shift += 16)
        NDD_RADIX_PASS(uint64_t, src, dst, n, count, shift, U64_KEY);
#undef U64_KEY
    ndd_radix_done(v, src, n, sizeof *v, tmp, count);
}

size_t ndd_u64_sort_unique(uint64_t *v, size_t n)
{
    size_t w = 0;
    ndd_u64_sort(v, n);
    for (size_t i = 0; i < n; i++)
        if (!w || v[i] != v[w - 1])
            v[w++] = v[i];
    return w;
}

size_t ndd_u64_lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
