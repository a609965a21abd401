/* SM clock probe for bench_stitch (see stitch_clock.h). */
#include "stitch_clock.h"

#include <cuda_runtime.h>

#include <stdio.h>
#include <time.h>

namespace {

/* Host-mapped words the probe kernel writes. (The host's writes to mapped
 * memory did not reach a polling kernel on the lent machines, so the stop
 * signal is a device word set by a copy on a stream of its own.) */
struct probe_words {
    volatile int started;       /* kernel: 1 once running */
    int timed_out;              /* kernel: 1 when it stopped at its time limit */
    unsigned long long t0, t1;  /* %globaltimer, ns */
    long long c0, c1;           /* clock64 of the probe's SM */
};

cudaStream_t g_stream, g_signal;
probe_words *g_words;    /* host view */
probe_words *g_dwords;   /* device view */
int *g_stop;             /* device: 1 = stop now */
int *g_one, *g_zero;     /* pinned host sources of the stop word */
int g_running;

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One thread: the SM cycle counter and the global timer when it starts and when
 * `stop` turns 1 (or after limit_ns, so that it can never hang). */
__global__ void clock_probe(probe_words *w, const int *stop, unsigned long long limit_ns)
{
    unsigned long long t0 = global_ns();
    long long c0 = clock64();
    w->started = 1;
    __threadfence_system();
    int timed_out = 0;
    while (!__ldcv(stop) && !timed_out) {
        __nanosleep(4000);
        timed_out = global_ns() - t0 >= limit_ns;
    }
    w->timed_out = timed_out;
    unsigned long long t1;
    t1 = global_ns();
    long long c1 = clock64();
    w->t0 = t0;
    w->t1 = t1;
    w->c0 = c0;
    w->c1 = c1;
    __threadfence_system();
}

int fail(const char *what, cudaError_t e)
{
    fprintf(stderr, "bench_stitch: clock probe: %s: %s\n", what, cudaGetErrorString(e));
    return -1;
}

} // namespace

extern "C" int bench_clock_probe_start(void)
{
    cudaError_t e;
    if (g_running)
        return -1;
    if (!g_words) {
        void *p = NULL;
        if ((e = cudaHostAlloc(&p, sizeof(probe_words), cudaHostAllocMapped)) != cudaSuccess)
            return fail("cudaHostAlloc", e);
        g_words = static_cast<probe_words *>(p);
        if ((e = cudaHostGetDevicePointer((void **)&g_dwords, p, 0)) != cudaSuccess)
            return fail("cudaHostGetDevicePointer", e);
        if ((e = cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking)) != cudaSuccess ||
            (e = cudaStreamCreateWithFlags(&g_signal, cudaStreamNonBlocking)) != cudaSuccess)
            return fail("cudaStreamCreate", e);
        if ((e = cudaMalloc((void **)&g_stop, sizeof(int))) != cudaSuccess)
            return fail("cudaMalloc", e);
        e = cudaHostAlloc((void **)&g_one, 2 * sizeof(int), cudaHostAllocDefault);
        if (e != cudaSuccess)
            return fail("cudaHostAlloc", e);
        g_one[0] = 1;
        g_one[1] = 0;
        g_zero = g_one + 1;
    }
    g_words->started = 0;
    if ((e = cudaMemcpyAsync(g_stop, g_zero, sizeof(int), cudaMemcpyHostToDevice, g_stream)) !=
        cudaSuccess)
        return fail("cudaMemcpyAsync", e);
    clock_probe<<<1, 1, 0, g_stream>>>(g_dwords, g_stop, 10ull * 1000 * 1000 * 1000);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return fail("launch", e);
    /* wait until it holds its SM, so that the work measured cannot keep it out */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    while (!g_words->started) {
        if ((e = cudaStreamQuery(g_stream)) != cudaErrorNotReady)
            return fail("probe ended before it started", e == cudaSuccess ? cudaErrorUnknown : e);
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (b.tv_sec - a.tv_sec > 10)
            return fail("probe did not start within 10 s", cudaErrorLaunchTimeout);
    }
    g_running = 1;
    return 0;
}

extern "C" double bench_clock_probe_stop(void)
{
    if (!g_running)
        return 0.0;
    g_running = 0;
    /* the copy engine writes the stop word while the probe runs */
    cudaError_t e = cudaMemcpyAsync(g_stop, g_one, sizeof(int), cudaMemcpyHostToDevice, g_signal);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(g_stream);
    if (e != cudaSuccess) {
        fail("cudaStreamSynchronize", e);
        return 0.0;
    }
    const double ns = (double)(g_words->t1 - g_words->t0);
    const double cycles = (double)(g_words->c1 - g_words->c0);
    if (g_words->timed_out) {
        fprintf(stderr, "bench_stitch: clock probe: no stop signal within 10 s\n");
        return 0.0;
    }
    return ns > 0 ? cycles * 1e3 / ns : 0.0;
}
