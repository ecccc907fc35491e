// d4r core: running other programs and isolating risky probes.
//
// Promise: run_process() runs a program with a time limit and captures its output (bounded);
// run_isolated() runs a function in a forked child so that a crash or hang inside a third-party
// library (a GPU driver probed by `d4r doctor`, say) costs the child, not d4r. Neither throws; a
// timeout kills the child and is reported as an error.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "status.h"

namespace d4r {

struct ProcessResult {
    int exit_code = -1; // 128 + signal when killed by a signal
    std::string output; // stdout and stderr together, at most max_output bytes
};

// ARGV[0] is looked up in PATH when it has no slash.
Expected<ProcessResult> run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                                    size_t max_output = 1 << 20);

// Runs FN in a forked child and returns the string it produced. A child that crashes, exits early or
// runs past TIMEOUT gives an error saying which. Only for single-threaded callers (the CLI).
Expected<std::string> run_isolated(const std::function<std::string()>& fn, std::chrono::milliseconds timeout);

// The file of the running program (/proc/self/exe), or empty when it cannot be read.
std::string executable_path();

// The first PATH entry holding an executable NAME, or empty.
std::string find_in_path(const std::string& name);

} // namespace d4r
