// d4r's measured numerics: whole tiles of the tensor-core rule (mma_numerics.h) at vector speed, for the wmma and mma
// executors of ptxsim and the PTX JIT's warp code (a tensor-core GEMM runs billions of these dot products).
//
// Promise: tile_f32(), tile_f16() and tile_f64() give exactly the bits the scalar rule gives for every element (dot()
// for f16/bf16/tf32 inputs with f32 accumulators, for f16 inputs with f16 accumulators; an IEEE fma per k in k order
// for f64, as std::fma computes it), or
// return false without a result when they cannot promise that — a value that is not finite among the inputs or the
// intermediate results (the scalar rule's special cases, NaN payloads), or a host without AVX2, FMA and F16C — and the
// caller runs the scalar rule. Matrices are row-major with the given row strides (in elements).
#pragma once

#include <cstdint>

#include "numerics/mma_numerics.h"

namespace d4r::numerics::mma {

// Whether this host runs the vector tiles (AVX2, FMA and F16C); tile_* return false everywhere else.
bool tile_supported();

// One tile of the f32-accumulator rule: D (M x N, f32 bits) = A (M x K) * B (K x N) + C (M x N, f32 bits), A and B
// raw bits of FORMAT (F16 or BF16 in the low 16 bits, or F32 bits for tf32, TF32 true: the 13 low mantissa bits are
// ignored). K is split into PASSES equal consecutive passes (tf32 wmma: 2), each pass's f32 result the next one's C,
// as the scalar rule's dot() calls are chained: the shapes of wmma and mma.sync, K = 16 in one pass with N = 8, 16 or
// 32, K = 8 in one pass with N = 8, or K = 8 in two (tf32) with N = 16; M*N at most 1024 (other tiles: false).
// Where the host has AVX-512 eight columns at a time, unless VECTOR says AVX2 (tests and benchmarks compare both).
enum class TileVector : uint8_t { Widest, Avx2 };
bool tile_f32(Format format, bool tf32, const uint64_t* a, unsigned lda, const uint64_t* b, unsigned ldb,
              const uint64_t* c, unsigned ldc, uint64_t* d, unsigned ldd, unsigned m, unsigned n, unsigned k,
              unsigned passes, TileVector vector = TileVector::Widest);
// The same with 32-bit words (each element's raw bits in the low bits of its word; D's words are f32 bits).
bool tile_f32(Format format, bool tf32, const uint32_t* a, unsigned lda, const uint32_t* b, unsigned ldb,
              const uint32_t* c, unsigned ldc, uint32_t* d, unsigned ldd, unsigned m, unsigned n, unsigned k,
              unsigned passes, TileVector vector = TileVector::Widest);

// One tile of the f16-accumulator rule (dot() with f16 inputs and OUT_F16): D (M x N) = A (M x K) * B (K x N) + C
// (M x N), every element's raw f16 bits in the low 16 bits of its word (D's words: the f16 bits, zero-extended), in one
// pass: mma.sync's m16n8k16 and m16n8k8, wmma's m16n16k16 (other shapes: false). An infinity or a NaN among the inputs
// leaves the tile to the scalar rule; a sum beyond the f16 range is the rule's infinity here too.
bool tile_f16(const uint32_t* a, unsigned lda, const uint32_t* b, unsigned ldb, const uint32_t* c, unsigned ldc,
              uint32_t* d, unsigned ldd, unsigned m, unsigned n, unsigned k, TileVector vector = TileVector::Widest);

// mma.sync.m16n8k16 with f16 inputs and f16 accumulators as the warp's registers hold it (the PTX ISA's fragments: lane
// 4g + t holds halves 2t and 2t + 1 of a row g of A, C and D, of a column g of B): A's four registers, B's two, C's
// two and D's two, each 32 lanes of 32-bit words, D written only where the result is true, after all of it is
// computed (D may be C). tile_f16's bits and refusals.
bool tile_f16_m16n8k16(const uint32_t* const a[4], const uint32_t* const b[2], const uint32_t* const c[2],
                       uint32_t* const d[2], TileVector vector = TileVector::Widest);

// One f64 tile: D = A * B + C with D[i][j] = fma(A[i][K-1], B[K-1][j], ... fma(A[i][0], B[0][j], C[i][j])), every
// value the raw bits of a double. N must be a multiple of 4 (m8n8k4 in AVX-512 where the host has it).
bool tile_f64(const uint64_t* a, unsigned lda, const uint64_t* b, unsigned ldb, const uint64_t* c, unsigned ldc,
              uint64_t* d, unsigned ldd, unsigned m, unsigned n, unsigned k, TileVector vector = TileVector::Widest);

// The m8n8k4 f64 tile as wmma's registers hold it: A (8 x 4) and B (4 x 8) row-major, C's and D's rows 0-3 at
// C[0] and D[0] and rows 4-7 at C[1] and D[1] (row-major, 8 apart). D is written only where the result is true, and
// only once every element of it is computed: D may share memory with A, B or C.
bool tile_f64_m8n8k4(const uint64_t* a, const uint64_t* b, const uint64_t* const c[2], uint64_t* const d[2],
                     TileVector vector = TileVector::Widest);

} // namespace d4r::numerics::mma
