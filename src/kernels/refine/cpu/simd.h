// Whether the refine network's CPU kernels take their explicit vector paths (AVX, AVX2 and F16C intrinsics) where the
// CPU has those extensions. (The plain loops compiled as target clones are picked by the loader, not by this.)
// Promise: on by default; off, every kernel takes its scalar path, which gives the same bytes (tests turn it off to
// show that). The CPU is read once; the use_* answers are "the CPU has it and the switch is on". Thread-safe; read at
// every launch.
#pragma once

namespace d4r::refine_cpu {

bool simd_enabled();
void set_simd_enabled(bool on);

bool use_avx();       // AVX
bool use_avx_f16c();  // AVX and F16C
bool use_avx2_f16c(); // AVX2 and F16C

} // namespace d4r::refine_cpu
