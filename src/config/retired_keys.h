// d4r config: keys d4r.ini once offered and no longer has.
//
// Promise: retired_keys() lists every key removed from the schema (section, name, the variable it used to
// export and why it went). A d4r.ini that still sets one gets a warning naming the key, saying it was removed
// and has no effect (not "unknown key, did you mean ..."); an [Env] line that sets a retired key's variable is
// told that nothing reads it. A retired key is never also a schema key (a test checks).
#pragma once

#include <span>
#include <string_view>

namespace d4r::config {

struct RetiredKey {
    std::string_view section;
    std::string_view name;
    std::string_view variable; // what it exported; nothing in d4r reads it
    std::string_view why;      // one clause, after "removed: "
};

std::span<const RetiredKey> retired_keys();
// Case-insensitive, like find_key; nullptr when KEY in SECTION was never retired.
const RetiredKey* find_retired_key(std::string_view section, std::string_view name);
// The retired key whose variable is NAME (case-sensitive); nullptr when none.
const RetiredKey* find_retired_variable(std::string_view name);

} // namespace d4r::config
