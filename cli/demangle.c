/*
 * cli/demangle.c - C++ kernel names as people know them.  Uses the C++
 * runtime's __cxa_demangle (libstdc++, linked into the program when the
 * compiler has it: WC_HAVE_CXA_DEMANGLE); without it names stay mangled.
 * Only the CLI demangles: the library keeps the trace's raw names.
 */
#include <stdlib.h>
#include <string.h>

#include "study.h"

#if defined(WC_HAVE_CXA_DEMANGLE)
char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);
#endif

char *cli_demangle(const char *name)
{
    if (!name)
        name = "";
#if defined(WC_HAVE_CXA_DEMANGLE)
    if (name[0] == '_' && name[1] == 'Z') {
        int status = -1;
        char *d = __cxa_demangle(name, NULL, NULL, &status);
        if (d && status == 0)
            return d;
        free(d);
    }
#endif
    return strdup(name);
}
