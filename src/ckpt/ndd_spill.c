/* ndd_spill.c - spill files (ndd_spill.h). */
#include "ndd_spill.h"
#include "ndd_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CUR_PIECE ((size_t)1 << 20)

int ndd_spill_open(ndd_spill_t *s, const char *wd, const char *name, int rank)
{
    char dir[4096];
    s->fd = -1;
    s->err = 0;
    s->len = 0;
    if (snprintf(dir, sizeof dir, "%s/spill", wd) >= (int)sizeof dir ||
        snprintf(s->path, sizeof s->path, "%s/%s-%d", dir, name, rank) >= (int)sizeof s->path)
        return NDD_ERR_INVAL;
    s->err = 0;
    if (mkdir(dir, 0777) && errno != EEXIST) {
        s->err = errno;
        return NDD_ERR_IO;
    }
    s->fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    s->err = s->fd < 0 ? errno : 0;
    return s->fd < 0 ? NDD_ERR_IO : NDD_OK;
}

int ndd_spill_write(ndd_spill_t *s, const void *p, size_t n, uint64_t *off)
{
    const char *q = p;
    if (off)
        *off = s->len;
    if (s->fd < 0)
        return NDD_ERR_IO;
    while (n) {
        ssize_t w = pwrite(s->fd, q, n, (off_t)s->len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            s->err = w < 0 ? errno : ENOSPC; /* ENOSPC: a full disk */
            return NDD_ERR_IO;
        }
        q += w;
        n -= (size_t)w;
        s->len += (uint64_t)w;
    }
    return NDD_OK;
}

int ndd_spill_read(const ndd_spill_t *s, uint64_t off, void *p, size_t n)
{
    char *q = p;
    if (s->fd < 0)
        return NDD_ERR_IO;
    if (off > s->len || n > s->len - off)
        return NDD_ERR_FORMAT;
    while (n) {
        ssize_t r = pread(s->fd, q, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return NDD_ERR_IO;
        if (r == 0)
            return NDD_ERR_FORMAT; /* shorter than written: truncated behind our back */
        q += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return NDD_OK;
}

const char *ndd_spill_error(const ndd_spill_t *s) { return s->err ? strerror(s->err) : "unknown error"; }

void ndd_spill_close(ndd_spill_t *s)
{
    if (s->fd >= 0) {
        close(s->fd);
        unlink(s->path);
    }
    s->fd = -1;
    s->len = 0;
}

void ndd_spill_cur_init(ndd_spill_cur_t *c, const ndd_spill_t *s, uint64_t off, uint64_t end)
{
    *c = (ndd_spill_cur_t){s, off, end, NULL, 0, 0, 0};
}

int ndd_spill_cur_next(ndd_spill_cur_t *c, size_t n, const void **p)
{
    if (n > CUR_PIECE)
        return NDD_ERR_INVAL;
    if (c->len - c->at < n) { /* refill: the unread tail moves to the front */
        size_t keep = c->len - c->at;
        if (!c->buf) {
            if (!(c->buf = malloc(CUR_PIECE)))
                return NDD_ERR_NOMEM;
            c->cap = CUR_PIECE;
        }
        memmove(c->buf, c->buf + c->at, keep);
        uint64_t want = c->cap - keep, left = c->end - c->off;
        size_t take = (size_t)(want < left ? want : left);
        int rc = take ? ndd_spill_read(c->s, c->off, c->buf + keep, take) : NDD_OK;
        if (rc)
            return rc;
        c->off += take;
        c->at = 0;
        c->len = keep + take;
        if (c->len < n)
            return c->len ? NDD_ERR_FORMAT : 0;
    }
    *p = c->buf + c->at;
    c->at += n;
    return 1;
}

void ndd_spill_cur_free(ndd_spill_cur_t *c)
{
    free(c->buf);
    c->buf = NULL;
    c->at = c->len = c->cap = 0;
}
