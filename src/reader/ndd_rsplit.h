/* ndd_rsplit.h - where a compressed input can be cut between tasks
 * (internal to src/reader). Written by hand only the boundary finding:
 * decoding stays with zlib and libzstd.
 *
 * gzip, one member per WARC record: a cut point is a gzip member (magic
 * 1f 8b 08 + a flag byte without reserved bits) whose data begins with
 * "WARC/", checked by inflating its first bytes (as CDX indexers do), so a
 * chance magic inside compressed data or an empty member is never taken.
 * A whole member kept verbatim inside another one (a record whose payload
 * is a .warc.gz, which deflate keeps in stored blocks) is no cut point
 * either: when a stored block's header before the magic covers it, the
 * enclosing stream's end is found from the blocks after it, and a member
 * that begins before the magic and inflates, CRC checked, up to exactly
 * that end proves the magic is inside it; the search goes on after it.
 *
 * zstd frames: the frame chain is walked from the start of the file with
 * ZSTD_findFrameCompressedSize (no magic search: only true frame starts),
 * summing ZSTD_getFrameContentSize (a frame that does not declare its size
 * is decoded to count it), so the decompressed offset of every frame start
 * is exact. Where the chain breaks (damage) the walk ends: no cut point
 * lies after it. */
#ifndef NDD_RSPLIT_H
#define NDD_RSPLIT_H

#include <stdint.h>
#include "ndd_reader.h"

/* First offset >= from of a gzip member of file fd (size fsize) whose data
 * begins with "WARC/"; UINT64_MAX when none. NDD_OK or <0. */
int ndd_rsplit_gz_next(int fd, uint64_t fsize, uint64_t from, uint64_t *at);

/* Walks the zstd frames of fd from offset 0: *a = the first frame start
 * >= lo and *a_dec its decompressed offset, *b = the first frame start
 * >= hi (UINT64_MAX when there is none, or the chain broke before).
 * NDD_OK or <0. */
int ndd_rsplit_zst_walk(int fd, uint64_t fsize, uint64_t lo, uint64_t hi, uint64_t *a, uint64_t *a_dec, uint64_t *b);

/* The way path (format fmt, compression comp: 1 gzip, 2 zstd) can be split:
 * NDD_SPLIT_GZ_RECORDS for a WARC whose first gzip member holds exactly one
 * record and is followed by a member that begins with "WARC/";
 * NDD_SPLIT_ZST_FRAMES for JSONL whose first zstd frame (read up to
 * NDD_RSPLIT_DETECT_MAX bytes) is followed by another frame; else
 * NDD_SPLIT_NONE. Never fails: an unreadable file is NONE. */
#define NDD_RSPLIT_DETECT_MAX ((size_t)8 << 20)
int ndd_rsplit_detect(const char *path, ndd_format_t fmt, int comp);

#endif
