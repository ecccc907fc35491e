// The upscaler's kernels on the host: the same per-pixel math as upscaler.cu, looped over the grid.
#include "upscaler/host_kernels.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace d4r::upscaler {

namespace m = math;

const char* kernel_name(KernelId id) {
    switch (id) {
    case KernelId::Exposure:
        return "d4r_up_exposure";
    case KernelId::Prepare:
        return "d4r_up_prepare";
    case KernelId::Accumulate:
        return "d4r_up_accumulate";
    case KernelId::Sharpen:
        return "d4r_up_sharpen";
    }
    return "?";
}

std::optional<KernelId> kernel_from_name(std::string_view name) {
    for (KernelId k : kAllKernels)
        if (name == kernel_name(k)) return k;
    return std::nullopt;
}

namespace {

// Calls FN(begin, end) over [0, count) split into contiguous chunks, one per thread.
template <typename Fn>
void parallel_rows(uint32_t count, unsigned threads, Fn fn) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    threads = std::min<unsigned>(threads, std::max<uint32_t>(count, 1));
    if (threads <= 1) {
        fn(0u, count);
        return;
    }
    std::vector<std::thread> pool;
    uint32_t chunk = (count + threads - 1) / threads;
    for (unsigned t = 1; t < threads; ++t) {
        uint32_t b = std::min(count, t * chunk), e = std::min(count, b + chunk);
        if (b < e) pool.emplace_back([=] { fn(b, e); });
    }
    fn(0u, std::min(count, chunk));
    for (auto& th : pool) th.join();
}

// The pixels a 2D launch covers (grid * block), limited to W x H as the kernels' bounds checks do.
template <typename PixelFn>
void run_image(const LaunchShape& s, uint32_t w, uint32_t h, unsigned threads, PixelFn pixel) {
    uint32_t gw = std::min<uint64_t>(uint64_t(s.grid[0]) * s.block[0], w);
    uint32_t gh = std::min<uint64_t>(uint64_t(s.grid[1]) * s.block[1], h);
    parallel_rows(gh, threads, [&](uint32_t y0, uint32_t y1) {
        for (uint32_t y = y0; y < y1; ++y)
            for (uint32_t x = 0; x < gw; ++x) pixel(static_cast<int32_t>(x), static_cast<int32_t>(y));
    });
}

} // namespace

void run_host_kernel(KernelId kernel, const m::Params& p, const LaunchShape& shape, unsigned threads) {
    switch (kernel) {
    case KernelId::Exposure: {
        // As the PTX kernel: kExposureThreads partial sums, added in thread order by thread 0.
        std::vector<float> partial(m::kExposureThreads);
        parallel_rows(m::kExposureThreads, threads, [&](uint32_t b, uint32_t e) {
            for (uint32_t t = b; t < e; ++t) partial[t] = m::exposure_partial(p, t, m::kExposureThreads);
        });
        float sum = 0.0f;
        for (float v : partial) sum = sum + v;
        m::exposure_finish(p, sum);
        break;
    }
    case KernelId::Prepare:
        run_image(shape, p.render_w, p.render_h, threads, [&](int32_t x, int32_t y) { m::prepare_pixel(p, x, y); });
        break;
    case KernelId::Accumulate:
        run_image(shape, p.output_w, p.output_h, threads, [&](int32_t x, int32_t y) { m::accumulate_pixel(p, x, y); });
        break;
    case KernelId::Sharpen:
        run_image(shape, p.output_w, p.output_h, threads, [&](int32_t x, int32_t y) { m::sharpen_pixel(p, x, y); });
        break;
    }
}

} // namespace d4r::upscaler
