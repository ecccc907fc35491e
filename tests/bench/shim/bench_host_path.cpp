// The NGX shim's host data path (src/shim/host_staging.h), its CPU work per frame: the three inputs converted from
// the game's formats into the core's canonical planes, uploaded to CUDA memory, the output downloaded and converted
// back (the core itself is a no-op here, so only the path's own cost is timed), over libd4rcuda's cpu backend
// (uploads and downloads are then memcpy, as they are on a unified-memory host; on a GPU they cross PCIe). What a
// D3D12 game adds on top, the readback and upload of the textures through its queue, is not in it. At the output
// sizes 1920x1080, 2560x1440 and 3840x2160 with the render size at 2/3 (DLSS Quality), for two sets of formats:
//   hdr:    colour R16G16B16A16_FLOAT, depth R32_FLOAT, motion R16G16_FLOAT, output R16G16B16A16_FLOAT
//           (the canonical formats themselves: the conversions are copies);
//   packed: colour R11G11B10_FLOAT, depth D24_UNORM_S8_UINT, motion R16G16_FLOAT, output R11G11B10_FLOAT.
// The baseline in the same run, BM_Memcpy, copies the same bytes once each way (inputs in, output out): the least
// any path through the CPU moves. `ratio` on each host-path row is its time over the baseline's at that size.
//   build/bin/bench_host_path [--lib DIR] [--benchmark_min_time=1]
// --lib DIR loads DIR/libcuda.so.1 instead of the build's (a copy of libd4rcuda carried elsewhere); D4R_CUDA_BACKEND,
// when set, picks the backend instead of the cpu backend (tests/device/host-path-bench.sh: the driver backend).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "image/half.h"
#include "shim/cuda_worker.h"
#include "shim/host_staging.h"
#include "upscaler/cuda_functions.h"

namespace {

using namespace d4r;

template <typename T>
void store(uint8_t* at, T value) {
    std::memcpy(at, &value, sizeof value);
}
using namespace d4r::shim;
using abi::CUcontext;
using abi::CUdevice;

struct Size {
    uint32_t out_w, out_h, in_w, in_h;
};
Size size_of(int64_t index) {
    static constexpr uint32_t kOut[3][2] = {{1920, 1080}, {2560, 1440}, {3840, 2160}};
    const uint32_t w = kOut[index][0], h = kOut[index][1];
    return {w, h, w * 2 / 3, h * 2 / 3};
}

struct Formats {
    Dxgi color, depth, motion, output;
};
constexpr Formats kHdr{Dxgi::R16G16B16A16_Float, Dxgi::R32_Float, Dxgi::R16G16_Float, Dxgi::R16G16B16A16_Float};
constexpr Formats kPacked{Dxgi::R11G11B10_Float, Dxgi::D24_Unorm_S8_Uint, Dxgi::R16G16_Float, Dxgi::R11G11B10_Float};

GameResource resource(Dxgi format, uint32_t w, uint32_t h) {
    GameResource r;
    r.resource = reinterpret_cast<ResourceHandle>(uintptr_t(1)); // never dereferenced by the host staging
    r.format = uint32_t(format);
    r.region = Region{0, 0, w, h};
    r.row_texels = w;
    return r;
}

// A texel of FORMAT holding plausible values from the generator X: colour in [0, 4), depth in (0, 1), motion
// within +-16 pixels.
void fill_texel(Dxgi format, uint8_t* t, uint32_t& x) {
    auto next = [&x] { return float((x = x * 1103515245u + 12345u) >> 8) / float(1u << 24); };
    switch (format) {
    case Dxgi::R16G16B16A16_Float:
        for (int c = 0; c < 4; ++c) store(t + 2 * c, image::float_to_half(c == 3 ? 1.0f : 4.0f * next()));
        break;
    case Dxgi::R11G11B10_Float: { // 6-bit mantissas (5 for blue), exponents 12..16: values 0.03 .. 4
        const uint32_t r = (12 + uint32_t(5 * next())) << 6 | uint32_t(64 * next());
        const uint32_t g = (12 + uint32_t(5 * next())) << 6 | uint32_t(64 * next());
        const uint32_t b = (12 + uint32_t(5 * next())) << 5 | uint32_t(32 * next());
        store(t, r | g << 11 | b << 22);
        break;
    }
    case Dxgi::R32_Float:
        store(t, 0.01f + 0.98f * next());
        break;
    case Dxgi::D24_Unorm_S8_Uint:
        store(t, uint32_t(next() * 16777215.0f) | 0x5a000000u);
        break;
    case Dxgi::R16G16_Float:
        store(t, image::float_to_half(32.0f * next() - 16.0f));
        store(t + 2, image::float_to_half(32.0f * next() - 16.0f));
        break;
    default:
        break;
    }
}

// The game's textures as mapped memory, filled with plausible values.
struct Textures {
    std::vector<uint8_t> color, depth, motion, output;
    size_t color_pitch, depth_pitch, motion_pitch, output_pitch;
    Textures(const Formats& f, const Size& s) {
        color_pitch = s.in_w * texel_bytes(uint32_t(f.color));
        depth_pitch = s.in_w * texel_bytes(uint32_t(f.depth));
        motion_pitch = s.in_w * texel_bytes(uint32_t(f.motion));
        output_pitch = s.out_w * texel_bytes(uint32_t(f.output));
        color.resize(color_pitch * s.in_h);
        depth.resize(depth_pitch * s.in_h);
        motion.resize(motion_pitch * s.in_h);
        output.resize(output_pitch * s.out_h);
        uint32_t x = 12345;
        const struct {
            std::vector<uint8_t>* bytes;
            Dxgi format;
        } planes[] = {{&color, f.color}, {&depth, f.depth}, {&motion, f.motion}};
        for (const auto& p : planes) {
            const size_t n = texel_bytes(uint32_t(p.format));
            for (size_t i = 0; i + n <= p.bytes->size(); i += n) fill_texel(p.format, p.bytes->data() + i, x);
        }
    }
};

// The libcuda.so.1 the bench loads: the build's, or --lib's.
std::string& lib_path() {
    static std::string path = std::string(D4R_BENCH_LIB_DIR) + "/libcuda.so.1";
    return path;
}

// libd4rcuda (cpu backend unless D4R_CUDA_BACKEND says otherwise), its primary context current on the worker.
struct Cuda {
    upscaler::CudaFunctions cuda;
    CudaWorker worker;
    bool ok = false;
    Cuda() {
        setenv("D4R_CUDA_BACKEND", "cpu", 0);
        auto loaded = upscaler::load_cuda_functions(lib_path());
        if (!loaded) return;
        cuda = *loaded;
        Status s = worker.run("context", [this]() -> Status {
            CUdevice dev = 0;
            CUcontext ctx = nullptr;
            if (cuda.cuInit(0) || cuda.cuDeviceGet(&dev, 0) || cuda.cuDevicePrimaryCtxRetain(&ctx, dev) ||
                cuda.cuCtxSetCurrent(ctx))
                return make_error(ErrorCode::Internal, "no CUDA context");
            return {};
        });
        ok = bool(s);
    }
};
Cuda& cuda() {
    static Cuda c;
    return c;
}

void BM_HostPath(benchmark::State& state, Formats f) {
    Cuda& c = cuda();
    if (!c.ok) {
        state.SkipWithError(("libd4rcuda did not start (" + lib_path() + ")").c_str());
        return;
    }
    const Size s = size_of(state.range(0));
    Textures t(f, s);
    GameFrame frame;
    frame.color = resource(f.color, s.in_w, s.in_h);
    frame.depth = resource(f.depth, s.in_w, s.in_h);
    frame.motion = resource(f.motion, s.in_w, s.in_h);
    frame.output = resource(f.output, s.out_w, s.out_h);
    HostOptions options;
    options.passes.motion_dilation = 0;
    HostStaging path(c.worker, c.cuda, options);
    const CoreCall core = [](const CudaFrame&) -> Status { return {}; };
    auto one_frame = [&]() -> Status {
        path.begin_frame();
        D4R_TRY(path.read_input(Plane::Color, frame.color, t.color.data(), t.color_pitch));
        D4R_TRY(path.read_input(Plane::Depth, frame.depth, t.depth.data(), t.depth_pitch));
        D4R_TRY(path.read_input(Plane::Motion, frame.motion, t.motion.data(), t.motion_pitch));
        path.clear_input(Plane::Exposure);
        D4R_TRY(path.evaluate(frame, core));
        return path.write_output(frame.output, t.output.data(), t.output_pitch);
    };
    // The first frame allocates the path's buffers (once per feature in a game): not timed.
    Status first = one_frame();
    for (auto _ : state) {
        Status r = first ? one_frame() : first;
        if (!r) {
            state.SkipWithError(r.error().text().c_str());
            return;
        }
        benchmark::DoNotOptimize(t.output.data());
    }
    state.counters["ms_per_frame"] = benchmark::Counter(double(state.iterations()) * 1e-3,
                                                        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.SetLabel(std::to_string(s.out_w) + "x" + std::to_string(s.out_h));
}

// The same bytes as the hdr set, copied once each way.
void BM_Memcpy(benchmark::State& state) {
    const Size s = size_of(state.range(0));
    const size_t in = size_t(s.in_w) * s.in_h * (8 + 4 + 4), out = size_t(s.out_w) * s.out_h * 8;
    std::vector<uint8_t> a(in + out, 1), b(in + out, 0);
    for (auto _ : state) {
        std::memcpy(b.data(), a.data(), in);
        std::memcpy(a.data() + in, b.data() + in, out);
        benchmark::DoNotOptimize(b.data());
        benchmark::DoNotOptimize(a.data());
    }
    state.counters["ms_per_frame"] = benchmark::Counter(double(state.iterations()) * 1e-3,
                                                        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.SetLabel(std::to_string(s.out_w) + "x" + std::to_string(s.out_h));
}

BENCHMARK(BM_Memcpy)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_HostPath, hdr, kHdr)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_HostPath, packed, kPacked)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Prints each host-path row's time over the baseline's at the same size after the usual report.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.error_occurred) continue;
            const double ms = r.GetAdjustedRealTime();
            const std::string size = r.report_label;
            if (r.benchmark_name().rfind("BM_Memcpy", 0) == 0)
                m_base[size] = ms;
            else if (m_base.count(size))
                m_lines.push_back(r.benchmark_name() + " (" + size + "): " + std::to_string(ms) + " ms, ratio " +
                                  std::to_string(ms / m_base[size]) + " to memcpy");
        }
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        for (const std::string& l : m_lines) std::printf("%s\n", l.c_str());
    }

private:
    std::map<std::string, double> m_base;
    std::vector<std::string> m_lines;
};

} // namespace

int main(int argc, char** argv) {
    // --lib DIR, taken out of argv before the benchmark library reads it.
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--lib" || arg.rfind("--lib=", 0) == 0) {
            std::string dir = arg == "--lib" ? (i + 1 < argc ? argv[++i] : "") : arg.substr(6);
            if (dir.empty()) {
                std::fprintf(stderr, "bench_host_path: --lib needs a folder holding libcuda.so.1\n");
                return 2;
            }
            lib_path() = dir + "/libcuda.so.1";
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
