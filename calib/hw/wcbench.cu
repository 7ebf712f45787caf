// calib/hw/wcbench.cu - warpcast hardware calibration microbenchmarks.
//
// One program, one test per invocation:  wcbench TEST [ARGS] ; prints CSV
// rows "test,param,value,unit" on stdout and nothing else (errors go to
// stderr).  Every timed region is read with clock64() and stored to global
// memory (seed 000 sec. 5, seed 004 sec. IV).  Timed code is straight-line
// (fully unrolled) so that `cuobjdump -sass` of the kernel is also a warpcast
// microbenchmark (.sass) of the same work.
//
//   lat OP            dependent chain of CHAIN ops, one warp  -> cycles/op
//   tput OP           the same chain in every warp of full blocks on every SM
//                     -> thread-ops per cycle per SM
//   chase BYTES STRIDE  pointer chase with cached loads (ld.ca) after a full
//                     warm-up pass over the footprint (seed 004 sec. IV):
//                     L1 hit latency while the footprint fits L1, then L2,
//                     then DRAM; sweep BYTES for the L1 and L2 sizes
//   chasecg BYTES STRIDE  the same with ld.cg (L1 bypassed): L2 and DRAM
//                     latency only
//   shlat STRIDE      shared-memory pointer chase: latency; STRIDE in words,
//                     32 threads -> bank conflicts (ways = gcd(STRIDE,32))
//   memissue ACTIVE   seed 000 Table 1: warps 0..ACTIVE-1 of a 4-warp CTA
//                     (one per sub-core) each issue N = 1..16 independent
//                     32-bit shared loads between two clock reads, nothing
//                     else; one kernel per N (k_memissue_N), so the clock
//                     reads never sit between the loads.  Row: the cycles
//                     from the first clock read to the second for each N
//                     (the issue cycle of load N is cycles(N) - cycles(0)).
//   memorder          which warp a freed memory-queue entry goes to (the
//                     detailed model's mem_issue_oldest): warps 0 and 4 of
//                     an 8-warp CTA (one sub-core, w % 4) each issue 12
//                     independent shared loads after a barrier; the
//                     older, warp 0, leaves the barrier last (greedy),
//                     fills the queue, and warp 4 then becomes the greedy
//                     warp.  Rows: each warp's first and last clock read
//                     from the earlier first read.  With warp 4's first
//                     read the later one, the older warp ending first
//                     means the entries went to the oldest warp
//                     (mem_issue_oldest = 1), else to the greedy one (0).
//   imbalance MODE    seed 001 Fig. 3: FMA work on all warps (MODE 0) or only
//                     on warps w % 4 == 0 (MODE 1, one sub-core)
//   atom SCOPE SPACE  ATOM_ITERS atomicAdds per thread, 8 CTAs of 256 threads
//                     per SM (one wave); SCOPE warp|cta|lane = one address per
//                     warp, per CTA, per lane; SPACE global|shared
//                     -> atomics per SM cycle (GPU-wide) and per ns
//   bw KIND BYTES     streaming over BYTES with 16-byte loads, one wave of
//                     full CTAs, grid-stride (KIND read: sum into a sink;
//                     copy: dst = src, BYTES each way); a warm-up pass first,
//                     so BYTES below the L2 size measure L2 bandwidth and
//                     above it DRAM -> bytes per SM cycle (GPU-wide) and GB/s
//   shbw WIDTH        shared-memory bandwidth: every warp of full CTAs does
//                     conflict-free WIDTH-byte (4, 8 or 16) shared loads
//                     -> bytes per cycle per SM
//   empty GRID BLOCK  empty kernel (launch / dispatch overheads; elapsed cycles
//                     come from Nsight Compute or cudaEvent x SM clock)
//   ffma GRID BLOCK ITERS  the simtune ffmaKernel: ITERS x 128 dependent FFMA
//   info              sm_count, clock rates, L2 size, ... (key,value rows)
//
// OP: ffma fadd fmul imad iadd3 lop3 hfma2 dfma dadd mufu_ex2 mufu_rsq
//     mufu_sin mufu_lg2 mufu_rcp mma_f16 (mma.sync m16n8k16, sm_80+)
//
// The iadd3 and lop3 chains take their operands from kernel parameters and
// are written so that ptxas cannot fold them: a = a + b + c (two PTX adds,
// one 3-input IADD3 per step) and a = lop3(a, b, c, 0x6a), a LUT that is not
// linear, so two steps do not merge into one LOP3.  `make sass-check`
// decodes the compiled sm_90 cubin and fails unless every chain kernel holds
// CHAIN dependent instructions of its opcode (chaincheck.py).
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
// Integer chains with run-time operands (b = seed + 1, c = seed - 2 come
// from the kernel parameter, so ptxas sees neither): see the header.
CHAIN_KERNEL(iadd3, int, int b = seed + 1; int c = seed - 2;,
             asm volatile("{.reg .s32 t; add.s32 t, %0, %1; add.s32 %0, t, %2;}"
                          : "+r"(a) : "r"(b), "r"(c));)
CHAIN_KERNEL(lop3, int, int b = seed + 1; int c = seed ^ 0x5a5a;,
             asm volatile("lop3.b32 %0, %0, %1, %2, 0x6a;"
                          : "+r"(a) : "r"(b), "r"(c));)
CHAIN_KERNEL(dfma, double, double b = 1.0001; double c = 1.0001;, asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(a) : "d"(b), "d"(c));)
CHAIN_KERNEL(dadd, double, double b = 1.0001;, asm volatile("add.f64 %0, %0, %1;" : "+d"(a) : "d"(b));)
CHAIN_KERNEL(mufu_ex2, float, /* none */, asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(a));)
CHAIN_KERNEL(mufu_rsq, float, /* none */, asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a));)
// sin.approx scales its operand first: each step is FMUL + MUFU.SIN
CHAIN_KERNEL(mufu_sin, float, /* none */, asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a));)
CHAIN_KERNEL(mufu_lg2, float, /* none */, asm volatile("lg2.approx.ftz.f32 %0, %0;" : "+f"(a));)
// rcp(rcp(a)) = a is folded by ptxas: each step is rcp(|a|) (FADD + MUFU)
CHAIN_KERNEL(mufu_rcp, float, /* none */, asm volatile("{.reg .f32 t; abs.ftz.f32 t, %0; rcp.approx.ftz.f32 %0, t;}" : "+f"(a));)

// HFMA2: packed half2 kept in a 32-bit register.
__global__ void k_hfma2(long long *out, unsigned *sink, unsigned seed)
{
    // run-time operands (from seed), or ptxas merges steps
    unsigned a = seed, b = seed ^ 0x00010001u, c = seed & 0x80008000u;
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
// Global pointer chase: one thread walks the footprint once untimed (every
// line of it is then in the caches that can hold it: seed 004's warm-up
// pass), then `steps` timed dependent loads.  CG = 0: cached loads (ld.ca:
// L1, L2, DRAM); CG = 1: ld.cg (L2 and DRAM only).
template <int CG>
__device__ __forceinline__ void k_chase_t(const unsigned *arr, unsigned warm, unsigned steps,
                          long long *out, unsigned *sink)
{
    unsigned j = 0;
    for (unsigned i = 0; i < warm; i++)
        j = CG ? __ldcg(&arr[j]) : __ldca(&arr[j]);
    sink[1] = j; // keeps the warm-up: the first kit's was dead code (removed)
    j = 0;
    long long t0 = clock64();
    for (unsigned i = 0; i < steps; i++)
        j = CG ? __ldcg(&arr[j]) : __ldca(&arr[j]);
    long long t1 = clock64();
    out[0] = t1 - t0;
    sink[0] = j;
}
__global__ void k_chase(const unsigned *arr, unsigned warm, unsigned steps,
                        long long *out, unsigned *sink)
{
    k_chase_t<0>(arr, warm, steps, out, sink);
}
__global__ void k_chasecg(const unsigned *arr, unsigned warm, unsigned steps,
                          long long *out, unsigned *sink)
{
    k_chase_t<1>(arr, warm, steps, out, sink);
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

// Seed 000 Table 1: N independent 32-bit shared loads into regular
// registers between two clock reads, in warps 0..active-1 of a 4-warp CTA
// (warp w on sub-core w % 4); the loaded values are used only after the
// second clock read, so nothing waits on them inside the region.
__device__ __forceinline__ long long clk(void)
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}
#define MEMISSUE(N)                                                            \
    __global__ void k_memissue_##N(int active, long long *out,                \
                                   unsigned *sink)                             \
    {                                                                          \
        __shared__ unsigned s[32 * 16];                                        \
        int w = threadIdx.x / 32, l = threadIdx.x % 32;                        \
        for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x)                \
            s[i] = i;                                                          \
        __syncthreads();                                                       \
        if (w >= active)                                                       \
            return;                                                            \
        unsigned v[16];                                                        \
        unsigned base = (unsigned)__cvta_generic_to_shared(&s[l]);             \
        long long t0 = clk();                                                  \
        _Pragma("unroll") for (int i = 0; i < N; i++)                          \
            asm volatile("ld.shared.u32 %0, [%1];"                             \
                         : "=r"(v[i]) : "r"(base + 128u * i) : "memory");      \
        long long t1 = clk();                                                  \
        unsigned acc = 0;                                                      \
        _Pragma("unroll") for (int i = 0; i < N; i++) acc += v[i];             \
        if (l == 0)                                                            \
            out[w] = t1 - t0;                                                  \
        sink[threadIdx.x] = acc;                                               \
    }
MEMISSUE(1) MEMISSUE(2) MEMISSUE(3) MEMISSUE(4) MEMISSUE(5) MEMISSUE(6)
MEMISSUE(7) MEMISSUE(8) MEMISSUE(9) MEMISSUE(10) MEMISSUE(11) MEMISSUE(12)
MEMISSUE(13) MEMISSUE(14) MEMISSUE(15) MEMISSUE(16)
// Memory issue order: warps 0 and 4 (sub-core 0) each issue 12 independent
// shared loads between two clock reads, after a barrier (see the header).
__global__ void k_memorder(long long *out, unsigned *sink)
{
    __shared__ unsigned s[32 * 12];
    int w = threadIdx.x / 32, l = threadIdx.x % 32;
    for (int i = threadIdx.x; i < 32 * 12; i += blockDim.x)
        s[i] = i;
    __syncthreads();
    // warp 0 arrives last at the next barrier (a dependent chain first), so
    // it leaves it as the greedy warp: it issues its first clock read and
    // loads until the queue is full, then warp 4 issues its first clock
    // read and becomes the greedy warp while warp 0 waits for an entry
    unsigned x = s[l];
    if (w == 0) {
#pragma unroll
        for (int i = 0; i < 32; i++)
            asm volatile("add.s32 %0, %0, %1;" : "+r"(x) : "r"(l));
    }
    __syncthreads();
    if (w % 4 != 0)
        return;
    unsigned v[12];
    unsigned base = (unsigned)__cvta_generic_to_shared(&s[l]);
    long long t0 = clk();
#pragma unroll
    for (int i = 0; i < 12; i++)
        asm volatile("ld.shared.u32 %0, [%1];"
                     : "=r"(v[i]) : "r"(base + 128u * i) : "memory");
    long long t1 = clk();
    unsigned acc = x;
#pragma unroll
    for (int i = 0; i < 12; i++)
        acc += v[i];
    if (l == 0) {
        out[2 * (w / 4)] = t0;
        out[2 * (w / 4) + 1] = t1;
    }
    sink[threadIdx.x] = acc;
}

typedef void (*memissue_fn)(int, long long *, unsigned *);
static const memissue_fn memissue_k[16] = {
    k_memissue_1, k_memissue_2, k_memissue_3, k_memissue_4,
    k_memissue_5, k_memissue_6, k_memissue_7, k_memissue_8,
    k_memissue_9, k_memissue_10, k_memissue_11, k_memissue_12,
    k_memissue_13, k_memissue_14, k_memissue_15, k_memissue_16};

// Atomics: ATOM_ITERS atomicAdd(1) per thread to one address per warp,
// per CTA or per lane; global (distinct buffers per CTA for warp/lane) or
// shared.  Each CTA records its clock region (cycles of its SM).
#define ATOM_ITERS 32
template <int SCOPE, int SHARED> // SCOPE 0 warp, 1 cta, 2 lane
__device__ __forceinline__ void k_atom_t(unsigned *g, long long *out)
{
    __shared__ unsigned s[1024];
    unsigned t = threadIdx.x, w = t / 32;
    unsigned idx = SCOPE == 0 ? w * 32 : SCOPE == 1 ? 0 : t;
    if (SHARED) {
        s[t] = 0;
        __syncthreads();
    }
    unsigned *p = SHARED ? &s[idx] : &g[(size_t)blockIdx.x * blockDim.x + idx];
    __syncthreads();
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < ATOM_ITERS; i++)
        atomicAdd(p, 1u);
    __syncthreads();
    long long t1 = clock64();
    if (t == 0)
        out[blockIdx.x] = t1 - t0;
    if (SHARED && t == 0)
        g[blockIdx.x] = s[0];
}
#define ATOMK(NAME, SC, SH)                                                    \
    __global__ void k_atom_##NAME(unsigned *g, long long *out)                 \
    {                                                                          \
        k_atom_t<SC, SH>(g, out);                                              \
    }
ATOMK(warp_global, 0, 0) ATOMK(cta_global, 1, 0) ATOMK(lane_global, 2, 0)
ATOMK(warp_shared, 0, 1) ATOMK(cta_shared, 1, 1) ATOMK(lane_shared, 2, 1)

// Streaming: 16-byte loads over n4 float4, grid-stride, one wave.  read:
// sum into sink; copy: dst = src.  Each CTA records its clock region.
__global__ void k_bw_read(const float4 *src, size_t n4, float *sink,
                          long long *out)
{
    long long t0 = clock64();
    float acc = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += stride) {
        float4 v = src[i];
        acc += v.x + v.y + v.z + v.w;
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        out[blockIdx.x] = t1 - t0;
    if (acc == 1.2345f) // never true for the zero buffer: keeps the loads
        sink[0] = acc;
}
__global__ void k_bw_copy(const float4 *src, size_t n4, float4 *dst,
                          long long *out)
{
    long long t0 = clock64();
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += stride)
        dst[i] = src[i];
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        out[blockIdx.x] = t1 - t0;
}

// Shared-memory bandwidth: SHBW_LOADS conflict-free loads of WIDTH bytes
// per thread (lane l reads consecutive words), unrolled.
#define SHBW_LOADS 64
template <typename T>
__device__ __forceinline__ void k_shbw_t(long long *out, float *sink)
{
    __shared__ float4 s[2048]; // 32 KB
    float *sf = (float *)s;
    for (int i = threadIdx.x; i < 8192; i += blockDim.x)
        sf[i] = (float)i;
    __syncthreads();
    const T *st = (const T *)s;
    unsigned n = sizeof s / sizeof(T), w = threadIdx.x / 32, l = threadIdx.x % 32;
    float acc = 0;
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < SHBW_LOADS; i++) {
        T v = st[(w * 32 * 4 + i * 32 + l) % n];
        acc += *(const float *)&v;
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        out[blockIdx.x] = t1 - t0;
    if (acc == 1.2345f)
        sink[0] = acc;
}
__global__ void k_shbw4(long long *out, float *sink) { k_shbw_t<float>(out, sink); }
__global__ void k_shbw8(long long *out, float *sink) { k_shbw_t<float2>(out, sink); }
__global__ void k_shbw16(long long *out, float *sink) { k_shbw_t<float4>(out, sink); }

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

static int run_chase(size_t bytes, size_t stride, int cg)
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
    CK(cudaMalloc(&sink, 8));
    CK(cudaMalloc(&out, 8));
    CK(cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice));
    // the largest L1 (no shared-memory carve-out) for the cached chase
    CK(cudaFuncSetAttribute(k_chase, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
    unsigned steps = 4096;
    // warm-up: one full pass over every element of the footprint
    size_t pass = n / st;
    unsigned warm = (unsigned)(pass < (1u << 26) ? pass : (1u << 26));
    if (cg)
        k_chasecg<<<1, 1>>>(d, warm, steps, out, sink);
    else
        k_chase<<<1, 1>>>(d, warm, steps, out, sink);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&cyc, out, 8, cudaMemcpyDeviceToHost));
    printf("%s,bytes=%zu;stride=%zu,%.2f,cycles/load\n", cg ? "chasecg" : "chase",
           bytes, stride, (double)cyc / steps);
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

// One row per (N, warp): cycles between the two clock reads around N loads.
static int run_memissue(int active)
{
    if (active < 1 || active > 4) {
        fprintf(stderr, "memissue: ACTIVE is 1..4\n");
        return 1;
    }
    long long *out, h[4];
    unsigned *sink;
    CK(cudaMalloc(&out, sizeof h));
    CK(cudaMalloc(&sink, 128 * 4));
    for (int n = 1; n <= 16; n++) {
        for (int rep = 0; rep < 2; rep++) { // the second run has warm code
            CK(cudaMemset(out, 0, sizeof h));
            memissue_k[n - 1]<<<1, 128>>>(active, out, sink);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
        }
        CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
        for (int w = 0; w < active; w++)
            printf("memissue,active=%d;warp=%d;loads=%d,%lld,cycles\n", active,
                   w, n, h[w]);
    }
    CK(cudaFree(out));
    CK(cudaFree(sink));
    return 0;
}

// Rows per warp (0 and 4): its first and last clock read, from the earlier
// of the two first reads (the clock is the SM's: both warps read it).
static int run_memorder(void)
{
    long long *out, h[4];
    unsigned *sink;
    CK(cudaMalloc(&out, sizeof h));
    CK(cudaMalloc(&sink, 256 * 4));
    for (int rep = 0; rep < 2; rep++) { // the second run has warm code
        CK(cudaMemset(out, 0, sizeof h));
        k_memorder<<<1, 256>>>(out, sink);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
    }
    CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    long long t0 = h[0] < h[2] ? h[0] : h[2];
    for (int k = 0; k < 2; k++) {
        printf("memorder,warp=%d;at=first,%lld,cycles\n", 4 * k, h[2 * k] - t0);
        printf("memorder,warp=%d;at=last,%lld,cycles\n", 4 * k,
               h[2 * k + 1] - t0);
    }
    CK(cudaFree(out));
    CK(cudaFree(sink));
    return 0;
}

static double event_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

static long long max_of(const long long *h, size_t n)
{
    long long mx = 0;
    for (size_t i = 0; i < n; i++)
        mx = h[i] > mx ? h[i] : mx;
    return mx;
}

// Atomics: 8 CTAs x 256 threads per SM (one wave), ATOM_ITERS each.
static int run_atom(const char *scope, const char *space)
{
    static const struct {
        const char *scope, *space;
        void (*fn)(unsigned *, long long *);
    } ak[] = {{"warp", "global", k_atom_warp_global},
              {"cta", "global", k_atom_cta_global},
              {"lane", "global", k_atom_lane_global},
              {"warp", "shared", k_atom_warp_shared},
              {"cta", "shared", k_atom_cta_shared},
              {"lane", "shared", k_atom_lane_shared}};
    void (*fn)(unsigned *, long long *) = NULL;
    for (size_t i = 0; i < sizeof ak / sizeof ak[0]; i++)
        if (!strcmp(ak[i].scope, scope) && !strcmp(ak[i].space, space))
            fn = ak[i].fn;
    if (!fn) {
        fprintf(stderr, "atom: SCOPE warp|cta|lane, SPACE global|shared\n");
        return 1;
    }
    int grid = 8 * sm_count(), block = 256;
    size_t n = (size_t)grid * block;
    unsigned *g;
    long long *out;
    CK(cudaMalloc(&g, n * 4));
    CK(cudaMalloc(&out, grid * 8));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int rep = 0; rep < 2; rep++) {
        CK(cudaMemset(g, 0, n * 4));
        CK(cudaEventRecord(a));
        fn<<<grid, block>>>(g, out);
        CK(cudaEventRecord(b));
        CK(cudaGetLastError());
        CK(cudaEventSynchronize(b));
    }
    long long *h = (long long *)malloc(grid * 8);
    CK(cudaMemcpy(h, out, grid * 8, cudaMemcpyDeviceToHost));
    double ops = (double)n * ATOM_ITERS;
    long long mx = max_of(h, (size_t)grid);
    printf("atom,scope=%s;space=%s;grid=%d;block=%d;iters=%d,%.4f,atomics/cycle\n",
           scope, space, grid, block, ATOM_ITERS, ops / (double)mx);
    printf("atom,scope=%s;space=%s;grid=%d;block=%d;iters=%d,%lld,cycles/cta-max\n",
           scope, space, grid, block, ATOM_ITERS, mx);
    printf("atom,scope=%s;space=%s;grid=%d;block=%d;iters=%d,%.4f,atomics/ns\n",
           scope, space, grid, block, ATOM_ITERS, ops / (event_ms(a, b) * 1e6));
    free(h);
    CK(cudaFree(g));
    CK(cudaFree(out));
    return 0;
}

// Streaming bandwidth: one wave of 1024-thread CTAs, a warm-up pass first.
static int run_bw(const char *kind, size_t bytes)
{
    int copy = !strcmp(kind, "copy");
    if (!copy && strcmp(kind, "read")) {
        fprintf(stderr, "bw: KIND read|copy\n");
        return 1;
    }
    size_t n4 = bytes / 16;
    if (n4 == 0) {
        fprintf(stderr, "bw: BYTES >= 16\n");
        return 1;
    }
    int per_sm = 0, block = 1024;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, copy ? (const void *)k_bw_copy : (const void *)k_bw_read, block, 0));
    int grid = (per_sm > 0 ? per_sm : 1) * sm_count();
    float4 *src, *dst = NULL;
    float *sink;
    long long *out;
    CK(cudaMalloc(&src, n4 * 16));
    CK(cudaMemset(src, 0, n4 * 16));
    if (copy)
        CK(cudaMalloc(&dst, n4 * 16));
    CK(cudaMalloc(&sink, 4));
    CK(cudaMalloc(&out, grid * 8));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int rep = 0; rep < 2; rep++) { // rep 0 warms L2 (and the TLBs)
        CK(cudaEventRecord(a));
        if (copy)
            k_bw_copy<<<grid, block>>>(src, n4, dst, out);
        else
            k_bw_read<<<grid, block>>>(src, n4, sink, out);
        CK(cudaEventRecord(b));
        CK(cudaGetLastError());
        CK(cudaEventSynchronize(b));
    }
    long long *h = (long long *)malloc(grid * 8);
    CK(cudaMemcpy(h, out, grid * 8, cudaMemcpyDeviceToHost));
    double moved = (double)n4 * 16 * (copy ? 2 : 1);
    long long mx = max_of(h, (size_t)grid);
    printf("bw,kind=%s;bytes=%zu;grid=%d;block=%d,%.3f,bytes/cycle\n", kind,
           n4 * 16, grid, block, moved / (double)mx);
    printf("bw,kind=%s;bytes=%zu;grid=%d;block=%d,%.2f,GB/s\n", kind, n4 * 16,
           grid, block, moved / (event_ms(a, b) * 1e6));
    free(h);
    CK(cudaFree(src));
    if (dst)
        CK(cudaFree(dst));
    CK(cudaFree(sink));
    CK(cudaFree(out));
    return 0;
}

// Shared-memory bandwidth: one wave of 1024-thread CTAs.
static int run_shbw(int width)
{
    void (*fn)(long long *, float *) = width == 4 ? k_shbw4 : width == 8 ? k_shbw8
                                     : width == 16 ? k_shbw16 : NULL;
    if (!fn) {
        fprintf(stderr, "shbw: WIDTH 4, 8 or 16\n");
        return 1;
    }
    int per_sm = 0, block = 1024;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)fn, block, 0));
    if (per_sm < 1)
        per_sm = 1;
    int grid = per_sm * sm_count();
    long long *out;
    float *sink;
    CK(cudaMalloc(&out, grid * 8));
    CK(cudaMalloc(&sink, 4));
    for (int rep = 0; rep < 2; rep++) {
        fn<<<grid, block>>>(out, sink);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
    }
    long long *h = (long long *)malloc(grid * 8);
    CK(cudaMemcpy(h, out, grid * 8, cudaMemcpyDeviceToHost));
    double bytes_per_sm = (double)per_sm * block * SHBW_LOADS * width;
    printf("shbw,width=%d;ctas_per_sm=%d;block=%d;loads=%d,%.3f,bytes/cycle/SM\n",
           width, per_sm, block, SHBW_LOADS,
           bytes_per_sm / (double)max_of(h, (size_t)grid));
    free(h);
    CK(cudaFree(out));
    CK(cudaFree(sink));
    return 0;
}

// Device facts as info,KEY,VALUE,unit rows.
static int run_info(void)
{
    int d, v;
    CK(cudaGetDevice(&d));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, d));
    printf("info,name,%s,\n", p.name);
    printf("info,sm_count,%d,SM\n", p.multiProcessorCount);
    printf("info,cc,%d.%d,\n", p.major, p.minor);
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, d));
    printf("info,clock_max,%d,kHz\n", v);
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, d));
    printf("info,mem_clock,%d,kHz\n", v);
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, d));
    printf("info,mem_bus_width,%d,bit\n", v);
    printf("info,l2_bytes,%d,byte\n", p.l2CacheSize);
    printf("info,smem_per_sm,%zu,byte\n", p.sharedMemPerMultiprocessor);
    printf("info,regs_per_sm,%d,register\n", p.regsPerMultiprocessor);
    printf("info,threads_per_sm,%d,thread\n", p.maxThreadsPerMultiProcessor);
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
        fprintf(stderr, "usage: wcbench lat|tput OP | chase|chasecg BYTES STRIDE | "
                        "shlat STRIDE | memissue ACTIVE | memorder | imbalance MODE | "
                        "atom warp|cta|lane global|shared | bw read|copy BYTES | "
                        "shbw 4|8|16 | empty GRID BLOCK | ffma GRID BLOCK ITERS | "
                        "ops | info\n");
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
    if ((!strcmp(t, "chase") || !strcmp(t, "chasecg")) && argc == 4)
        return run_chase(strtoull(argv[2], 0, 0), strtoull(argv[3], 0, 0),
                         !strcmp(t, "chasecg"));
    if (!strcmp(t, "atom") && argc == 4)
        return run_atom(argv[2], argv[3]);
    if (!strcmp(t, "bw") && argc == 4)
        return run_bw(argv[2], strtoull(argv[3], 0, 0));
    if (!strcmp(t, "shbw") && argc == 3)
        return run_shbw(atoi(argv[2]));
    if (!strcmp(t, "info") && argc == 2)
        return run_info();
    if (!strcmp(t, "shlat") && argc == 3)
        return run_shlat((unsigned)atoi(argv[2]));
    if (!strcmp(t, "memissue") && argc == 3)
        return run_memissue(atoi(argv[2]));
    if (!strcmp(t, "memorder") && argc == 2)
        return run_memorder();
    if (!strcmp(t, "imbalance") && argc == 3)
        return run_imbalance(atoi(argv[2]));
    if (!strcmp(t, "empty") && argc == 4)
        return run_launch(0, atoi(argv[2]), atoi(argv[3]), 0);
    if (!strcmp(t, "ffma") && argc == 5)
        return run_launch(1, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    fprintf(stderr, "wcbench: bad arguments (run without arguments for usage)\n");
    return 1;
}
