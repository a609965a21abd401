/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Shared by the two phases of the candidate sort (sort.cu: the long
// segments across the grid; sort_small.cuh: the short ones, a block each):
// the partition they both compute, the block size and the shared storage.
#ifndef FOVEA_KLT_SORT_COMMON_CUH
#define FOVEA_KLT_SORT_COMMON_CUH

#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "klt/sort_cuda.h"

namespace
{

// The partition of select.c's partition_step on a' = the segment with its
// middle element exchanged with the first (pivot value P = a'[0]). With
// L = positions k >= 1 holding a value <= P (ranked from the left) and R =
// those holding a value >= P (ranked from the right), the t-th of L and the
// t-th of R are exchanged exactly when the former lies left of the latter;
// T exchanges in all. The scan then stops at J = the (T+1)-th of R when that
// lies right of the T-th of L (position 0 when T = 0), else at the T-th of L,
// and the pivot is exchanged with what is there. An element of L at k with
// rank t moves iff at least t elements of R lie right of k; one of R moves iff
// at least t of L lie left of it (a value equal to P is in both, moves at
// most once). Counts of L (low 16 bits) and R (high 16 bits) are packed into
// one scan: a tile or a short segment has fewer than 65536 elements.

constexpr int kQsThreads = 1024;
constexpr int kQsPer = KLT_CUDA_QS_TILE / kQsThreads;
constexpr int kQsSmallPer = KLT_CUDA_QS_SMALL / kQsThreads;
constexpr int kQsBufBit = 30;
constexpr int kQsLenMask = (1 << kQsBufBit) - 1;

typedef cub::BlockScan<int, kQsThreads> QsScan;
typedef cub::BlockReduce<int, kQsThreads> QsReduce;

union QsTemp {
    QsScan::TempStorage scan;
    QsReduce::TempStorage reduce;
};

constexpr int kQsLocalSegs = 32;  // a level of at most this many segments is planned locally
constexpr int kQsLocalTiles = 32; // a segment of at most this many tiles sums its offsets locally

struct QsShared {
    QsTemp tmp;
    int carry, flag, ntiles;
    int loff, roff;         // this block's tile: L / R ranks before it
    int2 seg[kQsLocalSegs]; // a local plan: the level's segments,
    int tile0[kQsThreads];  // their first tiles (also qs_plan's scratch)
};

} // namespace

#endif
