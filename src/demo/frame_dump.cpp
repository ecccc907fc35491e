// Frame dumps of `d4r demo --dump-frames` (see frame_dump.h).
#include "demo/frame_dump.h"

#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "image/half.h"

namespace d4r::demo {

namespace {

// Little-endian stores into a buffer sized beforehand.
void put_u16(uint8_t* at, uint16_t v) {
    at[0] = uint8_t(v);
    at[1] = uint8_t(v >> 8);
}

void put_u32(uint8_t* at, uint32_t v) {
    for (int i = 0; i < 4; ++i) at[i] = uint8_t(v >> (8 * i));
}

uint32_t get_u32(std::span<const uint8_t> bytes, size_t offset) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(bytes[offset + i]) << (8 * i);
    return v;
}

} // namespace

std::vector<uint16_t> rgb_of_rgba_halves(std::span<const uint16_t> rgba) {
    std::vector<uint16_t> rgb;
    rgb.reserve(rgba.size() / 4 * 3);
    for (size_t i = 0; i + 3 < rgba.size(); i += 4) rgb.insert(rgb.end(), {rgba[i], rgba[i + 1], rgba[i + 2]});
    return rgb;
}

std::vector<uint16_t> rgb_halves(const image::Image& image) {
    std::vector<uint16_t> rgb;
    rgb.reserve(size_t(image.width) * image.height * 3);
    for (uint32_t y = 0; y < image.height; ++y)
        for (uint32_t x = 0; x < image.width; ++x)
            for (uint32_t c = 0; c < 3; ++c) rgb.push_back(image::float_to_half(image.at(x, y, c)));
    return rgb;
}

std::vector<uint8_t> encode_frame_dump(const FrameDump& dump) {
    std::vector<uint8_t> out(kFrameDumpHeaderBytes + (dump.output.size() + dump.truth.size()) * 2);
    std::memcpy(out.data(), kFrameDumpMagic, sizeof kFrameDumpMagic);
    put_u32(&out[8], dump.width);
    put_u32(&out[12], dump.height);
    put_u32(&out[16], std::bit_cast<uint32_t>(dump.exposure));
    put_u32(&out[20], dump.frame_index);
    uint8_t* at = out.data() + kFrameDumpHeaderBytes;
    for (const auto* halves : {&dump.output, &dump.truth})
        for (uint16_t v : *halves) {
            put_u16(at, v);
            at += 2;
        }
    return out;
}

Expected<FrameDump> decode_frame_dump(std::span<const uint8_t> bytes) {
    if (bytes.size() < kFrameDumpHeaderBytes || std::memcmp(bytes.data(), kFrameDumpMagic, 8) != 0)
        return make_error(ErrorCode::Invalid, "not a d4r frame dump (no 'd4rfrm1' header)");
    FrameDump dump;
    dump.width = get_u32(bytes, 8);
    dump.height = get_u32(bytes, 12);
    dump.exposure = std::bit_cast<float>(get_u32(bytes, 16));
    dump.frame_index = get_u32(bytes, 20);
    uint64_t pixels = uint64_t(dump.width) * dump.height; // < 2^64 / 12: the products below cannot wrap
    uint64_t values = pixels * 3;
    if (bytes.size() - kFrameDumpHeaderBytes != values * 4)
        return make_error(ErrorCode::Invalid, "d4r frame dump of {}x{}: {} bytes, expected {}", dump.width, dump.height,
                          bytes.size(), kFrameDumpHeaderBytes + values * 4);
    auto halves = [&](size_t offset) {
        std::vector<uint16_t> v(values);
        for (size_t i = 0; i < values; ++i)
            v[i] = uint16_t(bytes[offset + 2 * i] | (uint16_t(bytes[offset + 2 * i + 1]) << 8));
        return v;
    };
    dump.output = halves(kFrameDumpHeaderBytes);
    dump.truth = halves(kFrameDumpHeaderBytes + values * 2);
    return dump;
}

std::string frame_dump_name(std::string_view scene, uint32_t frame_index) {
    return fmt::format("{}-f{:03}.d4rframe", scene, frame_index);
}

} // namespace d4r::demo
