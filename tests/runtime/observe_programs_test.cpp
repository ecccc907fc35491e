// Kernel profiles and replay dumps end to end (docs/runtime.md, "Observability"): a CUDA program runs on
// build/lib/libcuda.so.1 with D4R_CUDA_KERNEL_PROFILE / D4R_CUDA_REPLAY_DUMP_DIR, then `d4r kprof` and `d4r replay` +
// `d4r compare` run on what it wrote. Results are checked against values computed here from the dumped inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <regex>

#include "cpu_test_util.h"
#include "runtime/module_registry.h"
#include "runtime/observe/dump_format.h"
#include "runtime/observe/observe_layer.h"
#include "runtime_fixture.h"
#include "test_support.h"

#include <fmt/format.h>

namespace fs = std::filesystem;
using d4r::test::read_file_text;
using d4r::test::run_command;
using d4r::test::run_d4r;
using d4r::test::TempDir;

namespace {

fs::path vector_add() { return fs::path(D4R_TEST_BIN_DIR) / "prog_d4r_vector_add"; }
std::string kernels_ptx() {
    return (d4r::test::source_dir() / "tests/runtime/programs/kernels/vector_ops.ptx").string();
}

std::vector<float> floats(const fs::path& p) {
    std::string s = read_file_text(p);
    std::vector<float> v(s.size() / 4);
    std::memcpy(v.data(), s.data(), v.size() * 4);
    return v;
}

std::string bytes_of(const fs::path& p) { return read_file_text(p); }

template <typename T>
T at(const std::string& bytes, size_t offset) {
    T v{};
    EXPECT_LE(offset + sizeof(T), bytes.size());
    if (offset + sizeof(T) <= bytes.size()) std::memcpy(&v, bytes.data() + offset, sizeof(T));
    return v;
}

std::map<std::string, std::string> env(std::map<std::string, std::string> extra) {
    extra["LD_LIBRARY_PATH"] = D4R_TEST_LIB_DIR;
    extra["D4R_CUDA_BACKEND"] = "cpu";
    return extra;
}

} // namespace

TEST(KernelProfile, OneLinePerLaunchInTheSpecFormatAndKprofSummarises) {
    TempDir dir;
    fs::path log = dir.path() / "profile.log";
    auto r = run_command({vector_add().string(), kernels_ptx()},
                         env({{"D4R_CUDA_KERNEL_PROFILE", "1"}, {"D4R_LOG_FILE", log.string()}}));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::string text = read_file_text(log);
    std::regex line(R"(KERNEL_PROFILE launch=(\d+) eligible=([01]) gpu_ms=([0-9.]+) name=(\w+))");
    std::vector<std::string> names;
    uint64_t last = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator(); ++it) {
        uint64_t n = std::stoull((*it)[1]);
        EXPECT_GT(n, last) << "launch numbers increase";
        last = n;
        EXPECT_EQ((*it)[2], "0") << "no native kernel set: nothing is eligible";
        EXPECT_GT(std::stod((*it)[3]), 0.0);
        names.push_back((*it)[4]);
    }
    // vector_add.c launches vector_add, saxpy, shape_probe twice, then vector_add through cuLaunchGrid (the
    // legacy launch API goes through the profile like any launch).
    ASSERT_EQ(names, (std::vector<std::string>{"vector_add", "saxpy", "shape_probe", "shape_probe", "vector_add"}))
        << text;

    auto k = run_d4r({"kprof", log.string()});
    ASSERT_EQ(k.exit_code, 0) << k.err;
    EXPECT_NE(k.out.find("total: 5 launches"), std::string::npos) << k.out;
    EXPECT_TRUE(std::regex_search(k.out, std::regex(R"(shape_probe\s+2\s+0\s)"))) << k.out;
    EXPECT_NE(k.out.find("frames: 2 (each starts at vector_add)"), std::string::npos) << k.out;
}

TEST(KernelProfile, SkipLimitAndFilterSelectLaunches) {
    TempDir dir;
    fs::path log = dir.path() / "profile.log";
    auto r = run_command({vector_add().string(), kernels_ptx()}, env({{"D4R_CUDA_KERNEL_PROFILE", "1"},
                                                                      {"D4R_CUDA_KERNEL_PROFILE_FILTER", "shape"},
                                                                      {"D4R_CUDA_KERNEL_PROFILE_SKIP", "1"},
                                                                      {"D4R_CUDA_KERNEL_PROFILE_LIMIT", "5"},
                                                                      {"D4R_LOG_FILE", log.string()}}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string text = read_file_text(log);
    EXPECT_EQ(text.find("name=vector_add"), std::string::npos) << text;
    EXPECT_NE(text.find("KERNEL_PROFILE launch=4 eligible=0"), std::string::npos) << text;
    EXPECT_EQ(text.find("KERNEL_PROFILE launch=3 "), std::string::npos) << "skipped: the first shape_probe\n" << text;
}

TEST(ReplayDump, DumpReplayAndCompareGiveTheOriginalOutputs) {
    TempDir dir;
    fs::path dumps = dir.path() / "dumps";
    fs::create_directories(dumps);
    // Dump the launch of saxpy (launched through `extra`, on a stream).
    auto r = run_command({vector_add().string(), kernels_ptx()},
                         env({{"D4R_CUDA_REPLAY_DUMP_DIR", dumps.string()}, {"D4R_CUDA_REPLAY_DUMP_FILTER", "saxpy"}}));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    fs::path dump = dumps / "replay-2-saxpy";
    ASSERT_TRUE(fs::is_directory(dump)) << r.err;
    EXPECT_EQ(std::distance(fs::directory_iterator(dumps), fs::directory_iterator()), 1) << "limit 1, no leftovers";
    std::string manifest = read_file_text(dump / "manifest.txt");
    EXPECT_NE(manifest.find("kernel saxpy\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("launch 16 1 1 64 1 1 0\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("args 32\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("pointer 16 0 0\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("pointer 24 1 0\n"), std::string::npos) << manifest;

    fs::path out = dir.path() / "out";
    auto rep = run_d4r({"replay", dump.string(), "--backend", "cpu", "--out", out.string()});
    ASSERT_EQ(rep.exit_code, 0) << rep.out << rep.err;
    auto cmp = run_d4r({"compare", (dump / "after").string(), out.string()});
    EXPECT_EQ(cmp.exit_code, 0) << cmp.out;

    // y = a * x + y, from the dumped inputs and the scalar a at offset 8 of the parameter block.
    std::string args = read_file_text(dump / "args.bin");
    float a = 0;
    std::memcpy(&a, args.data() + 8, 4);
    auto x = floats(dump / "alloc-0.bin"), y = floats(dump / "alloc-1.bin"), y2 = floats(out / "alloc-1.bin");
    ASSERT_EQ(x.size(), 1000u);
    ASSERT_EQ(y2.size(), 1000u);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y2[i], a * x[i] + y[i]) << i;
    EXPECT_NE(floats(dump / "alloc-1.bin"), y2) << "the launch changed y";
}

TEST(ReplayDump, BadDumpsAreRejectedWithTheFileNamed) {
    TempDir dir;
    auto missing = run_d4r({"replay", (dir.path() / "nope").string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("not a dump folder"), std::string::npos) << missing.err;
    dir.write("d/manifest.txt", "kernel k\nlaunch 1 1 1 32 1 1 0\nargs 8\nalloc 0 0x1000 16\npointer 0 1 0\n");
    auto bad = run_d4r({"replay", (dir.path() / "d").string(), "--backend", "cpu"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("manifest.txt:5: pointer names alloc 1"), std::string::npos) << bad.err;
    dir.write("e/manifest.txt", "kernel k\nlaunch 1 1 1 32 1 1 0\nargs 8\n");
    dir.write("e/args.bin", "1234");
    auto short_args = run_d4r({"replay", (dir.path() / "e").string(), "--backend", "cpu"});
    EXPECT_EQ(short_args.exit_code, 2);
    EXPECT_NE(short_args.err.find("args.bin: 4 bytes, but the manifest says 8"), std::string::npos) << short_args.err;
    dir.write("log.txt", "nothing here\n");
    auto none = run_d4r({"kprof", (dir.path() / "log.txt").string()});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("no KERNEL_PROFILE lines"), std::string::npos) << none.err;
}

// ---- Texture and surface objects (tests/runtime/programs/resources.c and kernels/resources.cu) ----

namespace {

fs::path resources() { return fs::path(D4R_TEST_BIN_DIR) / "prog_d4r_resources"; }
std::vector<std::string> resources_command() {
    fs::path kernels = d4r::test::source_dir() / "tests/runtime/programs/kernels";
    return {resources().string(), (kernels / "resources.ptx").string(), (kernels / "resources.fatbin").string()};
}

// Runs resources.c with dumps of the launches whose kernel name contains FILTER; the dump folders by name.
std::vector<fs::path> dump_resources(const fs::path& dumps, const std::string& filter, int limit) {
    fs::create_directories(dumps);
    auto r = run_command(resources_command(), env({{"D4R_CUDA_REPLAY_DUMP_DIR", dumps.string()},
                                                   {"D4R_CUDA_REPLAY_DUMP_FILTER", filter},
                                                   {"D4R_CUDA_REPLAY_DUMP_LIMIT", std::to_string(limit)}}));
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("resources: ok"), std::string::npos) << r.out << r.err;
    std::vector<fs::path> folders;
    for (const auto& e : fs::directory_iterator(dumps)) folders.push_back(e.path());
    // replay-<seq>-<kernel>, in launch order.
    std::sort(folders.begin(), folders.end(), [](const fs::path& a, const fs::path& b) {
        return std::stoi(a.filename().string().substr(7)) < std::stoi(b.filename().string().substr(7));
    });
    return folders;
}

d4r::runtime::DumpManifest manifest_of(const fs::path& dump) {
    auto m = d4r::runtime::parse_dump_manifest(read_file_text(dump / "manifest.txt"), "manifest.txt");
    EXPECT_TRUE(m) << m.error().text();
    return m ? *m : d4r::runtime::DumpManifest{};
}

// Replays DUMP on the cpu backend into OUT and checks `d4r compare DUMP/after OUT` finds every file equal.
void replay_matches_original(const fs::path& dump, const fs::path& out, size_t files) {
    auto rep = run_d4r({"replay", dump.string(), "--backend", "cpu", "--out", out.string()});
    ASSERT_EQ(rep.exit_code, 0) << rep.out << rep.err;
    auto cmp = run_d4r({"compare", (dump / "after").string(), out.string()});
    EXPECT_EQ(cmp.exit_code, 0) << dump << "\n" << cmp.out;
    EXPECT_NE(cmp.out.find(fmt::format("{} files compared: all match", files)), std::string::npos) << cmp.out;
}

int clampi(int v, int lo, int hi) { return std::min(std::max(v, lo), hi); }

} // namespace

TEST(ReplayDump, TexturesOverArraysPitchAndLinearMemoryReplayAsTheOriginalRan) {
    TempDir dir;
    // resources.c launches, in this order: tex2d_float4 (float4 array, clamp), tex2d_float4 (the same
    // array, normalised wrap), tex2d_uchar4 (uchar4 array, read as integers), tex2d_float4 (that array as
    // normalised floats), tex2d_float (pitch2D memory), tex1d_fetch (linear memory).
    auto dumps = dump_resources(dir.path() / "dumps", "tex", 10);
    std::vector<std::string> names;
    for (const fs::path& d : dumps)
        names.push_back(d.filename().string().substr(d.filename().string().find('-', 7) + 1));
    ASSERT_EQ(names, (std::vector<std::string>{"tex2d_float4", "tex2d_float4", "tex2d_uchar4", "tex2d_float4",
                                               "tex2d_float", "tex1d_fetch"}));

    for (size_t i = 0; i < dumps.size(); ++i) {
        auto m = manifest_of(dumps[i]);
        ASSERT_EQ(m.objects.size(), 1u) << dumps[i];
        EXPECT_FALSE(m.objects[0].surface);
        EXPECT_EQ(m.objects[0].arg_offset, 0u) << "the texture is the first parameter";
        // Every input and output of the original run, arrays included, is in after/ and the replay's output.
        replay_matches_original(dumps[i], dir.path() / fmt::format("out-{}", i), m.allocs.size() + m.arrays.size());
    }

    // The float4 array: its dumped content is the texels resources.c uploaded, and the replay's output is
    // the texel point sampling with clamping picks for each dumped coordinate.
    {
        const fs::path dump = dumps[0];
        auto m = manifest_of(dump);
        ASSERT_EQ(m.arrays.size(), 1u);
        EXPECT_EQ(m.arrays[0].width, 16u);
        EXPECT_EQ(m.arrays[0].height, 8u);
        EXPECT_EQ(m.arrays[0].format, 0x20u); // CU_AD_FORMAT_FLOAT
        EXPECT_EQ(m.arrays[0].channels, 4u);
        EXPECT_EQ(m.objects[0].resource.kind, d4r::runtime::DumpResource::Kind::Array);
        EXPECT_EQ(m.objects[0].texture.address, (std::array<uint32_t, 3>{1, 1, 1})); // CU_TR_ADDRESS_MODE_CLAMP
        EXPECT_EQ(m.objects[0].texture.filter, 0u);                                  // point
        EXPECT_EQ(m.objects[0].texture.flags, 0u);
        std::string texels = bytes_of(dump / "array-0.bin");
        ASSERT_EQ(texels.size(), 16u * 8 * 16);
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 16; ++x) {
                size_t o = (static_cast<size_t>(y) * 16 + x) * 16;
                ASSERT_EQ(at<float>(texels, o), static_cast<float>(x) + 0.25f * static_cast<float>(y)) << x << "," << y;
                ASSERT_EQ(at<float>(texels, o + 12), static_cast<float>(100 + x + 16 * y)) << x << "," << y;
            }
        EXPECT_EQ(bytes_of(dump / "after/array-0.bin"), texels) << "reading a texture leaves the array alone";
        // Parameters: tex, coords, out, n.
        ASSERT_EQ(m.pointers.size(), 2u);
        std::string args = bytes_of(dump / "args.bin");
        int n = at<int>(args, 24);
        ASSERT_EQ(n, 60);
        std::string coords = bytes_of(dump / fmt::format("alloc-{}.bin", m.pointers[0].alloc));
        std::string out = bytes_of(dir.path() / "out-0" / fmt::format("alloc-{}.bin", m.pointers[1].alloc));
        for (int i = 0; i < n; ++i) {
            int x = clampi(static_cast<int>(std::floor(at<float>(coords, i * 8))), 0, 15);
            int y = clampi(static_cast<int>(std::floor(at<float>(coords, i * 8 + 4))), 0, 7);
            ASSERT_EQ(out.substr(i * 16, 16), texels.substr((static_cast<size_t>(y) * 16 + x) * 16, 16)) << i;
        }
    }
    // The second launch reads the same array through normalised wrapping coordinates.
    {
        auto m = manifest_of(dumps[1]);
        EXPECT_EQ(m.objects[0].texture.address[0], 0u); // CU_TR_ADDRESS_MODE_WRAP
        EXPECT_EQ(m.objects[0].texture.address[1], 0u);
        EXPECT_EQ(m.objects[0].texture.flags, 2u); // CU_TRSF_NORMALIZED_COORDINATES
    }
    // The uchar4 array read as integers.
    {
        auto m = manifest_of(dumps[2]);
        ASSERT_EQ(m.arrays.size(), 1u);
        EXPECT_EQ(m.arrays[0].format, 0x01u);      // CU_AD_FORMAT_UNSIGNED_INT8
        EXPECT_EQ(m.objects[0].texture.flags, 1u); // CU_TRSF_READ_AS_INTEGER
    }
    // Pitch-linear memory: the texel (clamped x, y) of the dumped allocation at the recorded pitch.
    {
        const fs::path dump = dumps[4];
        auto m = manifest_of(dump);
        const auto& r = m.objects[0].resource;
        ASSERT_EQ(r.kind, d4r::runtime::DumpResource::Kind::Pitch2D);
        EXPECT_EQ(r.width, 20u);
        EXPECT_EQ(r.height, 6u);
        EXPECT_GE(r.pitch, 80u);
        EXPECT_TRUE(m.arrays.empty());
        EXPECT_EQ(m.allocs.size(), 3u) << "coords, out and the texture's memory, which no pointer names";
        std::string image = bytes_of(dump / fmt::format("alloc-{}.bin", r.alloc));
        std::string coords = bytes_of(dump / fmt::format("alloc-{}.bin", m.pointers[0].alloc));
        std::string out = bytes_of(dir.path() / "out-4" / fmt::format("alloc-{}.bin", m.pointers[1].alloc));
        int n = at<int>(bytes_of(dump / "args.bin"), 24);
        ASSERT_EQ(n, 28);
        for (int i = 0; i < n; ++i) {
            int x = clampi(static_cast<int>(std::floor(at<float>(coords, i * 8))), 0, 19);
            int y = clampi(static_cast<int>(std::floor(at<float>(coords, i * 8 + 4))), 0, 5);
            float texel = at<float>(image, r.delta + y * r.pitch + x * 4);
            ASSERT_EQ(texel, static_cast<float>(x) * 1.5f - static_cast<float>(y) * 3.0f + 0.125f) << i;
            ASSERT_EQ(at<float>(out, i * 4), texel) << i;
        }
    }
    // Linear memory: out[k] = values[index[k]].
    {
        const fs::path dump = dumps[5];
        auto m = manifest_of(dump);
        const auto& r = m.objects[0].resource;
        ASSERT_EQ(r.kind, d4r::runtime::DumpResource::Kind::Linear);
        EXPECT_EQ(r.bytes, 300u * 4);
        EXPECT_EQ(r.format, 0x20u);
        std::string values = bytes_of(dump / fmt::format("alloc-{}.bin", r.alloc));
        std::string index = bytes_of(dump / fmt::format("alloc-{}.bin", m.pointers[0].alloc));
        std::string out = bytes_of(dir.path() / "out-5" / fmt::format("alloc-{}.bin", m.pointers[1].alloc));
        for (int k = 0; k < 128; ++k) {
            int i = at<int>(index, k * 4);
            ASSERT_EQ(at<float>(out, k * 4), at<float>(values, r.delta + i * 4)) << k;
            ASSERT_EQ(at<float>(out, k * 4), static_cast<float>(i) * 0.5f - 17.0f) << k;
        }
    }
}

TEST(ReplayDump, SurfaceWritesIntoAnArrayAreDumpedAndReplayed) {
    TempDir dir;
    auto dumps = dump_resources(dir.path() / "dumps", "surf_write", 1);
    ASSERT_EQ(dumps.size(), 1u);
    const fs::path dump = dumps[0];
    auto m = manifest_of(dump);
    std::string manifest = read_file_text(dump / "manifest.txt");
    // 40 x 12 uchar4, CUDA_ARRAY3D_SURFACE_LDST; the surface is the first parameter.
    EXPECT_NE(manifest.find("array 0 40 12 0 0x1 4 0x2\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("surface 0 array 0\n"), std::string::npos) << manifest;
    EXPECT_TRUE(m.allocs.empty());
    std::string args = bytes_of(dump / "args.bin");
    int w = at<int>(args, 8), h = at<int>(args, 12);
    ASSERT_EQ(w, 40);
    ASSERT_EQ(h, 12);
    // The kernel writes texel (x, y) = (x, y, x ^ y, 255 - x).
    std::string expected(static_cast<size_t>(w) * h * 4, '\0');
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            size_t o = (static_cast<size_t>(y) * w + x) * 4;
            expected[o] = static_cast<char>(x);
            expected[o + 1] = static_cast<char>(y);
            expected[o + 2] = static_cast<char>(x ^ y);
            expected[o + 3] = static_cast<char>(255 - x);
        }
    EXPECT_EQ(bytes_of(dump / "after/array-0.bin"), expected);
    // Before the launch the array held something else, so the replay's output shows it wrote the surface.
    // Poison the input further to be sure the replay does not just copy it through.
    std::string before = bytes_of(dump / "array-0.bin");
    ASSERT_EQ(before.size(), expected.size());
    fs::permissions(dump / "array-0.bin", fs::perms::owner_write, fs::perm_options::add);
    {
        std::string poison(before.size(), '\x5a');
        FILE* f = fopen((dump / "array-0.bin").c_str(), "wb");
        ASSERT_TRUE(f);
        ASSERT_EQ(fwrite(poison.data(), 1, poison.size(), f), poison.size());
        fclose(f);
    }
    fs::path out = dir.path() / "out";
    replay_matches_original(dump, out, 1);
    EXPECT_EQ(bytes_of(out / "array-0.bin"), expected);

    // d4r compare looks at array files too: a texel changed in the replay's output is a difference.
    std::string changed = expected;
    changed[4 * 7 + 2] ^= 1;
    {
        FILE* f = fopen((out / "array-0.bin").c_str(), "wb");
        ASSERT_TRUE(f);
        ASSERT_EQ(fwrite(changed.data(), 1, changed.size(), f), changed.size());
        fclose(f);
    }
    auto cmp = run_d4r({"compare", (dump / "after").string(), out.string()});
    EXPECT_EQ(cmp.exit_code, 1) << cmp.out;
    EXPECT_NE(cmp.out.find("array-0.bin"), std::string::npos) << cmp.out;
    // A dump whose array file has the wrong size is refused, naming the file.
    {
        FILE* f = fopen((dump / "array-0.bin").c_str(), "wb");
        ASSERT_TRUE(f);
        ASSERT_EQ(fwrite(changed.data(), 1, 10, f), 10u);
        fclose(f);
    }
    auto bad = run_d4r({"replay", dump.string(), "--backend", "cpu", "--out", (dir.path() / "bad").string()});
    EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
    EXPECT_NE(bad.err.find(fmt::format("array-0.bin: 10 bytes, but the manifest says {}", expected.size())),
              std::string::npos)
        << bad.err;
}

// One launch that reads a texture object over one array and writes a surface object over another
// (tex_to_surf in kernels/resources.cu), made in this process through the dump layer over the cpu
// backend's table, then replayed by `d4r replay` in a fresh process.
TEST(ReplayDump, AKernelReadingATextureAndWritingASurfaceReplaysAsTheOriginalRan) {
    using namespace d4r::runtime;
    TempDir dir;
    fs::path dumps = dir.path() / "dumps";
    fs::create_directories(dumps);
    ObserveConfig config;
    config.dump = LaunchSelector{"tex_to_surf", 0, 1};
    config.dump_dir = dumps.string();
    auto runtime = rt_test::install_fresh_runtime();
    ApiTable registry = make_module_registry_table(*runtime, cpu_test::api(), RegistryOptions{true});
    ApiTable cuda = make_observe_table(*runtime, registry, config);

    enum { W = 13, H = 7 };
    ASSERT_EQ(cuda.cuInit(0), CUDA_SUCCESS);
    CUdevice dev = 0;
    ASSERT_EQ(cuda.cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    ASSERT_EQ(cuda.cuCtxCreate_v2(&ctx, 0, dev), CUDA_SUCCESS);
    std::string ptx = read_file_text(d4r::test::source_dir() / "tests/runtime/programs/kernels/resources.ptx");
    CUmodule module = nullptr;
    ASSERT_EQ(cuda.cuModuleLoadData(&module, ptx.c_str()), CUDA_SUCCESS);
    CUfunction function = nullptr;
    ASSERT_EQ(cuda.cuModuleGetFunction(&function, module, "tex_to_surf"), CUDA_SUCCESS);

    std::vector<float> in(W * H * 4), out_before(W * H * 4, -7.0f);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < 4; ++c) in[(y * W + x) * 4 + c] = static_cast<float>(x * 10 + y) + 0.125f * c;
    CUDA_ARRAY3D_DESCRIPTOR desc{W, H, 0, CU_AD_FORMAT_FLOAT, 4, 0};
    CUarray in_array = nullptr, out_array = nullptr;
    ASSERT_EQ(cuda.cuArray3DCreate_v2(&in_array, &desc), CUDA_SUCCESS);
    desc.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    ASSERT_EQ(cuda.cuArray3DCreate_v2(&out_array, &desc), CUDA_SUCCESS);
    for (auto [array, data] : {std::pair{in_array, in.data()}, std::pair{out_array, out_before.data()}}) {
        CUDA_MEMCPY3D c{};
        c.srcMemoryType = CU_MEMORYTYPE_HOST;
        c.srcHost = data;
        c.srcPitch = W * 16;
        c.srcHeight = H;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = array;
        c.WidthInBytes = W * 16;
        c.Height = H;
        c.Depth = 1;
        ASSERT_EQ(cuda.cuMemcpy3D_v2(&c), CUDA_SUCCESS);
    }
    CUDA_RESOURCE_DESC res{};
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = in_array;
    CUDA_TEXTURE_DESC td{};
    td.addressMode[0] = CU_TR_ADDRESS_MODE_CLAMP;
    td.addressMode[1] = CU_TR_ADDRESS_MODE_BORDER;
    td.addressMode[2] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    td.borderColor[0] = 0.5f;
    td.borderColor[3] = -2.0f;
    CUtexObject tex = 0;
    ASSERT_EQ(cuda.cuTexObjectCreate(&tex, &res, &td, nullptr), CUDA_SUCCESS);
    res.res.array.hArray = out_array;
    CUsurfObject surf = 0;
    ASSERT_EQ(cuda.cuSurfObjectCreate(&surf, &res), CUDA_SUCCESS);
    int w = W, h = H;
    float scale = 3.0f;
    void* params[] = {&tex, &surf, &w, &h, &scale};
    ASSERT_EQ(cuda.cuLaunchKernel(function, 2, 1, 1, 8, 8, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(cuda.cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(cuda.cuTexObjectDestroy(tex), CUDA_SUCCESS);
    EXPECT_EQ(cuda.cuSurfObjectDestroy(surf), CUDA_SUCCESS);
    EXPECT_EQ(cuda.cuArrayDestroy(in_array), CUDA_SUCCESS);
    EXPECT_EQ(cuda.cuArrayDestroy(out_array), CUDA_SUCCESS);
    EXPECT_EQ(cuda.cuModuleUnload(module), CUDA_SUCCESS);
    EXPECT_EQ(cuda.cuCtxDestroy_v2(ctx), CUDA_SUCCESS);

    const fs::path dump = dumps / "replay-1-tex_to_surf";
    ASSERT_TRUE(fs::is_directory(dump));
    std::string manifest = read_file_text(dump / "manifest.txt");
    EXPECT_NE(manifest.find("array 0 13 7 0 0x20 4 0x0\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("array 1 13 7 0 0x20 4 0x2\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("texture 0 array 0 address=1,3,1 filter=0 flags=0x0 "), std::string::npos) << manifest;
    EXPECT_NE(manifest.find(" border=0.5,0,0,-2\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("surface 8 array 1\n"), std::string::npos) << manifest;
    // The .u32 and .f32 parameters are no handle candidates; nothing else is an object or a pointer.
    auto m = manifest_of(dump);
    EXPECT_EQ(m.objects.size(), 2u);
    EXPECT_TRUE(m.pointers.empty());

    // Inputs as uploaded; the surface's array after the launch is SCALE times the texture's texels.
    std::string in_bytes = bytes_of(dump / "array-0.bin");
    ASSERT_EQ(in_bytes.size(), in.size() * 4);
    EXPECT_EQ(std::memcmp(in_bytes.data(), in.data(), in_bytes.size()), 0);
    EXPECT_EQ(bytes_of(dump / "array-1.bin"),
              std::string(reinterpret_cast<const char*>(out_before.data()), out_before.size() * 4));
    std::string args = bytes_of(dump / "args.bin");
    float dumped_scale = at<float>(args, 24);
    ASSERT_EQ(dumped_scale, 3.0f);
    std::string expected(in_bytes.size(), '\0');
    for (size_t i = 0; i < in.size(); ++i) {
        float v = at<float>(in_bytes, i * 4) * dumped_scale;
        std::memcpy(expected.data() + i * 4, &v, 4);
    }
    EXPECT_EQ(bytes_of(dump / "after/array-1.bin"), expected);
    EXPECT_EQ(bytes_of(dump / "after/array-0.bin"), in_bytes);

    fs::path out = dir.path() / "out";
    replay_matches_original(dump, out, 2);
    EXPECT_EQ(bytes_of(out / "array-1.bin"), expected);
}
