/* ndd_input.c - expansion of the user's paths into a deterministic list of
 * input files with resolved format and compression. See ndd_reader.h. */
#include "ndd_reader_int.h"
#include "ndd_rsplit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#define IN_SNIFF 256

typedef struct {
    dev_t dev;
    ino_t ino;
} in_dirid_t;

/* A set of (device, inode) pairs: open addressing, grown at half load. */
typedef struct {
    in_dirid_t *v;
    unsigned char *used;
    size_t n, cap;
} in_set_t;

typedef struct {
    ndd_input_t *v;
    size_t n, cap;
    ndd_format_t fmt;
    in_set_t dirs, files; /* walked directories, listed regular files */
} in_list_t;

static size_t in_hash(const in_dirid_t *k, size_t cap)
{
    uint64_t h = ((uint64_t)k->dev * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)k->ino * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 29;
    return (size_t)(h & (cap - 1));
}

/* Adds k to s; 1 when it was there already, 0 when added, <0 on error. */
static int in_set_add(in_set_t *s, dev_t dev, ino_t ino)
{
    in_dirid_t k = {dev, ino};
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        in_dirid_t *v = malloc(cap * sizeof *v);
        unsigned char *u = calloc(cap, 1);
        if (!v || !u) {
            free(v);
            free(u);
            return NDD_ERR_NOMEM;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->used[i]) {
                size_t j = in_hash(&s->v[i], cap);
                while (u[j])
                    j = (j + 1) & (cap - 1);
                u[j] = 1;
                v[j] = s->v[i];
            }
        free(s->v);
        free(s->used);
        s->v = v;
        s->used = u;
        s->cap = cap;
    }
    size_t j = in_hash(&k, s->cap);
    while (s->used[j]) {
        if (s->v[j].dev == dev && s->v[j].ino == ino)
            return 1;
        j = (j + 1) & (s->cap - 1);
    }
    s->used[j] = 1;
    s->v[j] = k;
    s->n++;
    return 0;
}

static void in_set_free(in_set_t *s)
{
    free(s->v);
    free(s->used);
    memset(s, 0, sizeof *s);
}

static int in_ends_with(const char *s, size_t n, const char *suf)
{
    size_t m = strlen(suf);
    return n >= m && ndd_reader_ieq(s + n - m, m, suf);
}

/* Format and compression from the file name (NDD_FMT_AUTO when unknown). */
static ndd_format_t in_by_name(const char *name, int *comp)
{
    size_t n = strlen(name);
    *comp = 0;
    if (in_ends_with(name, n, ".gz")) {
        *comp = 1;
        n -= 3;
    } else if (in_ends_with(name, n, ".zst")) {
        *comp = 2;
        n -= 4;
    } else if (in_ends_with(name, n, ".zstd")) {
        *comp = 2;
        n -= 5;
    }
    if (in_ends_with(name, n, ".jsonl") || in_ends_with(name, n, ".json") || in_ends_with(name, n, ".ndjson"))
        return NDD_FMT_JSONL;
    if (in_ends_with(name, n, ".warc") || in_ends_with(name, n, ".wet"))
        return NDD_FMT_WARC;
    if (in_ends_with(name, n, ".txt") || in_ends_with(name, n, ".text"))
        return NDD_FMT_TEXT;
    if (in_ends_with(name, n, ".html") || in_ends_with(name, n, ".htm") || in_ends_with(name, n, ".xhtml"))
        return NDD_FMT_HTML;
    return NDD_FMT_AUTO;
}

static ndd_format_t in_by_content(const char *b, size_t n)
{
    size_t i = 0;
    if (n >= 3 && (unsigned char)b[0] == 0xEF && (unsigned char)b[1] == 0xBB && (unsigned char)b[2] == 0xBF)
        i = 3;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
        i++;
    if (n - i >= 5 && memcmp(b + i, "WARC/", 5) == 0)
        return NDD_FMT_WARC;
    if (i < n && b[i] == '{')
        return NDD_FMT_JSONL;
    if (i < n && b[i] == '<')
        return NDD_FMT_HTML;
    return NDD_FMT_TEXT;
}

static int in_add_skip(in_list_t *l, const char *path, const char *name, const struct stat *st, const char *skip)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        ndd_input_t *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return NDD_ERR_NOMEM;
        l->v = v;
        l->cap = cap;
    }
    ndd_input_t *in = &l->v[l->n];
    memset(in, 0, sizeof *in);
    in->path = strdup(path);
    in->name = strdup(name);
    if (!in->path || !in->name) {
        free(in->path);
        free(in->name);
        return NDD_ERR_NOMEM;
    }
    l->n++;
    in->file_index = (uint32_t)(l->n - 1);
    in->skip = skip;
    if (skip) { /* listed to be reported, never read */
        in->format = l->fmt != NDD_FMT_AUTO ? l->fmt : NDD_FMT_TEXT;
        return NDD_OK;
    }
    in->size = st ? (uint64_t)st->st_size : 0;
    int comp = 0;
    ndd_format_t f = in_by_name(name, &comp);
    if (l->fmt != NDD_FMT_AUTO)
        f = l->fmt;
    /* look inside unless a plain .txt/.html name says it all */
    int sniff = st && S_ISREG(st->st_mode) && !((f == NDD_FMT_TEXT || f == NDD_FMT_HTML) && comp == 0);
    if (sniff) {
        char b[IN_SNIFF];
        size_t k = 0;
        int c = 0;
        if (ndd_rstream_sniff(path, b, sizeof b, &k, &c) == NDD_OK) {
            comp = c;
            if (f == NDD_FMT_AUTO)
                f = in_by_content(b, k);
        }
    }
    if (f == NDD_FMT_AUTO)
        f = NDD_FMT_TEXT;
    in->format = f;
    in->compression = comp;
    in->splittable = f == NDD_FMT_JSONL && comp == 0 ? NDD_SPLIT_BYTES
                     : sniff                       ? ndd_rsplit_detect(path, f, comp)
                                                   : NDD_SPLIT_NONE;
    return NDD_OK;
}

/* A file to read, unless the same file (device, inode) is listed already. */
static int in_add(in_list_t *l, const char *path, const char *name, const struct stat *st)
{
    if (st && S_ISREG(st->st_mode)) {
        int seen = in_set_add(&l->files, st->st_dev, st->st_ino);
        if (seen < 0)
            return seen;
        if (seen)
            return in_add_skip(l, path, name, NULL, "file already read under another path (symlink or hard link)");
    }
    return in_add_skip(l, path, name, st, NULL);
}

static int in_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *in_join(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    int slash = na > 0 && a[na - 1] != '/';
    char *s = malloc(na + (size_t)slash + nb + 1);
    if (!s)
        return NULL;
    memcpy(s, a, na);
    if (slash)
        s[na] = '/';
    memcpy(s + na + (size_t)slash, b, nb + 1);
    return s;
}

/* Why a directory below an argument could not be opened (a reject reason). */
static const char *in_opendir_reason(int err)
{
    if (err == EMFILE || err == ENFILE)
        return "directory not walked: too many open files (raise ulimit -n)";
    if (err == EACCES || err == EPERM)
        return "directory not walked: permission denied";
    if (err == ENOENT)
        return "directory not walked: it vanished";
    return "directory not walked: cannot open it";
}

/* Walks directory dir (rel: its name relative to the argument, "" at the
 * top). The directory is read whole and closed before its subdirectories
 * are walked, so the walk holds one descriptor whatever the depth. */
static int in_walk(in_list_t *l, const char *dir, const char *rel, in_dirid_t *stack, int depth, int top)
{
    int rc = NDD_OK;
    char **names = NULL;
    size_t nn = 0, cn = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (top)
            return NDD_ERR_IO;
        return in_add_skip(l, dir, rel, NULL, in_opendir_reason(errno)); /* the reader reports it */
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (nn == cn) {
            size_t c = cn ? cn * 2 : 32;
            char **v = realloc(names, c * sizeof *v);
            if (!v) {
                rc = NDD_ERR_NOMEM;
                goto out;
            }
            names = v;
            cn = c;
        }
        if (!(names[nn] = strdup(e->d_name))) {
            rc = NDD_ERR_NOMEM;
            goto out;
        }
        nn++;
    }
    closedir(d);
    d = NULL;
    qsort(names, nn, sizeof *names, in_cmp);
    for (size_t i = 0; i < nn && rc == NDD_OK; i++) {
        char *path = in_join(dir, names[i]);
        char *name = rel[0] ? in_join(rel, names[i]) : strdup(names[i]);
        struct stat st;
        if (!path || !name) {
            rc = NDD_ERR_NOMEM;
        } else if (stat(path, &st) != 0) {
            rc = in_add(l, path, name, NULL); /* dangling link, vanished file: rejected when read */
        } else if (S_ISDIR(st.st_mode)) {
            int loop = 0;
            for (int k = 0; k < depth && !loop; k++)
                loop = stack[k].dev == st.st_dev && stack[k].ino == st.st_ino;
            int seen = loop ? 1 : in_set_add(&l->dirs, st.st_dev, st.st_ino);
            if (seen < 0)
                rc = seen;
            else if (loop)
                rc = in_add_skip(l, path, name, NULL, "directory loop (a symlink to a directory above it): not walked");
            else if (seen)
                rc = in_add_skip(l, path, name, NULL, "directory already walked under another path: not walked again");
            else if (depth >= NDD_INPUT_MAX_DEPTH)
                rc = in_add_skip(l, path, name, NULL, "directory nested too deep (NDD_INPUT_MAX_DEPTH): not walked");
            else {
                stack[depth].dev = st.st_dev;
                stack[depth].ino = st.st_ino;
                rc = in_walk(l, path, name, stack, depth + 1, 0);
            }
        } else {
            rc = in_add(l, path, name, &st);
        }
        free(path);
        free(name);
    }
out:
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    if (d)
        closedir(d);
    return rc;
}

int ndd_input_pin(const ndd_input_t *in, ndd_buf_t *line)
{
    char head[96];
    struct stat st;
    ndd_buf_clear(line);
    if (in->skip) {
        ndd_buf_puts(line, "skip ");
        return ndd_buf_puts(line, in->name);
    }
    if (stat(in->path, &st) != 0) { /* rejected when read: pinned as missing */
        ndd_buf_puts(line, "missing ");
        return ndd_buf_puts(line, in->name);
    }
    XXH3_state_t x;
    XXH3_64bits_reset(&x);
    enum { PART = 65536 };
    char *buf = malloc(PART);
    if (!buf)
        return NDD_ERR_NOMEM;
    int fd = S_ISREG(st.st_mode) ? open(in->path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        off_t size = st.st_size, offs[2] = {0, size > PART ? size - PART : 0};
        for (int k = 0; k < 2; k++) {
            ssize_t got = pread(fd, buf, PART, offs[k]);
            if (got > 0)
                XXH3_64bits_update(&x, buf, (size_t)got);
        }
        close(fd);
    }
    free(buf);
    snprintf(head, sizeof head, "%llu %lld%09ld %016llx ", (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
             (long)st.st_mtim.tv_nsec, (unsigned long long)XXH3_64bits_digest(&x));
    ndd_buf_puts(line, head);
    return ndd_buf_puts(line, in->name);
}

void ndd_input_free(ndd_input_t *in, size_t n)
{
    if (!in)
        return;
    for (size_t i = 0; i < n; i++) {
        free(in[i].path);
        free(in[i].name);
    }
    free(in);
}

int ndd_input_expand(const char *const *paths, size_t npaths, ndd_format_t fmt, ndd_input_t **out, size_t *nout,
                     const char **bad_path)
{
    int rc = NDD_OK, ioerr = 0;
    in_list_t l = {NULL, 0, 0, fmt, {NULL, NULL, 0, 0}, {NULL, NULL, 0, 0}};
    in_dirid_t *stack = malloc((NDD_INPUT_MAX_DEPTH + 1) * sizeof *stack);
    *out = NULL;
    if (!stack)
        return NDD_ERR_NOMEM;
    *nout = 0;
    if (bad_path)
        *bad_path = NULL;
    for (size_t i = 0; i < npaths && rc == NDD_OK; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            rc = NDD_ERR_IO;
        } else if (S_ISDIR(st.st_mode)) {
            int seen = in_set_add(&l.dirs, st.st_dev, st.st_ino);
            stack[0].dev = st.st_dev;
            stack[0].ino = st.st_ino;
            if (seen < 0)
                rc = seen;
            else if (seen) /* the same directory given twice, or inside another argument */
                rc = in_add_skip(&l, paths[i], paths[i], NULL, "directory already walked under another path: not walked again");
            else
                rc = in_walk(&l, paths[i], "", stack, 1, 1);
        } else {
            int fd = open(paths[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
            if (fd < 0) {
                rc = NDD_ERR_IO;
            } else {
                close(fd);
                rc = in_add(&l, paths[i], paths[i], &st);
            }
        }
        if (rc == NDD_ERR_IO) {
            ioerr = errno;
            if (bad_path)
                *bad_path = paths[i];
        }
    }
    free(stack);
    in_set_free(&l.dirs);
    in_set_free(&l.files);
    if (rc) {
        ndd_input_free(l.v, l.n);
        errno = ioerr;
        return rc;
    }
    *out = l.v;
    *nout = l.n;
    return NDD_OK;
}
