// d4r-rj-run --selftest: the probes of tools/rocjitsu/probes on every config of a folder, each against a host
// reference, plus the negative control and the gfx12 WMMA K-order probe. Prints one line per case.
//
// Promise: returns true only when every case gives its expected result, including the cases that must fail
// (a gfx11 object refused by, and wrong on, a gfx12 model; A and B fragments built with different K orders).
#pragma once

#include <string>

namespace d4r::rj {

bool run_selftest(const std::string& configs_dir, const std::string& probes_dir);

} // namespace d4r::rj
