// Whether the refine network's CPU kernels take their explicit vector paths (AVX, AVX2 and F16C intrinsics) where the
// CPU has those extensions. (The plain loops compiled as target clones are picked by the loader, not by this.)
// Promise: on by default; off, every kernel takes its scalar path, which gives the same bytes (tests turn it off to
// show that). Thread-safe; read at every launch.
#pragma once

namespace d4r::refine_cpu {

bool simd_enabled();
void set_simd_enabled(bool on);

} // namespace d4r::refine_cpu
