// The shim's settings (settings.h).
#include "shim/settings.h"

#include <cctype>
#include <optional>
#include <string>

#include "core/log.h"

namespace d4r::shim {

namespace {

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// true/false for the accepted boolean spellings, nullopt otherwise.
std::optional<bool> parse_bool(const std::string& text) {
    const std::string v = lower(text);
    if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
    if (v == "0" || v == "false" || v == "off" || v == "no") return false;
    return std::nullopt;
}

} // namespace

Settings read_settings(const Environment& env) {
    Settings s;
    if (auto text = env.get(kMaxInFlightVariable)) {
        unsigned v = 0;
        bool ok = !text->empty() && text->size() <= 3;
        for (char c : *text) {
            if (!std::isdigit(static_cast<unsigned char>(c))) ok = false;
            else v = v * 10 + unsigned(c - '0');
        }
        if (ok && v >= 1 && v <= kMaxMaxInFlight)
            s.max_in_flight = v;
        else
            log::warn("shim: {}={}: not a number of evaluations from 1 to {}; {} kept", kMaxInFlightVariable, *text,
                      kMaxMaxInFlight, kDefaultMaxInFlight);
    }
    if (auto text = env.get(kBlockingSyncVariable)) {
        if (auto v = parse_bool(*text))
            s.blocking_sync = *v;
        else if (!text->empty())
            log::warn("shim: {}={}: not a boolean (true/false, on/off, yes/no, 1/0); false kept", kBlockingSyncVariable,
                      *text);
    }
    if (auto text = env.get("D4R_SHIM_SPLIT_FRAME"); text && parse_bool(*text) == false)
        s.notices.push_back("D4R_SHIM_SPLIT_FRAME=" + *text +
                            " asks for pipelined results (d4r.ini [Latency] FrameAge above 0), which this shim does "
                            "not do yet: every frame gets its own result, as with FrameAge 0");
    if (auto text = env.get("D4R_SHIM_VRAM_INTEROP"); text && parse_bool(*text) == true)
        s.notices.push_back("D4R_SHIM_VRAM_INTEROP=" + *text +
                            " asks for the VRAM data path, which this shim does not have yet: inputs and output go "
                            "through the host path (readback, CPU conversion, upload)");
    return s;
}

} // namespace d4r::shim
