/*
 * cli/cmd_tracegen.c - `warpcast tracegen`: an Accel-Sim trace directory from
 * a kernel's cuobjdump -sass listing and its launch shape (gen/sass_emu.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "wc_sassemu.h"

static const char tracegen_help[] =
    "usage: warpcast tracegen LISTING.sass --grid X[,Y,Z] --block X[,Y,Z] --out DIR\n"
    "                         [OPTIONS]\n"
    "\n"
    "Builds an Accel-Sim trace (tracer version 5) of one kernel from its\n"
    "`cuobjdump -sass` listing by emulating, per warp, the integer and address\n"
    "instructions (S2R, LDC, IMAD, LEA, IADD3, SHF, LOP3, ISETP, SEL, ...), so\n"
    "memory instructions get their real per-lane addresses.  Exact for\n"
    "straight-line kernels and branches that are uniform in each warp; loads\n"
    "return zero (zero-filled buffers).  An address, guard or branch that depends\n"
    "on an instruction it does not emulate is an error naming that line.\n"
    "Writes DIR/kernelslist.g, DIR/kernel-1.traceg[.zst] and DIR/kernels.sass (a\n"
    "copy of the listing, for the control bits).\n"
    "\n"
    "options:\n"
    "  --kernel NAME        the function to trace (needed when the listing has several)\n"
    "  --grid X[,Y,Z]       grid dimensions (default 1)\n"
    "  --block X[,Y,Z]      block dimensions (default 1)\n"
    "  --shmem N            -shmem written in the header (bytes, default 0)\n"
    "  --param OFF=VAL[:SIZE]  constant bank 0 contents at byte OFF (kernel\n"
    "                       parameters start at 0x210 on sm_90), SIZE 1/2/4/8\n"
    "                       (default 8 when OFF is 8-aligned, else 4); repeatable.\n"
    "                       A parameter read 64 bits wide and not given is a\n"
    "                       pointer: 0x7f0000000000 + 4 GiB x its slot index\n"
    "  --ptr-base ADDR      first default pointer (default 0x7f0000000000)\n"
    "  --nregs N            -nregs (default: highest register used + 3)\n"
    "  --binary-version V   -binary version (default: the listing's sm_XX)\n"
    "  --shmem-base ADDR    -shmem base_addr (default 0x7f6300000000)\n"
    "  --local-base ADDR    -local mem base_addr (default 0x7f6200000000)\n"
    "  --smem-reserved N    shared window offset of the CTA's first byte\n"
    "                       (default 0x400, sm_90's reserved 1 KiB); shared lanes\n"
    "                       are recorded as shmem base + offset - N\n"
    "  --max-warp-insts N   stop a warp after N instructions (default 16777216)\n"
    "  --zstd               write kernel-1.traceg.zst\n"
    "  --out DIR            output directory (created if missing)\n"
    "  --quiet              no summary\n";

static unsigned long long parse_ull(const char *opt, const char *v)
{
    char *end;
    unsigned long long x = strtoull(v, &end, 0);
    if (!*v || *end || *v == '-')
        cli_usage_error("tracegen", "%s needs a non-negative integer, not '%s'",
                        opt, v);
    return x;
}

static void parse_dim(const char *opt, const char *v, unsigned out[3])
{
    out[0] = out[1] = out[2] = 1;
    const char *p = v;
    for (int i = 0; i < 3; i++) {
        char *end;
        unsigned long x = strtoul(p, &end, 0);
        if (end == p || *p == '-' || x == 0 || x > 0x7fffffffUL)
            cli_usage_error("tracegen", "%s needs X[,Y,Z] of positive integers, "
                            "not '%s'", opt, v);
        out[i] = (unsigned)x;
        if (*end == 0)
            return;
        if (*end != ',' || i == 2)
            cli_usage_error("tracegen", "%s needs X[,Y,Z] of positive integers, "
                            "not '%s'", opt, v);
        p = end + 1;
    }
}

int cmd_tracegen(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    wc_tracegen_params p;
    wc_tracegen_defaults(&p);
    wc_diag d;
    memset(&d, 0, sizeof d);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(tracegen_help, stdout);
            return 0;
        }
        static const char *const vopts[] = {
            "--kernel", "--grid", "--block", "--shmem", "--param", "--nregs",
            "--binary-version", "--shmem-base", "--local-base", "--smem-reserved",
            "--max-warp-insts", "--ptr-base"};
        int o = -1;
        for (int j = 0; j < (int)(sizeof vopts / sizeof vopts[0]); j++)
            if (!strcmp(a, vopts[j]))
                o = j;
        if (o >= 0) {
            if (i + 1 >= argc)
                cli_usage_error("tracegen", "option '%s' needs a value", a);
            const char *v = argv[++i];
            switch (o) {
            case 0: p.kernel = v; break;
            case 1: parse_dim(a, v, p.grid); break;
            case 2: parse_dim(a, v, p.block); break;
            case 3: p.shmem = (unsigned)parse_ull(a, v); break;
            case 4:
                if (wc_tracegen_add_param(&p, v, &d) != 0)
                    cli_usage_error("tracegen", "%s", d.msg);
                break;
            case 5: p.nregs = (int)parse_ull(a, v); break;
            case 6: p.binary_version = (int)parse_ull(a, v); break;
            case 7: p.shmem_base = parse_ull(a, v); break;
            case 8: p.local_base = parse_ull(a, v); break;
            case 9: p.smem_reserved = (unsigned)parse_ull(a, v); break;
            case 10: p.max_warp_insts = parse_ull(a, v); break;
            case 11: p.ptr_base = parse_ull(a, v); break;
            default: break;
            }
        } else if (!strcmp(a, "--zstd")) {
            p.zstd = 1;
        } else if (cli_common_opt(&c, argc, argv, &i, "tracegen")) {
            continue;
        } else if (a[0] == '-' && a[1]) {
            cli_unknown_option("tracegen", tracegen_help, a);
        } else if (!p.listing) {
            p.listing = a;
        } else {
            cli_usage_error("tracegen", "unexpected argument '%s'", a);
        }
    }
    if (!p.listing)
        cli_usage_error("tracegen", "missing the listing (cuobjdump -sass output)");
    if (!c.out)
        cli_usage_error("tracegen", "missing --out DIR");
    wc_tracegen_result r;
    if (wc_tracegen_write(&p, c.out, &r, &d) != 0)
        cli_fail(&d);
    if (!c.quiet) {
        printf("wrote %s: kernel %s, %llu CTAs, %llu warps, %llu warp "
               "instructions (%llu with addresses), nregs %d, sm_%d\n",
               c.out, r.kernel, (unsigned long long)r.ctas,
               (unsigned long long)r.warps, (unsigned long long)r.insts,
               (unsigned long long)r.mem_insts, r.nregs, r.binary_version);
        for (int i = 0; i < r.nslots; i++)
            printf("  c[0x0][0x%x] (%u bytes) = 0x%llx%s\n", r.slots[i].offset,
                   r.slots[i].size, (unsigned long long)r.slots[i].value,
                   r.slots[i].given     ? " (--param)"
                   : r.slots[i].pointer ? " (default pointer)"
                                        : " (default 0)");
    }
    return 0;
}
