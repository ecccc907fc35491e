#include "cli_common.h"

#include <fmt/format.h>

namespace d4r::cli {

namespace {
int g_exit_status = kExitOk;
}

void set_action(CLI::App* sub, std::function<int()> action) {
    sub->callback([action = std::move(action)] { g_exit_status = action(); });
}

int exit_status() { return g_exit_status; }

int report_error(const Error& error) {
    fmt::print(stderr, "d4r: error: {}\n", error.text());
    switch (error.code()) {
    case ErrorCode::Invalid:
    case ErrorCode::NotFound:
    case ErrorCode::Unsupported:
        return kExitUsage;
    case ErrorCode::Io:
    case ErrorCode::Internal:
        return kExitFailed;
    }
    return kExitFailed;
}

} // namespace d4r::cli
