// Cooperative emulation of a CUDA launch: each thread of a block is a
// ucontext; a barrier (__syncthreads, its _or, a shuffle) switches back to the
// scheduler, which resumes every thread in turn. Divergent barriers abort.
#include "emu.h"
#include <ucontext.h>
#include <vector>
#include <cstdio>
#include <cstdlib>
thread_local uint3v threadIdx;
thread_local uint3v blockIdx;
static ucontext_t sched;
static std::vector<ucontext_t> ctxs;
static std::vector<char *> stacks;
static std::vector<int> finished;
static unsigned cur;
static std::function<void()> *g_body;
static int or_acc;
static unsigned slots[1024];
static void yield_to_sched() { swapcontext(&ctxs[cur], &sched); threadIdx = {cur, 0, 0}; }
void __syncthreads() { yield_to_sched(); }
int __syncthreads_or(int v)
{
    yield_to_sched();
    if (v) or_acc = 1;
    yield_to_sched();
    int r = or_acc;
    yield_to_sched();
    if (threadIdx.x == 0) or_acc = 0;
    yield_to_sched();
    return r;
}
unsigned __shfl_down_sync(unsigned, unsigned v, int o)
{
    unsigned me = threadIdx.x;
    slots[me] = v;
    yield_to_sched();
    unsigned lane = me & 31, r = lane + o < 32 ? slots[me + o] : v;
    yield_to_sched();
    return r;
}
static void entry()
{
    (*g_body)();
    finished[cur] = 1;
    swapcontext(&ctxs[cur], &sched);
}
void emu_launch(dim3 grid, dim3 block, std::function<void()> body)
{
    const unsigned n = block.x;
    const size_t ss = 256 << 10;
    ctxs.resize(n);
    finished.assign(n, 0);
    while (stacks.size() < n) stacks.push_back((char *)malloc(ss));
    g_body = &body;
    for (unsigned by = 0; by < grid.y; by++)
        for (unsigned bx = 0; bx < grid.x; bx++) {
            blockIdx = {bx, by, 0};
            for (unsigned t = 0; t < n; t++) {
                getcontext(&ctxs[t]);
                ctxs[t].uc_stack.ss_sp = stacks[t];
                ctxs[t].uc_stack.ss_size = ss;
                ctxs[t].uc_link = nullptr;
                makecontext(&ctxs[t], entry, 0);
                finished[t] = 0;
            }
            for (;;) {
                unsigned done = 0;
                for (unsigned t = 0; t < n; t++) {
                    if (finished[t]) { done++; continue; }
                    cur = t;
                    threadIdx = {t, 0, 0};
                    swapcontext(&sched, &ctxs[t]);
                }
                if (done == n) break;
                // all must be at the same barrier or all finished: check
                unsigned f = 0;
                for (unsigned t = 0; t < n; t++) f += finished[t];
                if (f != 0 && f != n) { fprintf(stderr, "divergent barrier\n"); abort(); }
                if (f == n) break;
            }
        }
}
