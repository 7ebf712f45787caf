/*
 * cli/study_formats.c - the CSV forms of outputs that printed text whatever
 * --format said (issue 14): calibrate's measurement table, ubench's clock
 * reads, the key table of `gpus --keys`.  Every field goes through
 * csv_field (RFC 4180).
 */
#include <math.h>
#include <string.h>

#include "cal.h"
#include "cli.h"
#include "dm.h"
#include "study.h"

static void num(FILE *f, double v)
{
    fputc(',', f);
    if (isfinite(v))
        fprintf(f, "%.10g", v);
}

void cli_calibrate_csv(const cal_report *r, FILE *f)
{
    fputs("label,input,source,measured,before,after,error_before,error_after,loo,held_out\n", f);
    for (size_t i = 0; i < r->meas.n; i++) {
        const cal_meas *m = &r->meas.m[i];
        const cal_meas_res *x = &r->mres[i];
        csv_field(f, m->label);
        fputc(',', f);
        csv_field(f, m->path);
        fputc(',', f);
        csv_field(f, m->src);
        num(f, m->measured);
        num(f, x->before);
        num(f, x->after);
        num(f, m->measured != 0 ? (x->before - m->measured) / m->measured : NAN);
        num(f, m->measured != 0 ? (x->after - m->measured) / m->measured : NAN);
        num(f, x->loo);
        fprintf(f, ",%d\n", m->holdout ? 1 : 0);
    }
}

void cli_ubench_csv(const dm_ubench_result *r, FILE *f, int timeline)
{
    if (timeline) {
        fputs("cycle,subcore,warp,pc,op,rfc_hit\n", f);
        for (size_t i = 0; i < r->nevents; i++) {
            const dm_event *e = &r->events[i];
            char hits[16] = "";
            for (unsigned s = 0; s < e->nsrc && s < 8; s++)
                hits[s] = e->rfc_hit[s] ? 'H' : '-';
            fprintf(f, "%llu,%u,%u,0x%04llx,", (unsigned long long)e->cycle, e->subcore,
                    e->warp, (unsigned long long)e->pc);
            csv_field(f, e->op);
            fprintf(f, ",%s\n", hits);
        }
        return;
    }
    fputs("warp,subcore,clock_index,clock,delta\n", f);
    for (unsigned w = 0; w < r->nwarps; w++)
        for (size_t i = 0; i < r->nclocks[w]; i++) {
            fprintf(f, "%u,%u,%zu,%llu,", r->warp[w], r->subcore[w], i,
                    (unsigned long long)r->clocks[w][i]);
            if (i)
                fprintf(f, "%llu", (unsigned long long)(r->clocks[w][i] - r->clocks[w][i - 1]));
            fputc('\n', f);
        }
}

void cli_keys_csv(FILE *f)
{
    static const char *const tname[] = {"int", "real", "string"};
    size_t n = 0;
    const wc_key_desc *k = wc_keys(&n);
    fputs("name,type,default,min,max,unit,help\n", f);
    for (size_t i = 0; i < n; i++) {
        char def[128];
        if (k[i].type == WC_KT_STR)
            snprintf(def, sizeof def, "%s", k[i].sdef ? k[i].sdef : "");
        else if (k[i].type == WC_KT_INT)
            snprintf(def, sizeof def, "%.0f", k[i].def);
        else
            snprintf(def, sizeof def, "%g", k[i].def);
        csv_field(f, k[i].name);
        fprintf(f, ",%s,", tname[k[i].type]);
        csv_field(f, def);
        if (k[i].type == WC_KT_STR)
            fputs(",,", f);
        else
            fprintf(f, ",%.10g,%.10g", k[i].lo, k[i].hi);
        fputc(',', f);
        csv_field(f, k[i].unit);
        fputc(',', f);
        csv_field(f, k[i].help);
        fputc('\n', f);
    }
}
