// The CUDA built-ins stream.cu uses, for a CPU emulation of its kernels
// (scripts/stream-cuda-emu.sh): blocks run one after another, threads as
// coroutines (emu.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct uint3v { unsigned x, y, z; };
extern thread_local uint3v threadIdx;
extern thread_local uint3v blockIdx;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __shared__ static
typedef void *cudaStream_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
inline int cudaGetLastError() { return 0; }
void __syncthreads();
int __syncthreads_or(int);
unsigned __shfl_down_sync(unsigned mask, unsigned v, int o);
void emu_launch(dim3 grid, dim3 block, std::function<void()> body);
