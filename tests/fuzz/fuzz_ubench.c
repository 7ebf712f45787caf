/*
 * tests/fuzz/fuzz_ubench.c - libFuzzer target: hand-written SASS
 * microbenchmarks (wc_ubench_parse).  Any bytes must give a result or a
 * diagnostic with a line and column, never a crash, leak or hang.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wc_ubench *u = NULL;
    wc_diag d;
    int rc = wc_ubench_parse("fuzz.sass", (const char *)data, size, &u, &d);
    if (rc == 0) {
        if (!u || u->nwarps == 0)
            abort();
        for (unsigned w = 0; w < u->nwarps; w++) {
            if (u->ninsts[w] == 0)
                abort();
            for (size_t i = 0; i < u->ninsts[w]; i++) {
                const wc_inst *in = &u->code[w][i];
                if (!in->ctrl.valid || in->ndst > WC_MAX_DST ||
                    in->nsrc > WC_MAX_SRC || in->unit >= WC_UNIT_COUNT ||
                    (i > 0 && in->pc <= u->code[w][i - 1].pc))
                    abort();
                (void)wc_inst_sectors(in);
            }
        }
        wc_ubench_free(u);
    } else {
        if (u || d.code != rc || d.msg[0] == '\0')
            abort();
        if (rc == WC_EINPUT && d.line <= 0)
            abort();
        char buf[4096];
        wc_diag_format(&d, buf, sizeof buf);
    }
    return 0;
}
