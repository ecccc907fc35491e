#include "diagnostic.h"

#include <algorithm>

#include <fmt/format.h>

namespace d4r::config {

std::string Diagnostic::text() const {
    if (file.empty()) return message;
    if (line <= 0) return fmt::format("{}: {}", file, message);
    return fmt::format("{}:{}: {}", file, line, message);
}

bool has_errors(const std::vector<Diagnostic>& diagnostics) {
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

} // namespace d4r::config
