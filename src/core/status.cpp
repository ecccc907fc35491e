#include "status.h"

namespace d4r {

const char* error_code_name(ErrorCode code) {
    switch (code) {
    case ErrorCode::Invalid:
        return "invalid";
    case ErrorCode::NotFound:
        return "not found";
    case ErrorCode::Io:
        return "i/o";
    case ErrorCode::Unsupported:
        return "unsupported";
    case ErrorCode::Internal:
        return "internal";
    }
    return "unknown";
}

std::string Error::text() const {
    std::string out;
    for (const std::string& entry : m_context) {
        out += entry;
        out += ": ";
    }
    out += m_message;
    return out;
}

} // namespace d4r
