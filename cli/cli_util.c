/* cli_util.c - helpers shared by the subcommands: usage errors and strict
 * parsing of option values. Local. */
#include "ndd_cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ndd_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "ndd %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'ndd %s --help'.\n", cmd);
    return NDD_EXIT_USAGE;
}

int ndd_cli_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) /* no option takes nan or inf */
        return -1;
    *out = v;
    return 0;
}

int ndd_cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int ndd_cli_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    unsigned long long mul = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1ull << 10; break;
        case 'm': case 'M': mul = 1ull << 20; break;
        case 'g': case 'G': mul = 1ull << 30; break;
        case 't': case 'T': mul = 1ull << 40; break;
        default: return -1;
        }
        if (end[1] && !(end[1] == 'B' && !end[2]) && !(end[1] == 'i' && end[2] == 'B' && !end[3]))
            return -1;
    }
    if (v > SIZE_MAX / mul)
        return -1;
    *out = (size_t)(v * mul);
    return 0;
}

const char *ndd_cli_optname(const struct option *opts, int longidx, int ch)
{
    static char buf[80];
    if (longidx >= 0 && opts[longidx].name)
        snprintf(buf, sizeof buf, "--%s", opts[longidx].name);
    else
        snprintf(buf, sizeof buf, "-%c", ch);
    return buf;
}

const char *ndd_cli_why(int rc, int err)
{
    return rc == NDD_ERR_IO && err > 0 ? strerror(err) : ndd_strerror(rc);
}

int ndd_cli_archive_opt(const char *cmd, const char *name, int kind, const char *arg, ndd_cli_archive_t *a)
{
    if (kind == NDD_CLI_CTYPES) {
        if (!*arg || strchr(arg, '\n'))
            return ndd_cli_usage_error(cmd, "--content-types takes media types separated by commas, such as "
                                       "text/html,text/plain (or *), not '%s'", arg);
        a->types = arg;
        return 0;
    }
    ndd_buf_t *b = kind == NDD_CLI_URL_INCLUDE ? &a->inc : &a->exc;
    if (strchr(arg, '\n') || strchr(arg, '\x1f') || strlen(arg) >= 1024)
        return ndd_cli_usage_error(cmd, "%s takes a glob pattern (shorter than 1024 bytes, no newline), not '%s'",
                                   name, arg);
    if (kind == NDD_CLI_URL_EXCLUDE)
        a->exc_given = 1;
    if (kind == NDD_CLI_URL_EXCLUDE && !strcmp(arg, "none"))
        return 0;
    if ((b->len && ndd_buf_putc(b, '\x1f')) || ndd_buf_puts(b, arg))
        return ndd_cli_usage_error(cmd, "out of memory");
    return 0;
}

const char *ndd_cli_archive_types(const ndd_cli_archive_t *a) { return a->types ? a->types : NDD_DEFAULT_CONTENT_TYPES; }
const char *ndd_cli_archive_include(const ndd_cli_archive_t *a) { return a->inc.len ? a->inc.data : NULL; }
const char *ndd_cli_archive_exclude(const ndd_cli_archive_t *a)
{
    return !a->exc_given ? NDD_DEFAULT_URL_EXCLUDE : a->exc.len ? a->exc.data : NULL;
}

void ndd_cli_archive_free(ndd_cli_archive_t *a)
{
    ndd_buf_free(&a->inc);
    ndd_buf_free(&a->exc);
}
