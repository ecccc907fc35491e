// Names and sizes of PTX types.
#include "ptx/types.h"

namespace d4r::ptx {

namespace {

struct TypeInfo {
    Type type;
    const char* name;
    unsigned bits;
};

constexpr TypeInfo kTypes[] = {
    {Type::Pred, "pred", 1},  {Type::B8, "b8", 8},          {Type::B16, "b16", 16}, {Type::B32, "b32", 32},
    {Type::B64, "b64", 64},   {Type::B128, "b128", 128},    {Type::U8, "u8", 8},    {Type::U16, "u16", 16},
    {Type::U32, "u32", 32},   {Type::U64, "u64", 64},       {Type::S8, "s8", 8},    {Type::S16, "s16", 16},
    {Type::S32, "s32", 32},   {Type::S64, "s64", 64},       {Type::F16, "f16", 16}, {Type::F16x2, "f16x2", 32},
    {Type::BF16, "bf16", 16}, {Type::BF16x2, "bf16x2", 32}, {Type::F32, "f32", 32}, {Type::F64, "f64", 64},
    {Type::TF32, "tf32", 32},
};

} // namespace

Type parse_type(std::string_view name) {
    for (const TypeInfo& t : kTypes)
        if (name == t.name) return t.type;
    return Type::None;
}

const char* type_name(Type t) {
    for (const TypeInfo& i : kTypes)
        if (i.type == t) return i.name;
    return "none";
}

unsigned type_bits(Type t) {
    for (const TypeInfo& i : kTypes)
        if (i.type == t) return i.bits;
    return 0;
}

} // namespace d4r::ptx
