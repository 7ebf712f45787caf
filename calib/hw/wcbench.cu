// calib/hw/wcbench.cu - warpcast hardware calibration microbenchmarks.
//
// One program, one test per invocation:  wcbench TEST [ARGS] ; prints CSV
// rows "test,param,value,unit" on stdout.  Every timed region is read with
// clock64() and stored to global memory (seed 000 sec. 5, seed 004 sec. IV).
// Timed code is straight-line (fully unrolled) so that `cuobjdump -sass` of
// the kernel is also a warpcast microbenchmark (.sass) of the same work.
//
//   lat OP            dependent chain of CHAIN ops, one warp  -> cycles/op
//   tput OP           the same chain in every warp of full blocks on every SM
//                     -> thread-ops per cycle per SM
//   chase BYTES STRIDE  pointer chase over a footprint (seed 004 Figs. 10-18):
//                     average load latency; sweep BYTES/STRIDE for cache size,
//                     line size and associativity
//   shlat STRIDE      shared-memory pointer chase: latency; STRIDE in words,
//                     32 threads -> bank conflicts (ways = gcd(STRIDE,32))
//   memissue SUBCORES N  seed 000 Table 1: issue cycle of N independent
//                     32-bit shared loads in warps on SUBCORES sub-cores
//   imbalance MODE    seed 001 Fig. 3: FMA work on all warps (MODE 0) or only
//                     on warps w % 4 == 0 (MODE 1, one sub-core)
//   empty GRID BLOCK  empty kernel (launch / dispatch overheads; elapsed cycles
//                     come from Nsight Compute or cudaEvent x SM clock)
//   ffma GRID BLOCK ITERS  the simtune ffmaKernel: ITERS x 128 dependent FFMA
//
// OP: ffma fadd fmul imad iadd3 lop3 hfma2 dfma dadd mufu_ex2 mufu_rsq
//     mufu_sin mufu_lg2 mufu_rcp mma_f16 (mma.sync m16n8k16, sm_80+)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CHAIN 256
#define CK(x)                                                                  \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,         \
                    cudaGetErrorString(e_));                                   \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

// ---- arithmetic chains ------------------------------------------------------
// Each op is written in inline PTX with a dependence on its own result so the
// compiler can neither fold nor reorder the chain.
#define REP4(x) x x x x
#define REP16(x) REP4(x) REP4(x) REP4(x) REP4(x)
#define REP256(x) REP16(REP16(x))

// DECL declares the other operands the step reads (b, c).
#define CHAIN_KERNEL(NAME, T, DECL, STEP)                                      \
    __global__ void k_##NAME(long long *out, T *sink, T seed)                  \
    {                                                                          \
        T a = seed;                                                            \
        DECL                                                                   \
        long long t0 = clock64();                                              \
        REP256(STEP)                                                           \
        long long t1 = clock64();                                              \
        int tid = blockIdx.x * blockDim.x + threadIdx.x;                       \
        out[tid] = t1 - t0;                                                    \
        sink[tid] = a;                                                         \
    }

CHAIN_KERNEL(ffma, float, float b = 1.0001f; float c = 1.0001f;, asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(a) : "f"(b), "f"(c));)
CHAIN_KERNEL(fadd, float, float b = 1.0001f;, asm volatile("add.f32 %0, %0, %1;" : "+f"(a) : "f"(b));)
CHAIN_KERNEL(fmul, float, float b = 1.0001f;, asm volatile("mul.f32 %0, %0, %1;" : "+f"(a) : "f"(b));)
CHAIN_KERNEL(imad, int, int b = 3; int c = 3;, asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(a) : "r"(b), "r"(c));)
CHAIN_KERNEL(iadd3, int, int b = 3;, asm volatile("add.s32 %0, %0, %1;" : "+r"(a) : "r"(b));)
CHAIN_KERNEL(lop3, int, int b = 3;, asm volatile("xor.b32 %0, %0, %1;" : "+r"(a) : "r"(b));)
CHAIN_KERNEL(dfma, double, double b = 1.0001; double c = 1.0001;, asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(a) : "d"(b), "d"(c));)
CHAIN_KERNEL(dadd, double, double b = 1.0001;, asm volatile("add.f64 %0, %0, %1;" : "+d"(a) : "d"(b));)
CHAIN_KERNEL(mufu_ex2, float, /* none */, asm volatile("ex2.approx.f32 %0, %0;" : "+f"(a));)
CHAIN_KERNEL(mufu_rsq, float, /* none */, asm volatile("rsqrt.approx.f32 %0, %0;" : "+f"(a));)
CHAIN_KERNEL(mufu_sin, float, /* none */, asm volatile("sin.approx.f32 %0, %0;" : "+f"(a));)
CHAIN_KERNEL(mufu_lg2, float, /* none */, asm volatile("lg2.approx.f32 %0, %0;" : "+f"(a));)
CHAIN_KERNEL(mufu_rcp, float, /* none */, asm volatile("rcp.approx.f32 %0, %0;" : "+f"(a));)

// HFMA2: packed half2 kept in a 32-bit register.
__global__ void k_hfma2(long long *out, unsigned *sink, unsigned seed)
{
    unsigned a = seed, b = 0x3c003c00u, c = 0x00000000u;
    long long t0 = clock64();
    REP256(asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(a) : "r"(b), "r"(c));)
    long long t1 = clock64();
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    out[tid] = t1 - t0;
    sink[tid] = a;
}

// Tensor core: dependent mma.sync m16n8k16 (f16 inputs, f32 accumulate).
__global__ void k_mma_f16(long long *out, float *sink, float seed)
{
#if __CUDA_ARCH__ >= 800
    unsigned a0 = 0x3c003c00u, a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0;
    float d0 = seed, d1 = seed, d2 = seed, d3 = seed;
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < 64; i++)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    long long t1 = clock64();
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    out[tid] = (t1 - t0) * CHAIN / 64; // normalised to CHAIN ops
    sink[tid] = d0 + d1 + d2 + d3;
#else
    (void)out; (void)sink; (void)seed;
#endif
}

// ---- memory -----------------------------------------------------------------
// Global pointer chase: one thread walks `steps` dependent loads.
__global__ void k_chase(const unsigned *arr, unsigned steps, long long *out,
                        unsigned *sink)
{
    unsigned j = 0;
    for (unsigned i = 0; i < 64; i++) // warm up: touch the footprint
        j = arr[j];
    j = 0;
    long long t0 = clock64();
    for (unsigned i = 0; i < steps; i++)
        j = __ldcg(&arr[j]) + 0 * i;
    long long t1 = clock64();
    out[0] = t1 - t0;
    sink[0] = j;
}

// Shared-memory chase: each of 32 lanes chases its own chain; lane l starts
// at word l * stride, so the lanes of one load hit gcd(stride, 32)-way bank
// conflicts.
__global__ void k_shlat(unsigned stride, long long *out, unsigned *sink)
{
    __shared__ unsigned s[8192];
    unsigned l = threadIdx.x;
    for (unsigned i = l; i < 8192; i += blockDim.x)
        s[i] = (i + 32 * stride) % 8192;
    __syncthreads();
    unsigned j = (l * stride) % 8192;
    long long t0 = clock64();
    REP256(j = s[j];)
    long long t1 = clock64();
    out[l] = t1 - t0;
    sink[l] = j;
}

// Seed 000 Table 1: issue cycle of each of 16 independent shared loads, in
// warps placed on `active` sub-cores (warp w runs on sub-core w % 4).
__global__ void k_memissue(int active, long long *out, unsigned *sink)
{
    __shared__ unsigned s[1024];
    int w = threadIdx.x / 32, l = threadIdx.x % 32;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (w >= active)
        return;
    unsigned v[16];
    long long t[17];
    t[0] = clock64();
#pragma unroll
    for (int i = 0; i < 16; i++) {
        v[i] = s[(l + 32 * i) % 1024];
        t[i + 1] = clock64();
    }
    unsigned acc = 0;
#pragma unroll
    for (int i = 0; i < 16; i++)
        acc += v[i];
    if (l == 0)
        for (int i = 0; i < 16; i++)
            out[w * 16 + i] = t[i + 1] - t[0];
    sink[threadIdx.x] = acc;
}

// Seed 001 imbalance kernel: FMA loop in every warp (mode 0) or only in warps
// w % 4 == 0 (mode 1): the same work packed onto one sub-core.
__global__ void k_imbalance(int mode, int iters, long long *out, float *sink)
{
    int w = threadIdx.x / 32;
    float a = threadIdx.x, b = 1.0001f, c = 0.5f;
    long long t0 = clock64();
    int mine = mode == 0 ? 1 : (w % 4 == 0 ? 4 : 0);
    for (int i = 0; i < iters * mine; i++) {
        REP16(a = fmaf(a, b, c);)
    }
    long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = t1 - t0;
    sink[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

// ---- launch overheads ---------------------------------------------------------
__global__ void k_empty() {}

__global__ void k_ffmakernel(int iters, float *sink)
{
    float a = threadIdx.x, b = 1.0001f, c = 0.5f;
    for (int i = 0; i < iters; i++) {
        REP16(REP4(a = fmaf(a, b, c); a = fmaf(a, b, c);))
    }
    sink[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

// ---- host --------------------------------------------------------------------
static int sm_count(void)
{
    int d, n;
    CK(cudaGetDevice(&d));
    CK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, d));
    return n;
}

typedef void (*chain_fn)(long long *, void *, double);
struct chain_op {
    const char *name;
    const void *fn;
    int bytes; // sink element size
};

#define OPE(n, sz) {#n, (const void *)k_##n, sz}
static const chain_op ops[] = {
    OPE(ffma, 4), OPE(fadd, 4), OPE(fmul, 4), OPE(imad, 4), OPE(iadd3, 4),
    OPE(lop3, 4), OPE(hfma2, 4), OPE(dfma, 8), OPE(dadd, 8),
    OPE(mufu_ex2, 4), OPE(mufu_rsq, 4), OPE(mufu_sin, 4), OPE(mufu_lg2, 4),
    OPE(mufu_rcp, 4), OPE(mma_f16, 4)};

static int run_chain(const char *name, int tput)
{
    const chain_op *op = NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(ops[i].name, name))
            op = &ops[i];
    if (!op) {
        fprintf(stderr, "unknown op %s\n", name);
        return 1;
    }
    int blocks = 1, threads = 32;
    if (tput) {
        int minGrid = 0, bs = 0;
        CK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &bs, op->fn, 0, 0));
        threads = bs;
        blocks = minGrid > 0 ? minGrid : sm_count();
    }
    size_t n = (size_t)blocks * threads;
    long long *out;
    void *sink;
    CK(cudaMalloc(&out, n * sizeof *out));
    CK(cudaMalloc(&sink, n * 8));
    double seedd = 1.0;
    float seedf = 1.0f;
    unsigned seedu = 0x3c003c00u;
    int seedi = 7;
    void *args[3] = {&out, &sink, NULL};
    if (op->bytes == 8)
        args[2] = &seedd;
    else if (!strcmp(name, "hfma2"))
        args[2] = &seedu;
    else if (!strcmp(name, "imad") || !strcmp(name, "iadd3") ||
             !strcmp(name, "lop3"))
        args[2] = &seedi;
    else
        args[2] = &seedf;
    CK(cudaLaunchKernel(op->fn, dim3(blocks), dim3(threads), args, 0, 0));
    CK(cudaDeviceSynchronize());
    long long *h = (long long *)malloc(n * sizeof *h);
    CK(cudaMemcpy(h, out, n * sizeof *h, cudaMemcpyDeviceToHost));
    if (!tput) {
        printf("lat_%s,chain=%d,%.3f,cycles/op\n", name, CHAIN,
               (double)h[0] / CHAIN);
    } else {
        // per SM: blocks/SM x threads x CHAIN ops over the slowest region
        long long mx = 0;
        for (size_t i = 0; i < n; i++)
            mx = h[i] > mx ? h[i] : mx;
        double per_sm_threads = (double)n / sm_count();
        printf("tput_%s,threads_per_sm=%.0f,%.3f,thread-ops/cycle/SM\n", name,
               per_sm_threads, per_sm_threads * CHAIN / (double)mx);
    }
    free(h);
    CK(cudaFree(out));
    CK(cudaFree(sink));
    return 0;
}

static int run_chase(size_t bytes, size_t stride)
{
    size_t n = bytes / 4, st = stride / 4;
    if (st == 0 || n < st) {
        fprintf(stderr, "bad footprint/stride\n");
        return 1;
    }
    unsigned *h = (unsigned *)malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++)
        h[i] = (unsigned)((i + st) % n);
    unsigned *d, *sink;
    long long *out, cyc;
    CK(cudaMalloc(&d, n * 4));
    CK(cudaMalloc(&sink, 4));
    CK(cudaMalloc(&out, 8));
    CK(cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice));
    unsigned steps = 4096;
    k_chase<<<1, 1>>>(d, steps, out, sink);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&cyc, out, 8, cudaMemcpyDeviceToHost));
    printf("chase,bytes=%zu;stride=%zu,%.2f,cycles/load\n", bytes, stride,
           (double)cyc / steps);
    free(h);
    CK(cudaFree(d));
    CK(cudaFree(sink));
    CK(cudaFree(out));
    return 0;
}

static int run_shlat(unsigned stride)
{
    long long *out, h[32];
    unsigned *sink;
    CK(cudaMalloc(&out, 32 * 8));
    CK(cudaMalloc(&sink, 32 * 4));
    k_shlat<<<1, 32>>>(stride, out, sink);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    printf("shlat,stride=%u,%.2f,cycles/load\n", stride, (double)h[0] / CHAIN);
    CK(cudaFree(out));
    CK(cudaFree(sink));
    return 0;
}

static int run_memissue(int active)
{
    long long *out, h[4 * 16];
    unsigned *sink;
    CK(cudaMalloc(&out, sizeof h));
    CK(cudaMalloc(&sink, 128 * 4));
    CK(cudaMemset(out, 0, sizeof h));
    k_memissue<<<1, 128>>>(active, out, sink);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    for (int w = 0; w < active; w++)
        for (int i = 0; i < 16; i++)
            printf("memissue,active=%d;warp=%d;inst=%d,%lld,cycles\n", active,
                   w, i + 1, h[w * 16 + i]);
    CK(cudaFree(out));
    CK(cudaFree(sink));
    return 0;
}

static int run_imbalance(int mode)
{
    int threads = 1024, iters = 256;
    long long *out;
    float *sink;
    CK(cudaMalloc(&out, threads * 8));
    CK(cudaMalloc(&sink, threads * 4));
    k_imbalance<<<1, threads>>>(mode, iters, out, sink);
    CK(cudaDeviceSynchronize());
    long long *h = (long long *)malloc(threads * 8);
    CK(cudaMemcpy(h, out, threads * 8, cudaMemcpyDeviceToHost));
    long long mx = 0;
    for (int i = 0; i < threads; i++)
        mx = h[i] > mx ? h[i] : mx;
    printf("imbalance,mode=%d,%lld,cycles\n", mode, mx);
    free(h);
    CK(cudaFree(out));
    CK(cudaFree(sink));
    return 0;
}

// Elapsed time of a launch with cudaEvents, in SM cycles at the current
// clock; Nsight Compute's gpc__cycles_elapsed.max is preferred (run.sh).
static int run_launch(int ffma, int grid, int block, int iters)
{
    float *sink;
    CK(cudaMalloc(&sink, (size_t)grid * block * 4));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int warm = 0; warm < 2; warm++) {
        CK(cudaEventRecord(a));
        if (ffma)
            k_ffmakernel<<<grid, block>>>(iters, sink);
        else
            k_empty<<<grid, block>>>();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
    }
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    int d, khz;
    CK(cudaGetDevice(&d));
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d));
    printf("%s,grid=%d;block=%d;iters=%d,%.0f,event-cycles\n",
           ffma ? "ffma" : "empty", grid, block, iters,
           (double)ms * (double)khz);
    CK(cudaFree(sink));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: wcbench lat|tput OP | chase BYTES STRIDE | "
                        "shlat STRIDE | memissue SUBCORES | imbalance MODE | "
                        "empty GRID BLOCK | ffma GRID BLOCK ITERS | ops\n");
        return 1;
    }
    const char *t = argv[1];
    if (!strcmp(t, "ops")) {
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            printf("%s\n", ops[i].name);
        return 0;
    }
    if ((!strcmp(t, "lat") || !strcmp(t, "tput")) && argc == 3)
        return run_chain(argv[2], !strcmp(t, "tput"));
    if (!strcmp(t, "chase") && argc == 4)
        return run_chase(strtoull(argv[2], 0, 0), strtoull(argv[3], 0, 0));
    if (!strcmp(t, "shlat") && argc == 3)
        return run_shlat((unsigned)atoi(argv[2]));
    if (!strcmp(t, "memissue") && argc == 3)
        return run_memissue(atoi(argv[2]));
    if (!strcmp(t, "imbalance") && argc == 3)
        return run_imbalance(atoi(argv[2]));
    if (!strcmp(t, "empty") && argc == 4)
        return run_launch(0, atoi(argv[2]), atoi(argv[3]), 0);
    if (!strcmp(t, "ffma") && argc == 5)
        return run_launch(1, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    fprintf(stderr, "wcbench: bad arguments (run without arguments for usage)\n");
    return 1;
}
