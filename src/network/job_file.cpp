// The refine forward pass as a job file (see job_file.h).
#include "network/job_file.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

namespace d4r::network {

namespace {

constexpr char kMagic[8] = {'d', '4', 'r', 'j', 'o', 'b', 0, 0};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kMaxRegions = 256, kMaxLaunches = 65536, kMaxText = 4096, kMaxParams = 4096;

class Writer {
public:
    template <typename T>
    void put(T v) {
        bytes(&v, sizeof v);
    }
    void bytes(const void* p, size_t n) {
        const auto* b = static_cast<const uint8_t*>(p);
        m_out.insert(m_out.end(), b, b + n);
    }
    void text(const std::string& s) {
        put(static_cast<uint32_t>(s.size()));
        bytes(s.data(), s.size());
    }
    const std::vector<uint8_t>& data() const { return m_out; }

private:
    std::vector<uint8_t> m_out;
};

class Reader {
public:
    explicit Reader(std::vector<uint8_t> b) : m_b(std::move(b)) {}
    template <typename T>
    bool get(T& v) {
        if (sizeof(T) > m_b.size() - m_at) return false;
        std::memcpy(&v, m_b.data() + m_at, sizeof(T));
        m_at += sizeof(T);
        return true;
    }
    bool bytes(std::vector<uint8_t>& v, uint64_t n) {
        if (n > m_b.size() - m_at) return false;
        v.assign(m_b.begin() + std::ptrdiff_t(m_at), m_b.begin() + std::ptrdiff_t(m_at + n));
        m_at += n;
        return true;
    }
    bool text(std::string& s) {
        uint32_t n = 0;
        std::vector<uint8_t> b;
        if (!get(n) || n > kMaxText || !bytes(b, n)) return false;
        s.assign(b.begin(), b.end());
        return true;
    }
    bool done() const { return m_at == m_b.size(); }

private:
    std::vector<uint8_t> m_b;
    size_t m_at = 0;
};

void append_launches(Job& job, const std::vector<Launch>& launches) {
    for (const Launch& l : launches)
        job.launches.push_back({kernel_name(l.kernel), l.what, l.grid, l.block, 0,
                                std::vector<uint8_t>(l.params.begin(), l.params.begin() + l.param_bytes), l.out,
                                l.out_bytes});
}

} // namespace

Job refine_job(const Model& model, const std::vector<uint16_t>& rgba, uint32_t width, uint32_t height,
               std::string note) {
    const Geometry g = geometry_for(width, height);
    Job job;
    job.note = std::move(note);
    std::vector<uint8_t> weights = pack_weights(model);
    const uint64_t weight_bytes = weights.size();
    job.regions.push_back({kJobWeightsAddress, weight_bytes, std::move(weights)});
    job.regions.push_back({kJobScratchAddress, std::max<uint64_t>(scratch_layout(g).total, 1), {}});
    std::vector<uint8_t> image(rgba.size() * 2);
    std::memcpy(image.data(), rgba.data(), image.size());
    job.regions.push_back({kJobImageAddress, image.size(), std::move(image)});
    append_launches(job,
                    plan_forward(g, kJobImageAddress, width * 8, kJobWeightsAddress, kJobScratchAddress, model.arch));
    return job;
}

Expected<Job> refine_job_after_core(const Model& model, const CoreFrame& core, std::string note) {
    if (!reads_core_frame(model.arch))
        return make_error(ErrorCode::Invalid, "a job after the core: {} does not read the core's frame", model.arch);
    upscaler::math::Params params = core.params;
    std::vector<uint8_t> bytes;
    std::vector<uint64_t> offsets;
    for (const CoreFrame::Buffer& b : core.buffers) {
        bytes.resize((bytes.size() + 255) / 256 * 256);
        offsets.push_back(bytes.size());
        bytes.insert(bytes.end(), b.bytes.begin(), b.bytes.end());
    }
    for (uint64_t upscaler::math::Params::* field : kCoreBufferFields) {
        uint64_t& p = params.*field;
        if (p == 0) continue;
        size_t i = 0;
        while (i < core.buffers.size() &&
               !(p >= core.buffers[i].address && p < core.buffers[i].address + core.buffers[i].bytes.size()))
            ++i;
        if (i == core.buffers.size())
            return make_error(ErrorCode::Invalid,
                              "a job after the core: the core's pointer {:#x} is in none of its "
                              "buffers",
                              p);
        p = kJobCoreAddress + offsets[i] + (p - core.buffers[i].address);
    }
    const Geometry g = geometry_for(params.output_w, params.output_h);
    Job job;
    job.note = std::move(note);
    std::vector<uint8_t> weights = pack_weights(model);
    const uint64_t weight_bytes = weights.size();
    job.regions.push_back({kJobWeightsAddress, weight_bytes, std::move(weights)});
    job.regions.push_back({kJobScratchAddress, std::max<uint64_t>(scratch_layout(g, model.arch).total, 1), {}});
    const uint64_t core_bytes = std::max<uint64_t>(bytes.size(), 1);
    job.regions.push_back({kJobCoreAddress, core_bytes, std::move(bytes)});
    append_launches(job, plan_forward(g, params.output, params.output_pitch, kJobWeightsAddress, kJobScratchAddress,
                                      model.arch, &params));
    return job;
}

Status write_job(const std::filesystem::path& path, const Job& job) {
    Writer w;
    w.bytes(kMagic, sizeof kMagic);
    w.put(kVersion);
    w.put(static_cast<uint32_t>(job.regions.size()));
    w.put(static_cast<uint32_t>(job.launches.size()));
    w.text(job.note);
    for (const JobRegion& r : job.regions) {
        w.put(r.address);
        w.put(r.size);
        w.put(static_cast<uint64_t>(r.init.size()));
        w.bytes(r.init.data(), r.init.size());
    }
    for (const JobLaunch& l : job.launches) {
        w.text(l.kernel);
        w.text(l.layer);
        for (uint32_t v : l.grid) w.put(v);
        for (uint32_t v : l.block) w.put(v);
        w.put(l.shared_bytes);
        w.put(static_cast<uint32_t>(l.params.size()));
        w.bytes(l.params.data(), l.params.size());
        w.put(l.out);
        w.put(l.out_bytes);
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(w.data().data()), std::streamsize(w.data().size()));
    out.close();
    if (!out) return make_error(ErrorCode::Io, "cannot write the job {}", path.string());
    return ok_status();
}

Expected<Job> read_job(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(ErrorCode::NotFound, "job {}: cannot open it", path.string());
    Reader r(std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {}));
    auto bad = [&](const char* what) { return make_error(ErrorCode::Invalid, "job {}: {}", path.string(), what); };
    std::vector<uint8_t> magic;
    uint32_t version = 0, regions = 0, launches = 0;
    if (!r.bytes(magic, 8) || std::memcmp(magic.data(), kMagic, 8) != 0) return bad("not a job file (magic)");
    if (!r.get(version) || version != kVersion) return bad("unknown version");
    Job job;
    if (!r.get(regions) || !r.get(launches) || regions > kMaxRegions || launches > kMaxLaunches || !r.text(job.note))
        return bad("truncated or malformed header");
    job.regions.resize(regions);
    for (JobRegion& g : job.regions) {
        uint64_t init = 0;
        if (!r.get(g.address) || !r.get(g.size) || !r.get(init) || init > g.size || !r.bytes(g.init, init))
            return bad("truncated or malformed region");
    }
    job.launches.resize(launches);
    for (JobLaunch& l : job.launches) {
        uint32_t params = 0;
        bool ok = r.text(l.kernel) && r.text(l.layer);
        for (uint32_t& v : l.grid) ok = ok && r.get(v);
        for (uint32_t& v : l.block) ok = ok && r.get(v);
        ok = ok && r.get(l.shared_bytes) && r.get(params) && params <= kMaxParams && r.bytes(l.params, params) &&
             r.get(l.out) && r.get(l.out_bytes);
        if (!ok) return bad("truncated or malformed launch");
    }
    if (!r.done()) return bad("bytes after the last launch");
    return job;
}

} // namespace d4r::network
