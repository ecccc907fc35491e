#include "ptx/module_hash.h"

#include "core/fnv1a.h"
#include "core/strings.h"

namespace d4r::ptx {

std::string_view strip_trailing_nuls(std::string_view text) {
    size_t end = text.size();
    while (end > 0 && text[end - 1] == '\0') --end;
    return text.substr(0, end);
}

uint64_t module_hash(std::string_view module_text) { return fnv1a64(strip_trailing_nuls(module_text)); }

std::string module_hash_hex(std::string_view module_text) { return hex64(module_hash(module_text)); }

std::optional<uint64_t> parse_module_hash(std::string_view text) {
    if (text.size() != 16) return std::nullopt;
    uint64_t value = 0;
    for (char c : text) {
        unsigned digit;
        if (c >= '0' && c <= '9')
            digit = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f')
            digit = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            digit = static_cast<unsigned>(c - 'A' + 10);
        else
            return std::nullopt;
        value = (value << 4) | digit;
    }
    return value;
}

} // namespace d4r::ptx
