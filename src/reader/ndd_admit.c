/* ndd_admit.c - archive controls (see ndd_reader.h): which records a run or
 * a flow reads, by media type and URL patterns. */
#include "ndd_reader.h"

#include <fnmatch.h>
#include <string.h>
#include <strings.h>

/* 1 when the '\x1f'-separated glob list pats has a pattern matching s. */
static int glob_any(const char *pats, const char *s)
{
    char one[1024];
    for (const char *p = pats; p && *p;) {
        const char *e = strchr(p, '\x1f');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n < sizeof one) {
            memcpy(one, p, n);
            one[n] = '\0';
            if (n && fnmatch(one, s, 0) == 0)
                return 1;
        }
        p = e ? e + 1 : p + n;
    }
    return 0;
}

/* 1 when media type t is in the comma-separated list (case-insensitive). */
static int ctype_listed(const char *list, const char *t)
{
    size_t tn = strlen(t);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && *p == ' ')
            p++, n--;
        while (n && p[n - 1] == ' ')
            n--;
        if (n == tn && !strncasecmp(p, t, n))
            return 1;
        if (n == 1 && *p == '*')
            return 1;
        p = e ? e + 1 : p + n;
    }
    return 0;
}

const char *ndd_reader_admit(const char *types, const char *url_include, const char *url_exclude, const ndd_doc_t *doc)
{
    if (types && doc->ctype && *doc->ctype && !ctype_listed(types, doc->ctype))
        return "content type not selected (--content-types)";
    if (doc->url && *doc->url) {
        if (url_include && !glob_any(url_include, doc->url))
            return "URL not included (--url-include)";
        if (url_exclude && glob_any(url_exclude, doc->url))
            return "URL excluded (--url-exclude)";
    }
    return NULL;
}
