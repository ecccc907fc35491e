// The modifiers of an opcode (see modifiers.h).
#include "ptx/modifiers.h"

#include "ptx/ptx_lexer.h"

namespace d4r::ptx {

Modifiers::Modifiers(std::string_view opcode) {
    std::vector<std::string_view> parts = split_dotted(opcode);
    m_base = parts.empty() ? std::string_view() : parts[0];
    m_parts.assign(parts.begin() + (parts.empty() ? 0 : 1), parts.end());
    m_used.assign(m_parts.size(), false);
}

bool Modifiers::has(std::string_view m) const {
    for (size_t i = 0; i < m_parts.size(); ++i)
        if (!m_used[i] && m_parts[i] == m) return true;
    return false;
}

bool Modifiers::take(std::string_view m) {
    for (size_t i = 0; i < m_parts.size(); ++i) {
        if (!m_used[i] && m_parts[i] == m) {
            m_used[i] = true;
            return true;
        }
    }
    return false;
}

std::string_view Modifiers::take_any(std::initializer_list<std::string_view> options) {
    for (size_t i = 0; i < m_parts.size(); ++i) {
        if (m_used[i]) continue;
        for (std::string_view o : options) {
            if (m_parts[i] == o) {
                m_used[i] = true;
                return o;
            }
        }
    }
    return {};
}

Type Modifiers::take_type() {
    for (size_t i = 0; i < m_parts.size(); ++i) {
        if (m_used[i]) continue;
        Type t = parse_type(m_parts[i]);
        if (t != Type::None) {
            m_used[i] = true;
            return t;
        }
    }
    return Type::None;
}

Type Modifiers::peek_type() const {
    for (size_t i = 0; i < m_parts.size(); ++i) {
        if (m_used[i]) continue;
        Type t = parse_type(m_parts[i]);
        if (t != Type::None) return t;
    }
    return Type::None;
}

unsigned Modifiers::take_vector() {
    std::string_view v = take_any({"v2", "v4", "v8"});
    return v.empty() ? 1 : static_cast<unsigned>(v[1] - '0');
}

void Modifiers::take_prefixed(std::string_view prefix) {
    for (size_t i = 0; i < m_parts.size(); ++i)
        if (!m_used[i] && m_parts[i].substr(0, prefix.size()) == prefix) m_used[i] = true;
}

void Modifiers::take_memory_hints() {
    for (std::string_view h : {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "volatile", "relaxed", "acquire",
                               "release", "acq_rel", "weak", "mmio", "cta", "gpu", "sys", "cluster"})
        while (take(h)) {
        }
    take_prefixed("L1::");
    take_prefixed("L2::");
}

std::string_view Modifiers::leftover() const {
    for (size_t i = 0; i < m_parts.size(); ++i)
        if (!m_used[i]) return m_parts[i];
    return {};
}

} // namespace d4r::ptx
