// The shim's settings (settings.h).
#include "shim/settings.h"

#include <cctype>
#include <string>

#include "core/log.h"

namespace d4r::shim {

namespace {

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
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
        const std::string v = lower(*text);
        if (v == "1" || v == "true" || v == "on" || v == "yes")
            s.blocking_sync = true;
        else if (v == "0" || v == "false" || v == "off" || v == "no" || v.empty())
            s.blocking_sync = false;
        else
            log::warn("shim: {}={}: not a boolean (true/false, on/off, yes/no, 1/0); false kept", kBlockingSyncVariable,
                      *text);
    }
    return s;
}

} // namespace d4r::shim
