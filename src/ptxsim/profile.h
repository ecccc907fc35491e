// A launch's PTX profile (LaunchConfig::profile_sink): the warp instructions each BlockRunner counted at each pc of the
// kernel's program, summed, then told per line of the PTX.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ptxsim/ir.h"

namespace d4r::ptxsim {

// INTO[pc] += FROM[pc] for every pc (INTO made as long as FROM when shorter).
void add_pc_counts(std::vector<uint64_t>& into, const std::vector<uint64_t>& from);

// PROGRAM's counts per pc (PC_COUNTS, parallel to program.code) as profile_sink's text: per PTX line that issued any
// (the instructions decoded from one line summed), "COUNT LINE TEXT\n", the most first, ties in line order.
std::string profile_text(const Program& program, const std::vector<uint64_t>& pc_counts);

} // namespace d4r::ptxsim
