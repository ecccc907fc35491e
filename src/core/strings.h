// d4r core: small string utilities shared by the parsers and the CLI.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace d4r {

std::string_view trim(std::string_view text);
std::string to_lower(std::string_view text);
bool iequals(std::string_view a, std::string_view b);
bool starts_with(std::string_view text, std::string_view prefix);
std::vector<std::string_view> split(std::string_view text, char separator);

// Whole-string decimal parsing (optional sign for signed); no whitespace, no trailing junk.
std::optional<int64_t> parse_i64(std::string_view text);
std::optional<uint64_t> parse_u64(std::string_view text);
// Accepts 0x-prefixed hex too.
std::optional<uint64_t> parse_u64_any_base(std::string_view text);
// A size in bytes: digits, then optionally K, M, G or T (powers of 1024; KB/KiB and B spellings too, any case):
// "6442450944", "6G", "512m", "4096KiB". nullopt when malformed or past 2^64 - 1.
std::optional<uint64_t> parse_byte_size(std::string_view text);

// The value as a POSIX shell word: unchanged when it needs no quoting, else in single quotes.
std::string shell_quote(std::string_view value);

// Case-insensitive Levenshtein distance.
size_t edit_distance(std::string_view a, std::string_view b);
// The candidate nearest to WORD when it is close enough to be a plausible typo.
std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates);

std::string hex64(uint64_t value); // 16 lowercase hex digits

} // namespace d4r
