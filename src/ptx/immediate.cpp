// The bits of an immediate operand (see immediate.h).
#include "ptx/immediate.h"

#include <bit>

namespace d4r::ptx {

Expected<uint64_t> immediate_bits(const ast::Operand& o, Type t) {
    unsigned bits = type_bits(t);
    uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    if (o.kind == ast::OperandKind::Integer) {
        if (t == Type::F32) return std::bit_cast<uint32_t>(static_cast<float>(static_cast<int64_t>(o.integer)));
        if (t == Type::F64) return std::bit_cast<uint64_t>(static_cast<double>(static_cast<int64_t>(o.integer)));
        if (is_float(t)) return make_error(ErrorCode::Unsupported, "an integer literal for type .{}", type_name(t));
        return o.integer & mask;
    }
    if (o.kind == ast::OperandKind::Float) {
        if (t == Type::F32 || (bits == 32 && o.float_bits == 32)) {
            if (o.float_bits == 32) return o.raw_bits;
            return std::bit_cast<uint32_t>(static_cast<float>(o.real));
        }
        if (t == Type::F64 || (bits == 64 && o.float_bits == 64)) {
            if (o.float_bits == 64) return o.raw_bits;
            if (o.float_bits == 32)
                return std::bit_cast<uint64_t>(
                    static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(o.raw_bits))));
            return std::bit_cast<uint64_t>(o.real);
        }
        return make_error(ErrorCode::Unsupported, "a floating-point literal for type .{}", type_name(t));
    }
    return make_error(ErrorCode::Unsupported, "not an immediate");
}

} // namespace d4r::ptx
