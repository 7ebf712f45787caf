/*
 * tests/fuzz/fuzz_sass.c - libFuzzer target: cuobjdump listings
 * (wc_sass_parse).  Any bytes must give a result or a diagnostic, never a
 * crash, leak or hang; a parsed listing must answer lookups consistently.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wc_sass *s = NULL;
    wc_diag d;
    int rc = wc_sass_parse("fuzz.sass", (const char *)data, size, &s, &d);
    if (rc == 0) {
        if (!s)
            abort();
        size_t n = wc_sass_nkernels(s);
        (void)n;
        for (uint64_t pc = 0; pc < 0x200; pc += 16) {
            const wc_inst *in = wc_sass_find(s, "_Z3foov", pc);
            if (in && (in->pc != pc || in->ndst > WC_MAX_DST ||
                       in->nsrc > WC_MAX_SRC))
                abort();
        }
        wc_sass_free(s);
    } else {
        if (s || d.code != rc || d.msg[0] == '\0')
            abort();
        char buf[4096];
        wc_diag_format(&d, buf, sizeof buf);
    }
    return 0;
}
