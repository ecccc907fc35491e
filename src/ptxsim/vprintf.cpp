// Host-side formatting of device printf (vprintf.h).
#include "ptxsim/vprintf.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace d4r::ptxsim {

namespace {

// Longest format or %s string read from device memory: a runaway string ends there.
constexpr uint32_t kMaxDeviceString = 1u << 20;

class Reader {
public:
    Reader(VprintfMemory& mem, uint64_t args) : m_mem(mem), m_args(args) {}

    // The next argument of SIZE bytes (4 or 8), at the next offset aligned to SIZE.
    bool next(uint32_t size, uint64_t& value) {
        m_offset = (m_offset + size - 1) & ~uint64_t(size - 1);
        value = 0;
        if (!m_mem.read(m_args + m_offset, &value, size)) return false;
        m_offset += size;
        ++m_count;
        return true;
    }
    int count() const { return m_count; }

private:
    VprintfMemory& m_mem;
    uint64_t m_args;
    uint64_t m_offset = 0;
    int m_count = 0;
};

// Reads a NUL-terminated device string (at most LIMIT characters); false on a fault.
bool read_string(VprintfMemory& mem, uint64_t addr, uint32_t limit, std::string& s) {
    for (uint32_t i = 0; i < limit; ++i) {
        char c = 0;
        if (!mem.read(addr + i, &c, 1)) return false;
        if (c == 0) break;
        s.push_back(c);
    }
    return true;
}

template <class... A>
void append_formatted(std::string& out, const std::string& spec, A... args) {
    char buf[512];
    int n = std::snprintf(buf, sizeof buf, spec.c_str(), args...);
    if (n < 0) return;
    if (size_t(n) < sizeof buf) {
        out.append(buf, size_t(n));
        return;
    }
    std::string big(size_t(n) + 1, '\0');
    std::snprintf(big.data(), big.size(), spec.c_str(), args...);
    out.append(big.data(), size_t(n));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

} // namespace

VprintfResult format_vprintf(VprintfMemory& mem, uint64_t fmt_addr, uint64_t args, std::string& out) {
    VprintfResult r;
    if (fmt_addr == 0) {
        r.value = -1;
        return r;
    }
    std::string fmt;
    if (!read_string(mem, fmt_addr, kMaxDeviceString, fmt)) {
        r.fault = true;
        return r;
    }
    Reader reader(mem, args);
    auto fail = [&]() {
        r.fault = true;
        r.value = reader.count();
        return r;
    };
    size_t i = 0;
    while (i < fmt.size()) {
        char c = fmt[i];
        if (c != '%') {
            size_t next = fmt.find('%', i);
            if (next == std::string::npos) next = fmt.size();
            out.append(fmt, i, next - i);
            i = next;
            continue;
        }
        const size_t start = i++;
        std::string spec = "%";
        while (i < fmt.size() && std::strchr("-+ #0", fmt[i])) spec.push_back(fmt[i++]);
        // Width and precision, '*' taking an int argument.
        for (int part = 0; part < 2; ++part) {
            if (part == 1) {
                if (i >= fmt.size() || fmt[i] != '.') break;
                spec.push_back(fmt[i++]);
            }
            if (i < fmt.size() && fmt[i] == '*') {
                uint64_t v = 0;
                if (!reader.next(4, v)) return fail();
                spec += std::to_string(int32_t(uint32_t(v)));
                ++i;
            } else {
                while (i < fmt.size() && is_digit(fmt[i])) spec.push_back(fmt[i++]);
            }
        }
        int precision = -1;
        if (size_t dot = spec.find('.'); dot != std::string::npos) precision = std::atoi(spec.c_str() + dot + 1);
        std::string length;
        while (i < fmt.size() && std::strchr("hlLzjt", fmt[i])) length.push_back(fmt[i++]);
        if (i >= fmt.size()) { // a dangling '%...' at the end is printed as written
            out.append(fmt, start, std::string::npos);
            break;
        }
        const char conv = fmt[i++];
        const bool wide = length == "l" || length == "ll" || length == "z" || length == "j" || length == "t";
        uint64_t v = 0;
        switch (conv) {
        case '%':
            out.push_back('%');
            break;
        case 'd':
        case 'i':
            if (!reader.next(wide ? 8 : 4, v)) return fail();
            if (wide)
                append_formatted(out, spec + "ll" + conv, static_cast<long long>(v));
            else
                append_formatted(out, spec + length + conv, int32_t(uint32_t(v)));
            break;
        case 'u':
        case 'o':
        case 'x':
        case 'X':
            if (!reader.next(wide ? 8 : 4, v)) return fail();
            if (wide)
                append_formatted(out, spec + "ll" + conv, static_cast<unsigned long long>(v));
            else
                append_formatted(out, spec + length + conv, uint32_t(v));
            break;
        case 'c':
            if (!reader.next(4, v)) return fail();
            append_formatted(out, spec + conv, int(int32_t(uint32_t(v))));
            break;
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
        case 'a':
        case 'A': {
            if (!reader.next(8, v)) return fail();
            double d;
            std::memcpy(&d, &v, sizeof d);
            append_formatted(out, spec + conv, d);
            break;
        }
        case 's': {
            if (!reader.next(8, v)) return fail();
            std::string s;
            if (v == 0)
                s = "(null)";
            else if (!read_string(mem, v, precision >= 0 ? uint32_t(precision) : kMaxDeviceString, s))
                return fail();
            append_formatted(out, spec + 's', s.c_str());
            break;
        }
        case 'p':
            if (!reader.next(8, v)) return fail();
            append_formatted(out, spec + 'p', reinterpret_cast<void*>(static_cast<uintptr_t>(v)));
            break;
        case 'n':
            if (!reader.next(8, v)) return fail();
            break;
        default:
            out.append(fmt, start, i - start);
            break;
        }
    }
    r.value = reader.count();
    return r;
}

} // namespace d4r::ptxsim
