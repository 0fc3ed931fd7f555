/* ndd_input.c - expansion of the user's paths into a deterministic list of
 * input files with resolved format and compression. See ndd_reader.h. */
#include "ndd_reader_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IN_MAX_DEPTH 64
#define IN_SNIFF 256

typedef struct {
    ndd_input_t *v;
    size_t n, cap;
    ndd_format_t fmt;
} in_list_t;

typedef struct {
    dev_t dev;
    ino_t ino;
} in_dirid_t;

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

static int in_add(in_list_t *l, const char *path, const char *name, const struct stat *st)
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
    in->splittable = f == NDD_FMT_JSONL && comp == 0;
    return NDD_OK;
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

/* Walks directory dir (rel: its name relative to the argument, "" at the top). */
static int in_walk(in_list_t *l, const char *dir, const char *rel, in_dirid_t *stack, int depth, int top)
{
    int rc = NDD_OK;
    char **names = NULL;
    size_t nn = 0, cn = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (top)
            return NDD_ERR_IO;
        struct stat st;
        int have = stat(dir, &st) == 0;
        return in_add(l, dir, rel, have ? &st : NULL); /* the reader reports it */
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
            int loop = depth >= IN_MAX_DEPTH;
            for (int k = 0; k < depth && !loop; k++)
                loop = stack[k].dev == st.st_dev && stack[k].ino == st.st_ino;
            if (!loop) {
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
    closedir(d);
    return rc;
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
    int rc = NDD_OK;
    in_list_t l = {NULL, 0, 0, fmt};
    in_dirid_t stack[IN_MAX_DEPTH + 1];
    *out = NULL;
    *nout = 0;
    if (bad_path)
        *bad_path = NULL;
    for (size_t i = 0; i < npaths && rc == NDD_OK; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            rc = NDD_ERR_IO;
        } else if (S_ISDIR(st.st_mode)) {
            stack[0].dev = st.st_dev;
            stack[0].ino = st.st_ino;
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
        if (rc == NDD_ERR_IO && bad_path)
            *bad_path = paths[i];
    }
    if (rc) {
        int e = errno;
        ndd_input_free(l.v, l.n);
        errno = e;
        return rc;
    }
    *out = l.v;
    *nout = l.n;
    return NDD_OK;
}
