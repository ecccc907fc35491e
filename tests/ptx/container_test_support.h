// Shared helpers of the container tests: fixture bytes and the expected PTX texts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "test_support.h"

namespace d4r::ptx::test {

inline std::vector<uint8_t> fixture_bytes(const std::string& relative) {
    std::string text = d4r::test::read_file_text(d4r::test::fixture_dir() / "ptx" / relative);
    return std::vector<uint8_t>(text.begin(), text.end());
}

inline std::string fixture_text(const std::string& relative) {
    return d4r::test::read_file_text(d4r::test::fixture_dir() / "ptx" / relative);
}

inline std::string without_trailing_nuls(std::string text) {
    while (!text.empty() && text.back() == '\0') text.pop_back();
    return text;
}

} // namespace d4r::ptx::test
