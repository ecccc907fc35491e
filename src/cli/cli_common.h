// d4r command: shared pieces of the verbs.
//
// Every verb is a CLI11 subcommand registered by a register_* function (verbs.h) and runs through
// set_action, which records its exit status. Exit statuses: 0 success, 1 a check or comparison
// failed, 2 bad usage or bad input (the message names the file, line, key or value).
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "core/status.h"

namespace d4r::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// Runs ACTION when SUB was chosen on the command line; its return value is the process exit status.
void set_action(CLI::App* sub, std::function<int()> action);
int exit_status();

// Prints "d4r: error: <text>" to stderr and returns the exit status for the error's code
// (2 for invalid input, missing files and unsupported requests; 1 otherwise).
int report_error(const Error& error);

} // namespace d4r::cli
