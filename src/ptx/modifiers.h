// The PTX front end: the modifiers of an instruction's opcode ("ld.global.nc.v4.u32": base "ld", modifiers
// global nc v4 u32), read by the instruction decoders, which consume what they understand; anything left is an
// error naming it.
#pragma once

#include <initializer_list>
#include <string_view>
#include <vector>

#include "ptx/types.h"

namespace d4r::ptx {

// The dotted parts of an opcode after its base name ("ld.global.nc.v4.u32" -> global nc v4 u32).
class Modifiers {
public:
    explicit Modifiers(std::string_view opcode);

    std::string_view base() const { return m_base; }
    bool has(std::string_view m) const;
    // Consumes M when present.
    bool take(std::string_view m);
    // Consumes the first present option; "" when none is present.
    std::string_view take_any(std::initializer_list<std::string_view> options);
    // Consumes the first remaining type modifier (in written order); None when there is none.
    Type take_type();
    // .v2/.v4/.v8 -> 2/4/8, else 1.
    unsigned take_vector();
    // Consumes every modifier starting with PREFIX (".L2::cache_hint", ".L1::evict_last").
    void take_prefixed(std::string_view prefix);
    // Consumes cache and memory-ordering hints that do not change results in a sequentially consistent
    // single-copy memory: .ca .cg .cs .lu .cv .wb .wt .nc .volatile .relaxed .acquire .release .weak
    // .L1::* .L2::* .mmio, and the scopes .cta .gpu .sys .cluster.
    void take_memory_hints();
    // The first modifier not consumed, "" when all were.
    std::string_view leftover() const;
    // The first type modifier not consumed (None when there is none), without consuming it.
    Type peek_type() const;

private:
    std::string_view m_base;
    std::vector<std::string_view> m_parts;
    std::vector<bool> m_used;
};

} // namespace d4r::ptx
