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

std::vector<uint16_t> get_halves(std::span<const uint8_t> bytes, size_t offset, size_t count) {
    std::vector<uint16_t> v(count);
    for (size_t i = 0; i < count; ++i)
        v[i] = uint16_t(bytes[offset + 2 * i] | (uint16_t(bytes[offset + 2 * i + 1]) << 8));
    return v;
}

std::vector<float> get_floats(std::span<const uint8_t> bytes, size_t offset, size_t count) {
    std::vector<float> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = std::bit_cast<float>(get_u32(bytes, offset + 4 * i));
    return v;
}

// Bytes of a version 2 dump of these sizes (sides at most kFrameDumpMaxSide: no wrap).
uint64_t v2_bytes(uint64_t pixels, uint64_t render_pixels) {
    return kFrameDumpHeaderBytesV2 + pixels * (12 + 2 * kFrameDumpTermPlanes) + render_pixels * (4 + 6 + 4);
}

Status check_sizes(const FrameDump& dump) {
    size_t n = size_t(dump.width) * dump.height;
    if (dump.output.size() != n * 3 || dump.truth.size() != n * 3)
        return make_error(ErrorCode::Invalid, "frame dump of {}x{}: {} output and {} truth halves, expected {} each",
                          dump.width, dump.height, dump.output.size(), dump.truth.size(), n * 3);
    if (!dump.inputs) return ok_status();
    const FrameInputs& in = *dump.inputs;
    size_t r = size_t(in.render_width) * in.render_height;
    if (in.render_width == 0 || in.render_height == 0 || in.render_width > dump.width || in.render_height > dump.height)
        return make_error(ErrorCode::Invalid, "frame dump: render size {}x{} must be 1.. the output size {}x{}",
                          in.render_width, in.render_height, dump.width, dump.height);
    if (in.depth.size() != r || in.color.size() != r * 3 || in.motion.size() != r * 2 ||
        in.terms.size() != n * kFrameDumpTermPlanes)
        return make_error(ErrorCode::Invalid,
                          "frame dump inputs: depth {}, colour {}, motion {}, terms {} values; expected {}, {}, {}, {}",
                          in.depth.size(), in.color.size(), in.motion.size(), in.terms.size(), r, r * 3, r * 2,
                          n * kFrameDumpTermPlanes);
    return ok_status();
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

Expected<std::vector<uint8_t>> encode_frame_dump(const FrameDump& dump) {
    D4R_TRY(check_sizes(dump));
    const FrameInputs* in = dump.inputs ? &*dump.inputs : nullptr;
    size_t header = in ? kFrameDumpHeaderBytesV2 : kFrameDumpHeaderBytes;
    size_t size = header + (dump.output.size() + dump.truth.size()) * 2;
    if (in) size += in->depth.size() * 4 + (in->color.size() + in->motion.size() + in->terms.size()) * 2;
    std::vector<uint8_t> out(size);
    std::memcpy(out.data(), in ? kFrameDumpMagicV2 : kFrameDumpMagic, 8);
    put_u32(&out[8], dump.width);
    put_u32(&out[12], dump.height);
    put_u32(&out[16], std::bit_cast<uint32_t>(dump.exposure));
    put_u32(&out[20], dump.frame_index);
    if (in) {
        put_u32(&out[24], in->render_width);
        put_u32(&out[28], in->render_height);
        put_u32(&out[32], std::bit_cast<uint32_t>(in->jitter_x));
        put_u32(&out[36], std::bit_cast<uint32_t>(in->jitter_y));
        put_u32(&out[40], in->history ? 1 : 0);
        put_u32(&out[44], kFrameDumpTermPlanes);
    }
    uint8_t* at = out.data() + header;
    auto halves = [&](const std::vector<uint16_t>& v) {
        for (uint16_t h : v) {
            put_u16(at, h);
            at += 2;
        }
    };
    halves(dump.output);
    halves(dump.truth);
    if (in) {
        for (float d : in->depth) {
            put_u32(at, std::bit_cast<uint32_t>(d));
            at += 4;
        }
        halves(in->color);
        halves(in->motion);
        halves(in->terms);
    }
    return out;
}

Expected<FrameDump> decode_frame_dump(std::span<const uint8_t> bytes) {
    bool v1 = bytes.size() >= kFrameDumpHeaderBytes && std::memcmp(bytes.data(), kFrameDumpMagic, 8) == 0;
    bool v2 = bytes.size() >= kFrameDumpHeaderBytesV2 && std::memcmp(bytes.data(), kFrameDumpMagicV2, 8) == 0;
    if (!v1 && !v2)
        return make_error(ErrorCode::Invalid,
                          "not a d4r frame dump (no 'd4rfrm1' header, nor a whole 48-byte 'd4rfrm2' header)");
    FrameDump dump;
    dump.width = get_u32(bytes, 8);
    dump.height = get_u32(bytes, 12);
    dump.exposure = std::bit_cast<float>(get_u32(bytes, 16));
    dump.frame_index = get_u32(bytes, 20);
    if (dump.width > kFrameDumpMaxSide || dump.height > kFrameDumpMaxSide)
        return make_error(ErrorCode::Invalid, "d4r frame dump of {}x{}: larger than {} in a side", dump.width,
                          dump.height, kFrameDumpMaxSide);
    uint64_t pixels = uint64_t(dump.width) * dump.height;
    uint64_t values = pixels * 3;
    if (v1) {
        if (bytes.size() - kFrameDumpHeaderBytes != values * 4)
            return make_error(ErrorCode::Invalid, "d4r frame dump of {}x{}: {} bytes, expected {}", dump.width,
                              dump.height, bytes.size(), kFrameDumpHeaderBytes + values * 4);
        dump.output = get_halves(bytes, kFrameDumpHeaderBytes, values);
        dump.truth = get_halves(bytes, kFrameDumpHeaderBytes + values * 2, values);
        return dump;
    }
    FrameInputs in;
    in.render_width = get_u32(bytes, 24);
    in.render_height = get_u32(bytes, 28);
    in.jitter_x = std::bit_cast<float>(get_u32(bytes, 32));
    in.jitter_y = std::bit_cast<float>(get_u32(bytes, 36));
    uint32_t history = get_u32(bytes, 40), planes = get_u32(bytes, 44);
    if (history > 1)
        return make_error(ErrorCode::Invalid, "d4r frame dump v2: history flag {} (expected 0 or 1)", history);
    in.history = history == 1;
    if (planes != kFrameDumpTermPlanes)
        return make_error(ErrorCode::Invalid, "d4r frame dump v2: {} term planes (this reader knows {})", planes,
                          kFrameDumpTermPlanes);
    if (in.render_width == 0 || in.render_height == 0 || in.render_width > dump.width || in.render_height > dump.height)
        return make_error(ErrorCode::Invalid, "d4r frame dump v2: render size {}x{} must be 1.. the output size {}x{}",
                          in.render_width, in.render_height, dump.width, dump.height);
    uint64_t render = uint64_t(in.render_width) * in.render_height;
    if (bytes.size() != v2_bytes(pixels, render))
        return make_error(ErrorCode::Invalid, "d4r frame dump v2 of {}x{} from {}x{}: {} bytes, expected {}",
                          dump.width, dump.height, in.render_width, in.render_height, bytes.size(),
                          v2_bytes(pixels, render));
    size_t at = kFrameDumpHeaderBytesV2;
    dump.output = get_halves(bytes, at, values);
    dump.truth = get_halves(bytes, at += values * 2, values);
    in.depth = get_floats(bytes, at += values * 2, render);
    in.color = get_halves(bytes, at += render * 4, render * 3);
    in.motion = get_halves(bytes, at += render * 6, render * 2);
    in.terms = get_halves(bytes, at += render * 4, pixels * kFrameDumpTermPlanes);
    dump.inputs = std::move(in);
    return dump;
}

std::string frame_dump_name(std::string_view scene, uint32_t frame_index) {
    return fmt::format("{}-f{:03}.d4rframe", scene, frame_index);
}

} // namespace d4r::demo
