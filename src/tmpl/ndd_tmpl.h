/* ndd_tmpl.h - template blocks of text without markup (issue 11): blocks
 * (the '\n'-separated lines of the normalised text) that repeat on many
 * pages of one site, or short blocks repeated on many sites, are a template
 * (navigation, sidebars, footers, cookie notices left in WET records and
 * extracted page text). They are removed from the text that signatures and
 * the verifiers see (never from --write-dedup's corpus).
 *
 * The job is a MapReduce step: every document emits one occurrence record
 * per distinct block; records go to the owner of the block hash; the owner
 * sees every occurrence of its blocks and decides, per occurrence, template
 * or not (ndd_tmpl_decide); the flags go back to the documents, which drop
 * their template blocks (ndd_tmpl_strip). Decisions depend only on the
 * multiset of occurrences: the same for any rank count.
 * Plain C, no MPI, no printing. Rules and figures: docs/templates.md. */
#ifndef NDD_TMPL_H
#define NDD_TMPL_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"
#include "ndd_wire.h"

typedef struct ndd_tmpl_params {
    uint32_t min_pages;      /* site template: on >= min_pages distinct pages (URLs) of one site; 0 = rule off */
    uint32_t min_sites;      /* corpus template: a short block on >= min_sites distinct sites; 0 = rule off */
    uint32_t max_short;      /* "short" = at most this many bytes (the corpus rule only) */
} ndd_tmpl_params_t;

#define NDD_TMPL_DEFAULT_MIN_PAGES 5
#define NDD_TMPL_DEFAULT_MIN_SITES 10
#define NDD_TMPL_DEFAULT_MAX_SHORT 100
/* With the pass, the map stage keeps this many times --max-doc-bytes of
 * text, so that the first --max-doc-bytes of what is left after the
 * templates are gone can be kept. */
#define NDD_TMPL_READ_FACTOR 3

void ndd_tmpl_params_default(ndd_tmpl_params_t *p);

/* One block of one page. Wire form: 20 bytes LE (u64 block, u32 page, u32
 * site, u32 content). */
typedef struct ndd_tmpl_occ {
    uint64_t block;   /* ndd_tmpl_block_hash: top bit set = short block */
    uint32_t page;    /* ndd_tmpl_page_key (distinct pages of a site) */
    uint32_t site;    /* site id (ndd_url_site; 0 = unknown: no site rule) */
    uint32_t content; /* hash of the document's set of blocks: one text served
                       * under many URLs is one content */
} ndd_tmpl_occ_t;

#define NDD_TMPL_OCC_BYTES 20
#define NDD_TMPL_SHORT_BIT ((uint64_t)1 << 63)

/* An occurrence as NDD_TMPL_OCC_BYTES little-endian bytes (u64 block, u32
 * page, site, content): the template pass's exchange and the index's
 * occurrence files. */
static inline void ndd_tmpl_occ_store(char *q, const ndd_tmpl_occ_t *o)
{
    ndd_le64_store(q, o->block);
    ndd_le32_store(q + 8, o->page);
    ndd_le32_store(q + 12, o->site);
    ndd_le32_store(q + 16, o->content);
}

static inline ndd_tmpl_occ_t ndd_tmpl_occ_load(const char *q)
{
    return (ndd_tmpl_occ_t){ndd_le64_load(q), ndd_le32_load(q + 8), ndd_le32_load(q + 12), ndd_le32_load(q + 16)};
}

/* Hash of one block: ASCII letters case-folded, runs of spaces collapsed
 * (the text is normalised already), leading/trailing spaces ignored; the top
 * bit says whether the block has at most max_short bytes. Never 0. */
uint64_t ndd_tmpl_block_hash(const char *s, size_t n, uint32_t max_short);
/* Key of a page: a hash of its URL without scheme, "www.", default port,
 * fragment and trailing '/' (captures of one URL are one page); id when the
 * URL is empty. */
uint32_t ndd_tmpl_page_key(const char *url, const char *id);

/* The distinct non-empty blocks of text[0..n) as occurrences of (page,
 * site), appended to *v (grown with ndd_array_grow); sorted by block and
 * unique; content = a hash of this sorted list. */
int ndd_tmpl_doc_occ(const char *text, size_t n, uint32_t page, uint32_t site, uint32_t max_short,
                     ndd_tmpl_occ_t **v, size_t *nv, size_t *cap);
/* The same, and every block's hash in text order (0 for a blank block)
 * appended to *seq (grown with ndd_array_grow; *nseq its length): what
 * ndd_tmpl_strip_seq takes instead of hashing the blocks again. seq NULL:
 * ndd_tmpl_doc_occ. */
int ndd_tmpl_doc_occ_seq(const char *text, size_t n, uint32_t page, uint32_t site, uint32_t max_short,
                         ndd_tmpl_occ_t **v, size_t *nv, size_t *cap, uint64_t **seq, size_t *nseq, size_t *seqcap);

/* What the owner of some blocks decided (counts of distinct blocks). */
typedef struct ndd_tmpl_decided {
    uint64_t site_blocks;   /* (site, block) pairs that are a site template */
    uint64_t corpus_blocks; /* blocks that are a corpus template */
} ndd_tmpl_decided_t;

/* occ[0..n): every occurrence of the blocks this caller owns, in any order
 * (not modified). flag[i] = 1 when occurrence i is a template: its (site,
 * block) has >= min_pages distinct pages and >= min_pages distinct contents
 * (site != 0), or its block is short and on >= min_sites distinct sites
 * (site != 0 counted). Work space is allocated inside. dec (may be NULL) +=
 * the counts. */
int ndd_tmpl_decide(const ndd_tmpl_params_t *p, const ndd_tmpl_occ_t *occ, size_t n, uint8_t *flag,
                    ndd_tmpl_decided_t *dec);

/* Copies text[0..n) without the blocks whose hash is in tmpl[0..ntmpl)
 * (sorted, unique) into out (cleared first), blocks joined by '\n', then
 * cut at max_bytes (0 = no limit) without splitting a UTF-8 character.
 * *removed (may be NULL) = bytes of the removed blocks. A text that would
 * be left without any block keeps all of them (*removed = 0): a document
 * made only of repeated blocks is compared whole, never emptied. */
int ndd_tmpl_strip(const char *text, size_t n, const uint64_t *tmpl, size_t ntmpl, uint32_t max_short,
                   size_t max_bytes, ndd_buf_t *out, size_t *removed);
/* ndd_tmpl_strip with the blocks' hashes seq[0..nseq) made by
 * ndd_tmpl_doc_occ_seq on the same text (and max_short): the same output,
 * without hashing a block again. NDD_ERR_INVAL when seq does not have one
 * hash per block of text. */
int ndd_tmpl_strip_seq(const char *text, size_t n, const uint64_t *seq, size_t nseq, const uint64_t *tmpl,
                       size_t ntmpl, size_t max_bytes, ndd_buf_t *out, size_t *removed);

#endif
