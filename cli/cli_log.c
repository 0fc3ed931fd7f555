/* cli_log.c - where the core's messages and progress reports go: stderr,
 * with time and rank (see ndd_cli.h). Each line is formatted first and
 * written with one call, so that the lines of the ranks of the local engine
 * (threads of one process) do not interleave. */
#include "ndd_cli.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

void ndd_cli_log(void *user, int rank, int level, const char *msg)
{
    static const char *names[] = {"error", "info", "debug"};
    const ndd_cli_log_t *lg = user;
    if (level > (lg ? lg->level : 1))
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[32];
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    char line[1200];
    snprintf(line, sizeof line, "[%s.%03ld ndd r%d %s] %s\n", when, ts.tv_nsec / 1000000L, rank,
             names[level < 0 ? 0 : level > 2 ? 2 : level], msg);
    fputs(line, stderr);
}

void ndd_cli_logf(const ndd_cli_log_t *lg, int rank, int level, const char *fmt, ...)
{
    if (level > (lg ? lg->level : 1))
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ndd_cli_log((void *)lg, rank, level, msg);
}

/* Typical shares of a job's time by stage (read, templates, exact,
 * postings, sets, verify, outputs, dedup), from the bench-run corpus's stage
 * table (docs/BENCHMARKS.md): the overall estimate weighs the stages done
 * and the current one's done share by them. A rough guide: the verify
 * share moves with the corpus (more near-duplicates, more verification). */
static const double stage_share[] = {0.14, 0.04, 0.002, 0.10, 0.06, 0.62, 0.025, 0.02};

/* " job ~P % done, ETA ~S s" for the whole run, or "" when too early to say. */
static void job_eta(const ndd_progress_report_t *rep, int with_dedup, double stage_frac, char *out, size_t cap)
{
    const int ns = (int)(sizeof stage_share / sizeof stage_share[0]);
    double all = 0, before = 0;
    out[0] = '\0';
    if (rep->stage_no < 1 || rep->stage_no > ns || rep->nstages != ns)
        return;
    for (int k = 0; k < ns - !with_dedup; k++) { /* the dedup stage (last) only when it runs */
        all += stage_share[k];
        if (k < rep->stage_no - 1)
            before += stage_share[k];
    }
    double f = (before + stage_share[rep->stage_no - 1] * stage_frac) / all;
    if (f < 0.01 || rep->run_elapsed <= 0)
        return;
    if (f > 1)
        f = 1;
    snprintf(out, cap, ", job ~%.0f %% done, ETA ~%.0f s", 100 * f, rep->run_elapsed * (1 - f) / f);
}

void ndd_cli_progress(void *user, const ndd_progress_report_t *rep)
{
    int with_dedup = user ? *(const int *)user : 0;
    double el = rep->elapsed;
    double done = (double)rep->done, total = (double)rep->total;
    double rate = el > 0 ? done / el : 0;
    int bytes = !strcmp(rep->unit, "bytes");
    char where[64] = "", line[640], amount[160], job[96];
    job_eta(rep, with_dedup, !rep->unit[0] || rep->final ? 1.0 : total > 0 ? done / total : 0.0, job, sizeof job);
    if (rep->stage_no > 0)
        snprintf(where, sizeof where, " (stage %d of %d, %.1f s into the run)", rep->stage_no, rep->nstages,
                 rep->run_elapsed);
    if (!rep->unit[0]) { /* a stage that counts no items: its end */
        snprintf(line, sizeof line, "[progress] %-10s done, took %.1f s%s%s\n", rep->stage, el, job, where);
        fputs(line, stderr);
        return;
    }
    char eta[32] = "-";
    if (rep->final)
        snprintf(eta, sizeof eta, "%.1f s", el);
    else if (rate > 0 && total > done)
        snprintf(eta, sizeof eta, "%.0f s", (total - done) / rate);
    if (bytes) /* MB with one decimal; counted items as integers */
        snprintf(amount, sizeof amount, "%.1f / %.1f MB (%.1f %%), %.1f MB/s", done / (1 << 20), total / (1 << 20),
                 total > 0 ? 100.0 * done / total : 100.0, rate / (1 << 20));
    else
        snprintf(amount, sizeof amount, "%llu / %llu %s (%.1f %%), %.0f %s/s", (unsigned long long)rep->done,
                 (unsigned long long)rep->total, rep->unit, total > 0 ? 100.0 * done / total : 100.0, rate, rep->unit);
    snprintf(line, sizeof line, "[progress] %-10s %s, %s %s, %llu of %d ranks done%s%s\n", rep->stage, amount,
             rep->final ? "took" : "ETA", eta, (unsigned long long)rep->ranks_done, rep->ranks, job, where);
    fputs(line, stderr);
}
