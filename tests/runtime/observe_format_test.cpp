// The dump manifest and profile-log formats (runtime/observe), without running kernels.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "runtime/observe/dump_format.h"
#include "runtime/observe/observe_layer.h"
#include "runtime/observe/profile_summary.h"

using namespace d4r::runtime;

TEST(DumpManifest, RoundTripsWhatTheWriterWrites) {
    DumpManifest m;
    m.kernel = "k_1";
    m.grid = {3, 2, 1};
    m.block = {64, 2, 1};
    m.shared = 128;
    m.args_bytes = 24;
    m.allocs = {{0x7f0000001000, 4096}, {0x7f0000009000, 16}};
    m.pointers = {{0, 0, 256}, {16, 1, 0}};
    std::string text = write_dump_manifest(m);
    EXPECT_NE(text.find("launch 3 2 1 64 2 1 128\n"), std::string::npos) << text;
    EXPECT_NE(text.find("alloc 0 0x7f0000001000 4096\n"), std::string::npos) << text;
    EXPECT_NE(text.find("pointer 0 0 256\n"), std::string::npos) << text;
    auto back = parse_dump_manifest(text, "m.txt");
    ASSERT_TRUE(back) << back.error().text();
    EXPECT_EQ(back->kernel, "k_1");
    EXPECT_EQ(back->grid, m.grid);
    EXPECT_EQ(back->block, m.block);
    EXPECT_EQ(back->shared, 128u);
    ASSERT_EQ(back->allocs.size(), 2u);
    EXPECT_EQ(back->allocs[0].base, 0x7f0000001000u);
    ASSERT_EQ(back->pointers.size(), 2u);
    EXPECT_EQ(back->pointers[0].delta, 256u);
    EXPECT_EQ(back->pointers[1].alloc, 1u);
}

TEST(DumpManifest, InconsistentManifestsNameTheLine) {
    auto err = [](const char* text) {
        auto m = parse_dump_manifest(text, "m.txt");
        return m ? std::string("accepted") : m.error().text();
    };
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\n").find("missing 'args BYTES'"), std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 0 1 1 0\nargs 0\n").find("m.txt:2: launch shape"), std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 8\nalloc 1 0x10 4\n").find("m.txt:4: alloc 1 out of order"),
              std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 8\nalloc 0 0x10 4\npointer 0 0 5\n").find("m.txt:5: delta 5"),
              std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 8\nalloc 0 0x10 4\npointer 4 0 0\n").find("outside args"),
              std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 32\nalloc 0 0x10 4\npointer 16 0 0\nargs 16\n")
                  .find("m.txt:6: a second 'args' line"),
              std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs x\n").find("m.txt:3: args 'x' is not a number"),
              std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 8\nmodule ../x.ptx\n").find("file name in the dump folder"),
              std::string::npos);
    auto notes = parse_dump_manifest("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 0\nsampler 8 whatever\n", "m.txt");
    ASSERT_TRUE(notes);
    ASSERT_EQ(notes->notes.size(), 1u);
    EXPECT_NE(notes->notes[0].find("m.txt:4: 'sampler' skipped"), std::string::npos) << notes->notes[0];
}

// Offsets and sizes near 2^64 must not wrap past the bounds checks (issue 14, item 7: a pointer at offset
// 2^64 - 4 passed "offset + 8 <= args" and `d4r replay` wrote 8 bytes before args.bin's buffer).
TEST(DumpManifest, OffsetsAndSizesNear2To64AreRefused) {
    auto err = [](const std::string& tail) {
        auto m = parse_dump_manifest("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 16\nalloc 0 0x1000 4096\n" + tail, "m.txt");
        return m ? std::string("accepted") : m.error().text();
    };
    for (const char* offset : {"18446744073709551612", "18446744073709551615", "0xfffffffffffffff8", "9", "16"}) {
        std::string e = err(fmt::format("pointer {} 0 0\n", offset));
        EXPECT_NE(e.find("m.txt:5: pointer at offset"), std::string::npos) << offset << ": " << e;
        EXPECT_NE(e.find("outside args (16 bytes)"), std::string::npos) << offset << ": " << e;
        e = err(fmt::format("texture {} linear 0 0 0x20 1 16\n", offset));
        EXPECT_NE(e.find("m.txt:5: texture at offset"), std::string::npos) << offset << ": " << e;
        e = err(fmt::format("surface {} linear 0 0 0x20 1 16\n", offset));
        EXPECT_NE(e.find("m.txt:5: surface at offset"), std::string::npos) << offset << ": " << e;
    }
    EXPECT_EQ(err("pointer 8 0 4096\n"), "accepted"); // the last word, at the allocation's end
    // Deltas and extents of memory resources.
    EXPECT_NE(err("texture 0 linear 0 18446744073709551615 0x20 1 16\n").find("past the end of alloc 0"),
              std::string::npos);
    EXPECT_NE(err("texture 0 linear 0 16 0x20 1 18446744073709551612\n").find("ends past alloc 0"), std::string::npos);
    EXPECT_NE(err("texture 0 pitch2d 0 0 0x20 1 1 2 18446744073709551615\n").find("ends past alloc 0"),
              std::string::npos);
    EXPECT_NE(err("texture 0 pitch2d 0 0 0x20 4 4611686018427387904 1 0\n").find("ends past alloc 0"),
              std::string::npos);
    // Array extents whose byte count would wrap.
    EXPECT_NE(err("array 0 4294967296 4294967296 4294967296 0x20 4 0\n").find("m.txt:5: array of"), std::string::npos);
}

namespace {

// A manifest with one of everything: an array read by a texture and written by a surface, a texture over
// pitch-linear memory and one over linear memory (with a view), one over a mipmapped array.
DumpManifest objects_manifest() {
    DumpManifest m;
    m.kernel = "k";
    m.args_bytes = 48;
    m.allocs = {{0x1000, 4096}, {0x9000, 256}};
    m.pointers = {{8, 1, 0}};
    m.arrays = {{16, 8, 0, 0x20, 4, 0}, {40, 12, 0, 0x01, 4, 0x2}, {8, 5, 3, 0x02, 2, 0}};
    DumpObject tex;
    tex.arg_offset = 0;
    tex.resource.kind = DumpResource::Kind::Array;
    tex.resource.array = 0;
    tex.texture.address = {1, 0, 3};
    tex.texture.filter = 1;
    tex.texture.flags = 0x3;
    tex.texture.max_anisotropy = 4;
    tex.texture.mipmap_filter = 1;
    tex.texture.mipmap_bias = -0.25f;
    tex.texture.min_mipmap_clamp = 0.1f; // not a dyadic fraction: must still read back to the same float
    tex.texture.max_mipmap_clamp = 1e30f;
    tex.texture.border = {0.5f, -1.0f, 3.0e-39f, 1.0f / 3.0f};
    DumpObject surf;
    surf.surface = true;
    surf.arg_offset = 16;
    surf.resource.array = 1;
    DumpObject pitch;
    pitch.arg_offset = 24;
    pitch.resource = {DumpResource::Kind::Pitch2D, 0, 0, 0, 0x20, 1, 20, 6, 512, 0};
    DumpObject linear;
    linear.arg_offset = 32;
    linear.resource = {DumpResource::Kind::Linear, 0, 1, 16, 0x10, 2, 0, 0, 0, 240};
    linear.view = DumpViewDesc{0x12, 60, 1, 0, 0, 0, 0, 0};
    DumpObject mip;
    mip.arg_offset = 40;
    mip.resource.kind = DumpResource::Kind::Mipmapped;
    m.objects = {tex, surf, pitch, linear, mip};
    return m;
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from << " in\n" << text;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

} // namespace

TEST(DumpManifest, ArraysTexturesAndSurfacesRoundTrip) {
    DumpManifest m = objects_manifest();
    std::string text = write_dump_manifest(m);
    EXPECT_NE(text.find("array 0 16 8 0 0x20 4 0x0\n"), std::string::npos) << text;
    EXPECT_NE(text.find("array 2 8 5 3 0x2 2 0x0\n"), std::string::npos) << text;
    EXPECT_NE(text.find("surface 16 array 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("texture 24 pitch2d 0 0 0x20 1 20 6 512 address="), std::string::npos) << text;
    EXPECT_NE(text.find("texture 32 linear 1 16 0x10 2 240 "), std::string::npos) << text;
    EXPECT_NE(text.find(" view=0x12,60,1,0,0,0,0,0\n"), std::string::npos) << text;
    EXPECT_NE(text.find("texture 40 mipmapped address="), std::string::npos) << text;
    EXPECT_NE(text.find("texture 0 array 0 address=1,0,3 filter=1 flags=0x3 max_anisotropy=4 mipmap_filter=1 "
                        "mipmap_bias=-0.25 "),
              std::string::npos)
        << text;
    auto back = parse_dump_manifest(text, "m.txt");
    ASSERT_TRUE(back) << back.error().text();
    EXPECT_TRUE(back->notes.empty());
    ASSERT_EQ(back->arrays.size(), 3u);
    for (size_t j = 0; j < 3; ++j) {
        EXPECT_EQ(back->arrays[j].width, m.arrays[j].width) << j;
        EXPECT_EQ(back->arrays[j].height, m.arrays[j].height) << j;
        EXPECT_EQ(back->arrays[j].depth, m.arrays[j].depth) << j;
        EXPECT_EQ(back->arrays[j].format, m.arrays[j].format) << j;
        EXPECT_EQ(back->arrays[j].channels, m.arrays[j].channels) << j;
        EXPECT_EQ(back->arrays[j].flags, m.arrays[j].flags) << j;
    }
    // 16 x 8 float4, 40 x 12 uchar4, 8 x 5 x 3 ushort2.
    EXPECT_EQ(back->arrays[0].bytes(), 16u * 8 * 16);
    EXPECT_EQ(back->arrays[1].bytes(), 40u * 12 * 4);
    EXPECT_EQ(back->arrays[2].bytes(), 8u * 5 * 3 * 4);
    ASSERT_EQ(back->objects.size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
        const DumpObject &a = m.objects[i], &b = back->objects[i];
        EXPECT_EQ(b.surface, a.surface) << i;
        EXPECT_EQ(b.arg_offset, a.arg_offset) << i;
        EXPECT_EQ(b.resource.kind, a.resource.kind) << i;
        EXPECT_EQ(b.resource.array, a.resource.array) << i;
        EXPECT_EQ(b.resource.alloc, a.resource.alloc) << i;
        EXPECT_EQ(b.resource.delta, a.resource.delta) << i;
        EXPECT_EQ(b.resource.format, a.resource.format) << i;
        EXPECT_EQ(b.resource.channels, a.resource.channels) << i;
        EXPECT_EQ(b.resource.width, a.resource.width) << i;
        EXPECT_EQ(b.resource.height, a.resource.height) << i;
        EXPECT_EQ(b.resource.pitch, a.resource.pitch) << i;
        EXPECT_EQ(b.resource.bytes, a.resource.bytes) << i;
        EXPECT_EQ(b.texture.address, a.texture.address) << i;
        EXPECT_EQ(b.texture.filter, a.texture.filter) << i;
        EXPECT_EQ(b.texture.flags, a.texture.flags) << i;
        EXPECT_EQ(b.texture.max_anisotropy, a.texture.max_anisotropy) << i;
        EXPECT_EQ(b.texture.mipmap_filter, a.texture.mipmap_filter) << i;
        // Bit for bit, not approximately.
        EXPECT_EQ(std::bit_cast<uint32_t>(b.texture.mipmap_bias), std::bit_cast<uint32_t>(a.texture.mipmap_bias)) << i;
        EXPECT_EQ(std::bit_cast<uint32_t>(b.texture.min_mipmap_clamp),
                  std::bit_cast<uint32_t>(a.texture.min_mipmap_clamp))
            << i;
        EXPECT_EQ(std::bit_cast<uint32_t>(b.texture.max_mipmap_clamp),
                  std::bit_cast<uint32_t>(a.texture.max_mipmap_clamp))
            << i;
        for (size_t k = 0; k < 4; ++k)
            EXPECT_EQ(std::bit_cast<uint32_t>(b.texture.border[k]), std::bit_cast<uint32_t>(a.texture.border[k])) << i;
        ASSERT_EQ(b.view.has_value(), a.view.has_value()) << i;
        if (a.view) {
            EXPECT_EQ(b.view->format, a.view->format);
            EXPECT_EQ(b.view->width, a.view->width);
            EXPECT_EQ(b.view->height, a.view->height);
        }
    }
    EXPECT_EQ(write_dump_manifest(*back), text) << "writing what was read gives the same text";
}

TEST(DumpManifest, MalformedArrayTextureAndSurfaceLinesNameTheLine) {
    const std::string good = write_dump_manifest(objects_manifest());
    ASSERT_TRUE(parse_dump_manifest(good, "m.txt"));
    auto line_of = [&](const std::string& text, const std::string& start) {
        size_t at = text.find(start);
        return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
    };
    auto err = [](const std::string& text) {
        auto m = parse_dump_manifest(text, "m.txt");
        return m ? std::string("accepted") : m.error().text();
    };
    auto expect_error = [&](const std::string& from, const std::string& to, const std::string& message) {
        std::string bad = replace(good, from, to);
        std::string e = err(bad);
        std::string where = fmt::format("m.txt:{}: ", line_of(bad, to));
        EXPECT_EQ(e.rfind(where, 0), 0u) << e << " (expected at " << where << ")";
        EXPECT_NE(e.find(message), std::string::npos) << e;
    };
    expect_error("array 1 40", "array 2 40", "array 2 out of order (expected 1)");
    expect_error("array 0 16 8 0 0x20 4 0x0", "array 0 16 8 0 0x77 4 0x0", "format 0x77 is not one this version knows");
    expect_error("array 0 16 8 0 0x20 4 0x0", "array 0 16 8 0 0x20 3 0x0 7", "takes 7 values, found 8");
    expect_error("array 0 16 8 0 0x20 4 0x0", "array 0 16 8 0 0x20 5 0x0", "array of 5 channels");
    expect_error("array 0 16 8 0 0x20 4 0x0", "array 0 0 8 0 0x20 4 0x0", "out of range");
    expect_error("surface 16 array 1", "surface 16 array 3", "names array 3 but only 3 are declared");
    expect_error("surface 16 array 1", "surface 16 array 1 filter=0", "surface takes no 'filter=0'");
    expect_error("surface 16 array 1", "surface 44 array 1", "surface at offset 44 is outside args (48 bytes)");
    expect_error("surface 16 array 1", "surface 16 cube 1", "unknown resource 'cube'");
    expect_error("surface 16 array 1", "surface 16", "ends before its resource");
    expect_error("surface 16 array 1", "surface 16 array", "surface line ends before its array index");
    expect_error("texture 24 pitch2d 0 0 0x20 1 20 6 512", "texture 24 pitch2d 2 0 0x20 1 20 6 512",
                 "names alloc 2 but only 2 are declared");
    // 512 * 8 + 80 > 4096: the last row ends past the allocation.
    expect_error("texture 24 pitch2d 0 0 0x20 1 20 6 512", "texture 24 pitch2d 0 0 0x20 1 20 9 512",
                 "memory ends past alloc 0");
    expect_error("texture 24 pitch2d 0 0 0x20 1 20 6 512", "texture 24 pitch2d 0 0 0x20 1 20 6",
                 "pitch 'address=0,0,0' is not a number");
    expect_error("texture 32 linear 1 16 0x10 2 240", "texture 32 linear 1 17 0x10 2 240", "memory ends past alloc 1");
    expect_error("texture 32 linear 1 16 0x10 2 240", "texture 32 linear 1 300 0x10 2 240",
                 "delta 300 is past the end");
    expect_error("texture 32 linear 1 16 0x10 2 240", "texture 32 linear 1 16 0x11 2 240", "format 0x11");
    expect_error("mipmap_bias=-0.25", "mipmap_bias=x", "mipmap_bias 'x' is not a number");
    expect_error("address=1,0,3", "address=1,0", "address takes 3 comma-separated values, found 2");
    expect_error("address=1,0,3", "addressing=1,0,3", "unknown texture key 'addressing'");
    expect_error("address=1,0,3", "address", "'address' is not KEY=VALUE");
    expect_error(" view=0x12,60,1,0,0,0,0,0", " view=0x12,60,1", "view takes 8 comma-separated values");
    // A texture before the array it names.
    std::string early = "kernel k\nlaunch 1 1 1 1 1 1 0\nargs 8\ntexture 0 array 0\narray 0 4 4 0 0x1 1 0\n";
    EXPECT_NE(err(early).find("m.txt:4: resource names array 0 but only 0"), std::string::npos) << err(early);
}

TEST(DumpManifest, ManifestsWithoutObjectLinesStillParse) {
    // What earlier versions wrote (tests/fuzz/corpus/dump_manifest/vector_add.txt): no array, texture or
    // surface lines, and nothing noted as unknown.
    const char* old = "# d4r replay dump (SPEC 7)\nkernel vector_add\nlaunch 8 1 1 128 1 1 0\nargs 28\n"
                      "alloc 0 0x55bfa9830c00 4000\nalloc 1 0x55bfa9831f00 4000\npointer 0 0 0\npointer 8 1 0\n"
                      "module module.ptx\n";
    auto m = parse_dump_manifest(old, "m.txt");
    ASSERT_TRUE(m) << m.error().text();
    EXPECT_TRUE(m->arrays.empty());
    EXPECT_TRUE(m->objects.empty());
    EXPECT_TRUE(m->notes.empty());
    EXPECT_EQ(m->pointers.size(), 2u);
    // A texture line with only the resource takes an all-zero descriptor (keys left out are 0).
    auto bare = parse_dump_manifest(
        "kernel k\nlaunch 1 1 1 1 1 1 0\nargs 8\narray 0 4 4 0 0x1 1 0\ntexture 0 array 0\n", "m.txt");
    ASSERT_TRUE(bare) << bare.error().text();
    ASSERT_EQ(bare->objects.size(), 1u);
    EXPECT_EQ(bare->objects[0].texture.address, (std::array<uint32_t, 3>{0, 0, 0}));
    EXPECT_FALSE(bare->objects[0].view);
}

TEST(DumpManifest, FolderNamesAreSafe) {
    EXPECT_EQ(dump_folder_name(7, "_Z3fooPf"), "replay-7-_Z3fooPf");
    EXPECT_EQ(dump_folder_name(1, "../x y"), "replay-1-.._x_y");
    EXPECT_EQ(dump_folder_name(2, std::string(200, 'a')).size(), std::string("replay-2-").size() + 96);
}

TEST(ProfileLog, FormatParseAndSummary) {
    std::string log;
    log += "123.4 d4r info: " + format_profile_line(1, false, 1.0, "a") + "\n";
    log += "garbage line\n";
    log += format_profile_line(2, true, 3.0, "b") + "\n";
    log += format_profile_line(3, false, 2.0, "a") + "\n";
    log += format_profile_line(4, true, 5.0, "b") + "\n";
    log += format_profile_line(5, false, -1.0, "b") + "\n";
    auto lines = parse_profile_log(log, "p.log");
    ASSERT_TRUE(lines) << lines.error().text();
    ASSERT_EQ(lines->size(), 5u);
    EXPECT_TRUE((*lines)[1].eligible);
    ProfileSummary s = summarise_profile(*lines, "");
    EXPECT_DOUBLE_EQ(s.total_ms, 11.0);
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.kernels[0].name, "b"); // 8 ms of 11
    EXPECT_EQ(s.kernels[0].launches, 3u);
    EXPECT_EQ(s.kernels[0].untimed, 1u);
    EXPECT_EQ(s.kernels[0].eligible, 2u);
    EXPECT_DOUBLE_EQ(s.kernels[0].median_ms, 4.0);
    EXPECT_DOUBLE_EQ(s.kernels[0].share, 8.0 / 11.0);
    EXPECT_DOUBLE_EQ(s.kernels[1].min_ms, 1.0);
    ASSERT_EQ(s.frame_ms.size(), 2u); // frames start at "a"
    EXPECT_DOUBLE_EQ(s.frame_ms[0], 4.0);
    EXPECT_DOUBLE_EQ(s.frame_ms[1], 7.0);
    EXPECT_DOUBLE_EQ(s.frame_median_ms, 5.5);
    ProfileSummary by_b = summarise_profile(*lines, "b");
    EXPECT_EQ(by_b.frame_ms.size(), 3u);
}

TEST(ProfileLog, MalformedLinesNameTheLine) {
    auto bad = parse_profile_log("x\nKERNEL_PROFILE launch=1 eligible=2 gpu_ms=1 name=k\n", "p.log");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().text().find("p.log:2: eligible '2'"), std::string::npos) << bad.error().text();
    auto missing = parse_profile_log("KERNEL_PROFILE launch=1 eligible=0 name=k\n", "p.log");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().text().find("without 'gpu_ms='"), std::string::npos);
}

TEST(ObserveConfig, ReadsTheVariables) {
    d4r::MapEnvironment none;
    EXPECT_FALSE(observe_config_from_env(none).active());
    d4r::MapEnvironment env{{"D4R_CUDA_KERNEL_PROFILE", "1"},
                            {"D4R_CUDA_KERNEL_PROFILE_SKIP", "5"},
                            {"D4R_CUDA_REPLAY_DUMP_DIR", "/tmp/x"},
                            {"D4R_CUDA_REPLAY_DUMP_LIMIT", "bad"}};
    ObserveConfig c = observe_config_from_env(env);
    ASSERT_TRUE(c.profile);
    EXPECT_EQ(c.profile->skip, 5u);
    EXPECT_EQ(c.profile->limit, 3000u);
    ASSERT_TRUE(c.dump);
    EXPECT_EQ(c.dump->limit, 1u) << "a malformed number keeps the default";
    EXPECT_EQ(c.dump_dir, "/tmp/x");
}
