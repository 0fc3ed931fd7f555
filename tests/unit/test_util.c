#include "ndd_test.h"
#include "ndd_util.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static void test_buf(void **state)
{
    (void)state;
    ndd_buf_t b = NDD_BUF_INIT;
    for (int i = 0; i < 1000; i++)
        assert_int_equal(ndd_buf_puts(&b, "abc"), NDD_OK);
    assert_int_equal(b.len, 3000);
    assert_int_equal(b.data[3000], '\0');
    assert_memory_equal(b.data + 2997, "abc", 3);
    ndd_buf_clear(&b);
    assert_int_equal(b.len, 0);
    size_t n;
    char *p = ndd_buf_steal(&b, &n);
    assert_int_equal(n, 0);
    free(p);
    ndd_buf_free(&b);
}

/* The VmFlags line of /proc/self/smaps for the mapping that holds address
 * p, into flags (empty when not found). */
static void vm_flags_of(const void *p, char *flags, size_t cap)
{
    flags[0] = '\0';
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return;
    char line[512];
    int in = 0;
    uintptr_t x = (uintptr_t)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = x >= lo && x < hi;
        else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            size_t k = strlen(line + 8);
            k = k < cap - 1 ? k : cap - 1;
            memcpy(flags, line + 8, k);
            flags[k] = '\0';
            break;
        }
    }
    fclose(f);
}

/* Large blocks: contents kept across growth (small and large, buffers and
 * arrays), and the huge-page request made where the kernel takes one (the
 * mapping's VmFlags say "hg"). */
static void test_big_blocks(void **state)
{
    (void)state;
    ndd_buf_t b = NDD_BUF_INIT;
    uint64_t x = 1;
    while (b.len < 3 * NDD_BIG_BLOCK) { /* through realloc, then new blocks */
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        assert_int_equal(ndd_buf_append(&b, &x, sizeof x), NDD_OK);
    }
    assert_true(b.cap >= 3 * NDD_BIG_BLOCK);
    assert_int_equal(b.data[b.len], '\0');
    x = 1;
    for (size_t i = 0; i < b.len; i += sizeof x) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        assert_memory_equal(b.data + i, &x, sizeof x);
    }
    uint32_t *v = NULL;
    size_t cap = 0;
    for (size_t n = 0; n < 3 * NDD_BIG_BLOCK / sizeof *v; n++) {
        assert_int_equal(ndd_array_grow((void **)&v, &cap, n + 1, sizeof *v), NDD_OK);
        v[n] = (uint32_t)(n * 2654435761u);
    }
    for (size_t n = 0; n < 3 * NDD_BIG_BLOCK / sizeof *v; n++)
        assert_int_equal(v[n], (uint32_t)(n * 2654435761u));
    char thp[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f) {
        if (!fgets(thp, sizeof thp, f))
            thp[0] = '\0';
        fclose(f);
    }
    if (thp[0] && !strstr(thp, "[never]")) {
        /* asked for, unless NDD_HUGE_PAGES=0 says not to */
        const char *e = getenv("NDD_HUGE_PAGES");
        int want = !(e && strcmp(e, "0") == 0);
        char flags[512];
        vm_flags_of(b.data + b.len / 2, flags, sizeof flags);
        assert_int_equal(strstr(flags, " hg") != NULL, want);
        vm_flags_of((char *)(v + cap / 2), flags, sizeof flags);
        assert_int_equal(strstr(flags, " hg") != NULL, want);
        void *p = ndd_big_alloc(NDD_BIG_BLOCK);
        assert_non_null(p);
        vm_flags_of((char *)p + NDD_BIG_BLOCK / 2, flags, sizeof flags);
        assert_int_equal(strstr(flags, " hg") != NULL, want);
        free(p);
    } else {
        print_message("test_big_blocks: no transparent huge pages here (%s); the request is not checked\n",
                      thp[0] ? "never" : "no sysfs entry");
    }
    free(v);
    ndd_buf_free(&b);
    /* a small block stays a realloc: contents kept */
    char *q = ndd_grow_block(NULL, 0, 10);
    assert_non_null(q);
    memcpy(q, "abcdefghi", 10);
    q = ndd_grow_block(q, 10, 100);
    assert_non_null(q);
    assert_string_equal(q, "abcdefghi");
    free(q);
}

/* ndd_read_file against what was written: empty, small, exactly a 64 KiB
 * piece, large; the limit at and below the size; a file whose size stat
 * does not know (/proc). */
static void test_read_file(void **state)
{
    (void)state;
    char path[] = "/tmp/ndd-test-read-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    size_t sizes[] = {0, 1, 65535, 65536, 65537, 300001};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        char *w = malloc(n + 1);
        assert_non_null(w);
        for (size_t i = 0; i < n; i++)
            w[i] = (char)('a' + (i * 7 + k) % 26);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(w, 1, n, f), n);
        assert_int_equal(fclose(f), 0);
        char *got = NULL;
        size_t len = 99;
        assert_int_equal(ndd_read_file(path, 0, &got, &len), NDD_OK);
        assert_int_equal(len, n);
        assert_int_equal(got[n], '\0');
        assert_memory_equal(got, w, n);
        free(got);
        got = NULL;
        assert_int_equal(ndd_read_file(path, n ? n : 1, &got, &len), NDD_OK);
        assert_int_equal(len, n);
        free(got);
        if (n) {
            got = NULL;
            assert_int_equal(ndd_read_file(path, n - 1 ? n - 1 : 0, &got, &len), n - 1 ? NDD_ERR_LIMIT : NDD_OK);
            free(got);
        }
        free(w);
    }
    unlink(path);
    char *st = NULL;
    size_t sn = 0;
    assert_int_equal(ndd_read_file("/proc/self/status", 0, &st, &sn), NDD_OK);
    assert_true(sn > 0 && strstr(st, "VmRSS") != NULL);
    free(st);
    assert_int_equal(ndd_read_file("/nonexistent/ndd-test", 0, &st, &sn), NDD_ERR_IO);
}

static void test_utf8_valid(void **state)
{
    (void)state;
    assert_true(ndd_utf8_valid("hello", 5));
    assert_true(ndd_utf8_valid("\xe4\xb8\xad\xe6\x96\x87", 6));       /* 中文 */
    assert_true(ndd_utf8_valid("\xf0\x9f\x98\x80", 4));               /* emoji */
    assert_int_equal(ndd_utf8_valid_prefix("ab\xc0\xaf", 4), 2);      /* overlong */
    assert_int_equal(ndd_utf8_valid_prefix("ab\xed\xa0\x80", 5), 2);  /* surrogate */
    assert_int_equal(ndd_utf8_valid_prefix("abc\xe4\xb8", 5), 3);     /* truncated */
    assert_int_equal(ndd_utf8_valid_prefix("\xff", 1), 0);
    assert_int_equal(ndd_utf8_valid_prefix("\xf4\x90\x80\x80", 4), 0); /* > U+10FFFF */
    assert_int_equal(ndd_utf8_valid_prefix("aaaaaaaaaaaaaaaa\x80", 17), 16);
    /* a bad byte, or a valid 2-byte character, at every position of ASCII text (32 and 8 at a time) */
    char t[100];
    for (size_t pos = 0; pos + 2 <= sizeof t; pos++) {
        memset(t, 'a', sizeof t);
        t[pos] = (char)0xff;
        assert_int_equal(ndd_utf8_valid_prefix(t, sizeof t), pos);
        t[pos] = (char)0xc3;
        t[pos + 1] = (char)0xa9;
        assert_int_equal(ndd_utf8_valid_prefix(t, sizeof t), sizeof t);
    }
    /* random mostly-ASCII strings against a decoder by code points (RFC 3629:
     * no overlong form, no surrogate, nothing above U+10FFFF) */
    uint64_t x = 88172645463325252ull;
    for (int round = 0; round < 20000; round++) {
        char r[200];
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t n = (size_t)(x % sizeof r), odd = 1 + (size_t)(x >> 32) % 64;
        static const char *const valid[] = {"\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xed\x9f\xbf",
                                            "\xf4\x8f\xbf\xbf"};
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const char *v = valid[(x >> 40) % 5];
            if (x % odd == 0 && (x >> 20) % 4 && i + strlen(v) <= n) { /* a valid character */
                memcpy(r + i, v, strlen(v));
                i += strlen(v) - 1;
            } else {
                r[i] = (char)(x % odd == 0 ? 0x80 + (x >> 8) % 128 : 0x20 + (x >> 8) % 95);
            }
        }
        size_t want = 0;
        while (want < n) {
            const unsigned char *u = (const unsigned char *)r + want;
            size_t left = n - want, len = u[0] < 0x80 ? 1 : u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : u[0] >= 0xC0 ? 2 : 0;
            if (!len || len > left || u[0] > 0xF4)
                break;
            uint32_t cp = len == 1 ? u[0] : u[0] & (0x7Fu >> len);
            size_t k = 1;
            while (k < len && (u[k] & 0xC0) == 0x80)
                cp = cp << 6 | (u[k++] & 0x3Fu);
            static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
            if (k < len || cp < least[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
                break;
            want += len;
        }
        assert_int_equal(ndd_utf8_valid_prefix(r, n), want);
    }
}

static void test_utf8_encode_cut(void **state)
{
    (void)state;
    char o[4];
    assert_int_equal(ndd_utf8_encode(0x41, o), 1);
    assert_int_equal(ndd_utf8_encode(0xE9, o), 2);
    assert_memory_equal(o, "\xc3\xa9", 2);
    assert_int_equal(ndd_utf8_encode(0x4E2D, o), 3);
    assert_memory_equal(o, "\xe4\xb8\xad", 3);
    assert_int_equal(ndd_utf8_encode(0x1F600, o), 4);
    assert_memory_equal(o, "\xf0\x9f\x98\x80", 4);
    assert_int_equal(ndd_utf8_encode(0xD800, o), 0);
    assert_int_equal(ndd_utf8_encode(0x110000, o), 0);
    const char *s = "a\xe4\xb8\xad\xe6\x96\x87";
    assert_int_equal(ndd_utf8_cut(s, 7, 2), 1);
    assert_int_equal(ndd_utf8_cut(s, 7, 4), 4);
    assert_int_equal(ndd_utf8_cut(s, 7, 5), 4);
    assert_int_equal(ndd_utf8_cut(s, 7, 100), 7);
}

static void test_escape(void **state)
{
    (void)state;
    ndd_buf_t b = NDD_BUF_INIT;
    assert_int_equal(ndd_json_append_string(&b, "a\"b\\c\n\x01\xe4\xb8\xad", 10), NDD_OK);
    assert_string_equal(b.data, "\"a\\\"b\\\\c\\n\\u0001\xe4\xb8\xad\"");
    ndd_buf_clear(&b);
    assert_int_equal(ndd_tsv_append_field(&b, "x\ty\nz\\", 6), NDD_OK);
    assert_string_equal(b.data, "x\\ty\\nz\\\\");
    /* every special at every position of fields of 0 .. 70 bytes (16 at a
     * time inside), alone and with a second one further on */
    static const char specials[] = {'\t', '\n', '\r', '\\', 'a', ' ', (char)0x89, (char)0x0a ^ 0x80};
    char in[71], want[142];
    for (size_t n = 0; n <= 70; n++)
        for (size_t pos = 0; pos < n; pos++)
            for (size_t k = 0; k < sizeof specials; k++) {
                size_t w = 0, pos2 = pos + 1 + (pos * 7 + k) % 23; /* (past the end: none) */
                for (size_t i = 0; i < n; i++) {
                    in[i] = i == pos ? specials[k] : i == pos2 ? specials[(k + 3) % 4] : (char)('a' + i % 26);
                    char c = in[i];
                    if (c == '\t' || c == '\n' || c == '\r' || c == '\\') {
                        want[w++] = '\\';
                        c = c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\';
                    }
                    want[w++] = c;
                }
                ndd_buf_clear(&b);
                assert_int_equal(ndd_tsv_append_field(&b, in, n), NDD_OK);
                assert_int_equal(b.len, w);
                assert_memory_equal(b.data, want, w);
            }
    ndd_buf_free(&b);
}

/* ndd_fmt_f6 against printf's "%.6f": ratios of integers (what the scores
 * are), every halfway case j / 2^7 .. j / 2^20, random bit patterns below 2^32,
 * tiny and subnormal values, and what it hands to printf (negative, large,
 * inf, NaN). */
static void f6_check(double v)
{
    char a[32], b[400];
    size_t n = ndd_fmt_f6(a, v);
    snprintf(b, sizeof b, "%.6f", v);
    if (!n) { /* left to printf: exactly the values outside [0, 2^32) */
        assert_true(!(v >= 0 && v < 4294967296.0) || signbit(v));
        return;
    }
    assert_true(v >= 0 && v < 4294967296.0);
    assert_string_equal(a, b);
    assert_int_equal(n, strlen(b));
}

static void test_fmt_f6(void **state)
{
    (void)state;
    uint64_t rng = 0x1234567;
    for (unsigned d = 1; d <= 3000; d++)
        for (unsigned t = 0; t <= d; t += 1 + d / 300)
            f6_check((double)t / (double)d);
    for (unsigned k = 7; k <= 20; k++)
        for (uint64_t j = 1; j < ((uint64_t)1 << k) && j < 5000; j += 2)
            f6_check((double)j / (double)((uint64_t)1 << k));
    for (int i = 0; i < 200000; i++) {
        uint64_t x = ndd_test_xorshift(&rng), bits = x % ((uint64_t)(1023 + 32) << 52);
        double v;
        memcpy(&v, &bits, sizeof v);
        f6_check(v);
        f6_check(v * 1e-9);
        f6_check((double)(x % 100000) / 100000.0 + 0.0000005);
    }
    static const double odd[] = {0.0, 1.0, 0.5, 0.0000005, 0.0000015, 0.9999995, 0.99999949999999995,
                                 4294967295.9999995, 4294967296.0, 1e300, -0.0, -0.25, 5e-324, 2.2250738585072014e-308};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        f6_check(odd[i]);
    char a[32];
    assert_int_equal(ndd_fmt_f6(a, 1.0 / 0.0), 0);
    assert_int_equal(ndd_fmt_f6(a, 0.0 / 0.0), 0);
    assert_int_equal(ndd_fmt_f6(a, 4294967296.0), 0);
    assert_int_equal(ndd_fmt_f6(a, 4294967295.0), 17);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ndd_u64_sort (quicksort below 8,192 values, radix sort above) against
 * qsort, repeats kept: random values of 1, 4, 20 and 64 bits (many and few
 * repeats) and the quicksort's hard inputs - sorted, reversed, all equal,
 * organ pipe, sawtooth - at every length up to 600. */
static void test_u64_sort(void **state)
{
    (void)state;
    uint64_t rs = 0x2545F4914F6CDD1DULL;
    static uint64_t v[600], w[600];
    for (size_t n = 0; n <= 600; n++)
        for (int kind = 0; kind < 9; kind++) {
            for (size_t i = 0; i < n; i++) {
                rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
                uint64_t x = kind == 0 ? rs & 1
                             : kind == 1 ? rs & 15
                             : kind == 2 ? rs & 0xFFFFF
                             : kind == 3 ? rs
                             : kind == 4 ? i
                             : kind == 5 ? n - i
                             : kind == 6 ? 7
                             : kind == 7 ? (i < n / 2 ? i : n - i)
                                         : i % 17;
                v[i] = w[i] = x;
            }
            qsort(w, n, sizeof *w, cmp_u64);
            ndd_u64_sort(v, n);
            assert_memory_equal(v, w, n * sizeof *v + (n == 0));
        }
}

/* ndd_u64_sort_unique (quicksort below 8,192 values, radix sort above)
 * against qsort + a plain unique pass, over small, 20-bit, 40-bit and
 * full-width values, with many and with few repeats, on both sides of
 * 8,192. */
static void test_sort_unique(void **state)
{
    (void)state;
    uint64_t rs = 0x9E3779B97F4A7C15ULL;
    static uint64_t v[20000], w[20000];
    for (int round = 0; round < 200; round++) {
        size_t n = round % 4 == 0 ? (size_t)(round % 300)
                   : round % 2    ? 256 + (size_t)(round * 23 % 7900)
                                  : 8000 + (size_t)(round * 97 % 12000);
        unsigned bits = (unsigned[]){4, 20, 40, 64}[round % 4 == 0 ? round / 4 % 4 : round % 4];
        for (size_t i = 0; i < n; i++) {
            rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
            v[i] = w[i] = bits == 64 ? rs : rs & (((uint64_t)1 << bits) - 1);
        }
        qsort(w, n, sizeof *w, cmp_u64);
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (!m || w[i] != w[m - 1])
                w[m++] = w[i];
        assert_int_equal(ndd_u64_sort_unique(v, n), m);
        assert_memory_equal(v, w, m * sizeof *v);
    }
}

/* ndd_popcount64 against a bit-by-bit count: every single bit, 0, all
 * ones, and random values of every density (bits ANDed or ORed together). */
/* ndd_fastmod against %: divisors 1, 2, every rank count to 1,100, powers of
 * two and their neighbours, huge and random ones, each against 0, 1, d - 1,
 * d, d + 1, the largest values and random numerators. */
static void test_fastmod(void **state)
{
    (void)state;
    uint64_t rs = 0x9E3779B97F4A7C15ULL, ds[1400];
    size_t nd = 0;
    for (uint64_t d = 1; d <= 1100; d++)
        ds[nd++] = d;
    for (int b = 1; b < 64; b++) {
        ds[nd++] = (uint64_t)1 << b;
        ds[nd++] = ((uint64_t)1 << b) + 1;
        ds[nd++] = ((uint64_t)1 << b) - 1;
    }
    ds[nd++] = ~(uint64_t)0;
    ds[nd++] = ~(uint64_t)0 - 1;
    while (nd < sizeof ds / sizeof *ds) {
        rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
        ds[nd++] = rs >> (rs & 63) | 1;
    }
    for (size_t i = 0; i < nd; i++) {
        uint64_t d = ds[i];
        ndd_fastmod_t f = ndd_fastmod_init(d);
        uint64_t as[8] = {0, 1, d - 1, d, d + 1, ~(uint64_t)0, ~(uint64_t)0 - d, (uint64_t)1 << 63};
        for (int k = 0; k < 8; k++)
            assert_true(ndd_fastmod(&f, as[k]) == as[k] % d);
        for (int k = 0; k < 200; k++) {
            rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
            uint64_t a = k % 2 ? rs : rs >> (rs % 64);
            assert_true(ndd_fastmod(&f, a) == a % d);
        }
    }
}

static void test_popcount64(void **state)
{
    (void)state;
    uint64_t rs = 0x2545F4914F6CDD1DULL;
    for (int i = 0; i < 64; i++)
        assert_int_equal(ndd_popcount64((uint64_t)1 << i), 1);
    assert_int_equal(ndd_popcount64(0), 0);
    assert_int_equal(ndd_popcount64(~(uint64_t)0), 64);
    for (int round = 0; round < 20000; round++) {
        uint64_t x = 0;
        for (int k = 0; k < 3; k++) {
            rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
            x = k == 0 ? rs : round % 3 == 0 ? x & rs : round % 3 == 1 ? x | rs : x;
        }
        unsigned n = 0;
        for (int b = 0; b < 64; b++)
            n += (unsigned)(x >> b & 1);
        assert_int_equal(ndd_popcount64(x), n);
    }
}

static int nodelay_of(int fd)
{
    int v = -1;
    socklen_t l = sizeof v;
    assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &l), 0);
    return v != 0;
}

/* A loopback TCP connection (both ends) gets TCP_NODELAY; a listening
 * socket, a UDP socket and a Unix socket pair are left alone. */
/* ndd_fmt_u64 against printf's "%llu": 0, each power of ten and its
 * neighbours, UINT64_MAX, random values. */
static void test_fmt_u64(void **state)
{
    (void)state;
    char got[24], want[32];
    uint64_t v = 1, rs = 42;
    for (int k = 0; k < 2000; k++) {
        uint64_t x = k < 20 ? v - 1 : k < 40 ? v : k == 40 ? UINT64_MAX : ndd_test_xorshift(&rs) >> (k % 64);
        if (k < 40 && k % 20 == 19)
            v = 1;
        else if (k < 40)
            v *= 10;
        size_t n = ndd_fmt_u64(got, x);
        snprintf(want, sizeof want, "%llu", (unsigned long long)x);
        assert_int_equal(n, strlen(want));
        assert_string_equal(got, want);
    }
}

static void test_loopback_nodelay(void **state)
{
    (void)state;
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int lis = socket(AF_INET, SOCK_STREAM, 0), udp = socket(AF_INET, SOCK_DGRAM, 0), up[2];
    assert_true(lis >= 0 && udp >= 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, up), 0);
    assert_int_equal(bind(lis, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(lis, 1), 0);
    assert_int_equal(getsockname(lis, (struct sockaddr *)&a, &al), 0);
    int cli = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(cli >= 0);
    assert_int_equal(connect(cli, (struct sockaddr *)&a, sizeof a), 0);
    int srv = accept(lis, NULL, NULL);
    assert_true(srv >= 0);
    assert_false(nodelay_of(cli)); /* the default: Nagle's rule on */
    assert_false(nodelay_of(srv));
    int n = ndd_loopback_nodelay();
    if (n < 0) { /* no /proc/self/fd: nothing can be said */
        skip();
    }
    assert_int_equal(n, 2); /* the two ends; nothing else of this test process is connected */
    assert_true(nodelay_of(cli));
    assert_true(nodelay_of(srv));
    assert_false(nodelay_of(lis));
    close(cli);
    close(srv);
    close(lis);
    close(udp);
    close(up[0]);
    close(up[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buf),
        cmocka_unit_test(test_big_blocks),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_utf8_valid),
        cmocka_unit_test(test_utf8_encode_cut),
        cmocka_unit_test(test_escape), cmocka_unit_test(test_fmt_f6),
        cmocka_unit_test(test_u64_sort),
        cmocka_unit_test(test_sort_unique),
        cmocka_unit_test(test_popcount64),
        cmocka_unit_test(test_fastmod),
        cmocka_unit_test(test_fmt_u64),
        cmocka_unit_test(test_loopback_nodelay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
