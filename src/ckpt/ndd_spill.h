/* ndd_spill.h - spill files of ndd run's memory budget (issue 14): what a
 * stage does not keep in memory lies in WORK/spill/NAME-RANK, written once
 * in appends and read back by offset (pread: the file's pages stay in the
 * page cache, never in the process's resident set). A spill file lives for
 * one stage: ndd_spill_close removes it. Sequential readers (ndd_spill_cur)
 * read a range in 1 MiB pieces. Local functions.
 *
 * Errors: NDD_ERR_IO (errno kept: ENOSPC for a full disk), NDD_ERR_FORMAT
 * for a read past the end (a truncated file), NDD_ERR_NOMEM. */
#ifndef NDD_SPILL_H
#define NDD_SPILL_H

#include <stddef.h>
#include <stdint.h>

typedef struct ndd_spill {
    int fd;             /* -1: closed */
    int err;            /* errno of the last failure (0: none) */
    uint64_t len;       /* bytes written so far */
    char path[4096];
} ndd_spill_t;

#define NDD_SPILL_INIT {-1, 0, 0, ""}

/* What went wrong with s ("No space left on device"), for messages. */
const char *ndd_spill_error(const ndd_spill_t *s);

/* Creates (truncates) WD/spill/NAME-RANK (and WD/spill). */
int ndd_spill_open(ndd_spill_t *s, const char *wd, const char *name, int rank);
/* Appends p[0..n); *off (may be NULL) = where it starts. */
int ndd_spill_write(ndd_spill_t *s, const void *p, size_t n, uint64_t *off);
/* Reads n bytes at off into p. */
int ndd_spill_read(const ndd_spill_t *s, uint64_t off, void *p, size_t n);
/* Closes and removes the file (no-op when closed). */
void ndd_spill_close(ndd_spill_t *s);

/* A sequential reader of bytes [off, end) of a spill file. */
typedef struct ndd_spill_cur {
    const ndd_spill_t *s;
    uint64_t off, end;
    char *buf;
    size_t at, len, cap;
} ndd_spill_cur_t;

void ndd_spill_cur_init(ndd_spill_cur_t *c, const ndd_spill_t *s, uint64_t off, uint64_t end);
/* Points *p at the next n bytes (n <= 1 MiB; valid until the next call):
 * 1 when read, 0 at the end of the range, or an NDD_ERR_* (a range that
 * ends inside a record: NDD_ERR_FORMAT). */
int ndd_spill_cur_next(ndd_spill_cur_t *c, size_t n, const void **p);
void ndd_spill_cur_free(ndd_spill_cur_t *c);

#endif
