/*
 * docs/library-example.c - calling libwarpcast from C: predict every kernel
 * of a trace with the hybrid model on a GPU with fewer SMs (a what-if).
 *
 *   cc -std=c11 library-example.c $(pkg-config --cflags --libs --static warpcast) -o example
 *   WARPCAST_DATA=$(pkg-config --variable=datadir warpcast) ./example TRACE [NUM_SMS]
 *
 * The library returns errors in a wc_diag and never prints or exits.
 */
#include <stdio.h>
#include <stdlib.h>

#include <smp.h> /* the hybrid sampler; im.h: interval model, dm.h: detailed */
#include <wc.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s TRACE [NUM_SMS]\n", argv[0]);
        return 1;
    }
    wc_diag d = {0};
    char msg[2600];
    wc_trace *t = NULL;
    if (wc_trace_open(argv[1], &t, &d) != 0 || wc_trace_nkernels(t) == 0) {
        wc_diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    /* the bundled config for the trace's -binary version, then a what-if */
    static wc_gpu g; /* large: not on the stack */
    const char *name = wc_gpu_for_binary(wc_trace_kernel(t, 0)->binary_version);
    char set[64];
    snprintf(set, sizeof set, "num_sms=%s", argc > 2 ? argv[2] : "66");
    if (wc_gpu_load(name ? name : "h100-pcie", &g, &d) != 0 ||
        wc_gpu_set(&g, set, &d) != 0) {
        wc_diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        wc_trace_close(t);
        return 2;
    }
    smp_options o;
    smp_options_default(&o);
    o.seed = 1;
    unsigned long long total = 0;
    for (size_t k = 0; k < wc_trace_nkernels(t); k++) {
        smp_kernel_result r;
        if (smp_run_kernel(t, k, &g, &o, &r, &d) != 0) {
            wc_diag_format(&d, msg, sizeof msg);
            fprintf(stderr, "%s\n", msg);
            wc_trace_close(t);
            return 2;
        }
        printf("%-40s %10llu cycles\n", wc_trace_kernel(t, k)->name,
               (unsigned long long)r.cycles);
        total += r.cycles;
    }
    printf("%s with %s: %llu cycles\n", g.name, set, total);
    wc_trace_close(t);
    return 0;
}
