// A job file run on the host at its own addresses (see job_host.h).
#include "network/job_host.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "network/host_kernels.h"

namespace d4r::network {

namespace {

struct Mappings {
    std::vector<std::pair<void*, size_t>> maps;
    Mappings() = default;
    Mappings(const Mappings&) = delete;
    Mappings& operator=(const Mappings&) = delete;
    ~Mappings() {
        for (auto [p, n] : maps) munmap(p, n);
    }
};

} // namespace

Expected<LayerTrace> run_job_on_host(const Job& job, unsigned threads) {
    const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    Mappings m;
    for (const JobRegion& r : job.regions) {
        if (r.address % page != 0 || r.size == 0)
            return make_error(ErrorCode::Invalid, "job region {:#x}: not page aligned or empty", r.address);
        const size_t bytes = (r.size + page - 1) / page * page;
        void* want = reinterpret_cast<void*>(r.address);
        void* p = mmap(want, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED)
            return make_error(ErrorCode::Io, "job region {:#x} ({} bytes): cannot map it there: {}", r.address, r.size,
                              std::strerror(errno));
        m.maps.emplace_back(p, bytes);
        if (p != want) // a kernel older than 4.17 ignores MAP_FIXED_NOREPLACE and maps elsewhere
            return make_error(ErrorCode::Io, "job region {:#x}: the kernel mapped it at {}", r.address, p);
        if (!r.init.empty()) std::memcpy(p, r.init.data(), r.init.size()); // the scratch region has none
    }
    auto inside = [&](uint64_t addr, uint64_t n) {
        for (const JobRegion& r : job.regions)
            if (addr >= r.address && n <= r.size && addr - r.address <= r.size - n) return true;
        return false;
    };
    LayerTrace trace;
    for (size_t i = 0; i < job.launches.size(); ++i) {
        const JobLaunch& l = job.launches[i];
        const Kernel* kernel = nullptr;
        for (const Kernel& k : kAllKernels)
            if (l.kernel == kernel_name(k)) kernel = &k;
        if (!kernel) return make_error(ErrorCode::Invalid, "job launch {}: unknown kernel {}", i, l.kernel);
        if (!inside(l.out, l.out_bytes))
            return make_error(ErrorCode::Invalid, "job launch {} ({}): its output lies outside the regions", i,
                              l.layer);
        run_kernel(*kernel, l.params, l.grid, threads);
        const auto* out = reinterpret_cast<const uint8_t*>(l.out);
        trace.push_back({l.kernel, l.layer, std::vector<uint8_t>(out, out + l.out_bytes)});
    }
    return trace;
}

} // namespace d4r::network
