/* flow_time.c - timestamps and durations of flow mode (ndd_flow.h). */
#include "ndd_flow.h"

#include <string.h>

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
static int64_t flow_days(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* n digits at s -> *v; 0 ok, -1 when one is not a digit. */
static int flow_digits(const char *s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        *v = *v * 10 + (s[i] - '0');
    }
    return 0;
}

static int flow_leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The zone suffix at s ("", "Z", "+hh:mm", "-hh:mm", "+hhmm", "+hh") -> offset seconds. */
static int flow_zone(const char *s, int64_t *off)
{
    int hh, mm = 0;
    *off = 0;
    if (!*s || ((*s == 'Z' || *s == 'z') && !s[1]))
        return NDD_OK;
    if (*s != '+' && *s != '-')
        return NDD_ERR_FORMAT;
    if (flow_digits(s + 1, 2, &hh))
        return NDD_ERR_FORMAT;
    const char *r = s + 3;
    if (*r == ':')
        r++;
    if (*r && (flow_digits(r, 2, &mm) || r[2]))
        return NDD_ERR_FORMAT;
    if (hh > 23 || mm > 59)
        return NDD_ERR_FORMAT;
    *off = (int64_t)(hh * 3600 + mm * 60) * (*s == '-' ? -1 : 1);
    return NDD_OK;
}

int ndd_flow_parse_time(const char *s, int64_t *t)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, mo, d, h = 0, mi = 0, se = 0;
    int64_t off = 0;
    const char *r;
    if (!s || !t)
        return NDD_ERR_INVAL;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    if (n == 14 && !flow_digits(s, 4, &y) && !flow_digits(s + 4, 2, &mo) && !flow_digits(s + 6, 2, &d) &&
        !flow_digits(s + 8, 2, &h) && !flow_digits(s + 10, 2, &mi) && !flow_digits(s + 12, 2, &se))
        goto check;
    if (n < 10 || flow_digits(s, 4, &y) || s[4] != '-' || flow_digits(s + 5, 2, &mo) || s[7] != '-' ||
        flow_digits(s + 8, 2, &d))
        return NDD_ERR_FORMAT;
    r = s + 10;
    if (r < s + n && (*r == 'T' || *r == 't' || *r == ' ')) {
        if (flow_digits(r + 1, 2, &h) || r[3] != ':' || flow_digits(r + 4, 2, &mi))
            return NDD_ERR_FORMAT;
        r += 6;
        if (*r == ':') {
            if (flow_digits(r + 1, 2, &se))
                return NDD_ERR_FORMAT;
            r += 3;
            if (*r == '.' || *r == ',') {
                r++;
                if (*r < '0' || *r > '9')
                    return NDD_ERR_FORMAT;
                while (*r >= '0' && *r <= '9')
                    r++;
            }
        }
    }
    {
        char zone[16];
        size_t zl = (size_t)(s + n - r);
        if (zl >= sizeof zone)
            return NDD_ERR_FORMAT;
        memcpy(zone, r, zl);
        zone[zl] = 0;
        if (flow_zone(zone, &off))
            return NDD_ERR_FORMAT;
    }
check:
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && flow_leap(y)) || h > 23 || mi > 59 ||
        se > 60)
        return NDD_ERR_FORMAT;
    *t = flow_days(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se - off;
    return NDD_OK;
}

int ndd_flow_parse_duration(const char *s, int64_t *sec)
{
    int64_t v = 0, unit;
    const char *p = s;
    if (!s || !sec)
        return NDD_ERR_INVAL;
    if (*p < '0' || *p > '9')
        return NDD_ERR_FORMAT;
    while (*p >= '0' && *p <= '9') {
        if (v > (INT64_C(1) << 40))
            return NDD_ERR_FORMAT;
        v = v * 10 + (*p++ - '0');
    }
    if (!strcmp(p, "s"))
        unit = 1;
    else if (!strcmp(p, "m"))
        unit = 60;
    else if (!strcmp(p, "h"))
        unit = 3600;
    else if (!strcmp(p, "d"))
        unit = 86400;
    else if (!strcmp(p, "w"))
        unit = 7 * 86400;
    else
        return NDD_ERR_FORMAT;
    if (v > (INT64_C(1) << 40) / unit)
        return NDD_ERR_FORMAT;
    *sec = v * unit;
    return NDD_OK;
}
