// d4r-rj-run: runs a d4r job file (docs/network.md, "Checking AMD kernels on rocjitsu") on rocjitsu's model of
// an AMD GPU with a folder of .hsaco native kernels, following d4r's native-kernel protocol (docs/runtime.md,
// "Native-kernel overrides"), and writes every launch's output as a d4r trace file; or runs the self-test
// probes (--selftest). No ROCm, no KFD, no AMD hardware.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "code_object.h"
#include "selftest.h"
#include "vm.h"

namespace d4r::rj {

namespace {

namespace fs = std::filesystem;

constexpr char kJobMagic[8] = {'d', '4', 'r', 'j', 'o', 'b', 0, 0};
constexpr uint64_t kJobMinAddress = 1ull << 32; // below: the harness's own code objects, kernargs and queue
constexpr uint64_t kCodeBase = 0x1000'0000, kCodeStride = 0x0100'0000;

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + path);
    return {std::istreambuf_iterator<char>(f), {}};
}

struct JobLaunch {
    std::string kernel, layer;
    std::array<uint32_t, 3> grid{}, block{};
    uint32_t shared = 0;
    std::vector<uint8_t> params;
    uint64_t out = 0, out_bytes = 0;
};

struct Job {
    std::string note;
    MemoryImage memory;
    std::vector<JobLaunch> launches;
};

class Reader {
public:
    Reader(std::vector<uint8_t> b, std::string path) : m_b(std::move(b)), m_path(std::move(path)) {}
    template <typename T>
    T get() {
        T v;
        std::memcpy(&v, take(sizeof(T)), sizeof(T));
        return v;
    }
    const uint8_t* take(uint64_t n) {
        if (n > m_b.size() - m_at) throw std::runtime_error(m_path + ": job file truncated");
        const uint8_t* p = m_b.data() + m_at;
        m_at += n;
        return p;
    }
    std::string text(uint32_t max) {
        uint32_t n = get<uint32_t>();
        if (n > max) throw std::runtime_error(m_path + ": a string of " + std::to_string(n) + " bytes");
        return {reinterpret_cast<const char*>(take(n)), n};
    }
    bool done() const { return m_at == m_b.size(); }

private:
    std::vector<uint8_t> m_b;
    std::string m_path;
    size_t m_at = 0;
};

Job read_job(const std::string& path) {
    Reader r(read_bytes(path), path);
    if (std::memcmp(r.take(8), kJobMagic, 8) != 0) throw std::runtime_error(path + ": not a d4r job file (magic)");
    if (uint32_t v = r.get<uint32_t>(); v != 1) throw std::runtime_error(path + ": job version " + std::to_string(v));
    Job job;
    const uint32_t regions = r.get<uint32_t>(), launches = r.get<uint32_t>();
    if (regions > 256 || launches > 65536) throw std::runtime_error(path + ": too many regions or launches");
    job.note = r.text(4096);
    uint64_t previous_end = kJobMinAddress - kGuardBytes;
    for (uint32_t i = 0; i < regions; ++i) {
        const uint64_t addr = r.get<uint64_t>(), size = r.get<uint64_t>(), init = r.get<uint64_t>();
        if (addr < previous_end + kGuardBytes || size == 0 || size > (4ull << 30) || init > size)
            throw std::runtime_error(path + ": region " + std::to_string(i) +
                                     " is not above 4 GiB, in address order, 4 KiB apart, 1 B..4 GiB, init <= size");
        std::vector<uint8_t> bytes(size, 0);
        std::memcpy(bytes.data(), r.take(init), init);
        job.memory.blocks.emplace(addr, std::move(bytes));
        previous_end = addr + size;
    }
    for (uint32_t i = 0; i < launches; ++i) {
        JobLaunch l;
        l.kernel = r.text(256);
        l.layer = r.text(256);
        for (uint32_t& g : l.grid) g = r.get<uint32_t>();
        for (uint32_t& b : l.block) b = r.get<uint32_t>();
        l.shared = r.get<uint32_t>();
        const uint32_t pb = r.get<uint32_t>();
        if (pb > 4096) throw std::runtime_error(path + ": parameter block over 4 KiB");
        const uint8_t* p = r.take(pb);
        l.params.assign(p, p + pb);
        l.out = r.get<uint64_t>();
        l.out_bytes = r.get<uint64_t>();
        if (!job.memory.find(l.out, l.out_bytes))
            throw std::runtime_error(path + ": launch " + std::to_string(i) + " (" + l.layer +
                                     ") dumps bytes outside every region");
        job.launches.push_back(std::move(l));
    }
    if (!r.done()) throw std::runtime_error(path + ": bytes after the last launch");
    return job;
}

// A native kernel as d4r's runtime holds it (runtime/native/native_kernel.h): its phases, its u32 symbols and
// its prep state.
struct NativeKernel {
    std::unique_ptr<CodeObject> code;
    uint64_t base = 0;
    bool prep = false;
    std::vector<std::string> posts;
    std::optional<uint32_t> prep_blocks, prep_key_offset, prep_key_at, prep_key_slots, block_z, grid_x;
    struct PostDims {
        std::optional<uint32_t> grid_x, grid_y, block_x, block_y, block_z;
    };
    std::vector<PostDims> post_dims;
    std::optional<uint64_t> slot_global;
    bool prepared_once = false;
    uint64_t last_key = 0;
    std::vector<uint64_t> slot_keys;
};

class Runner {
public:
    Runner(Config config, fs::path kernels, bool allow_other_target)
        : m_config(std::move(config)), m_dir(std::move(kernels)), m_allow_other(allow_other_target) {}

    // One launch of the job: NAME_prep (when due), NAME, NAME_post1..8, as runtime/native/override_layer.cpp does.
    void launch(Job& job, const JobLaunch& l) {
        NativeKernel& k = kernel(job, l.kernel);
        uint32_t slot = 0;
        bool run_prep = k.prep;
        if (k.prep) {
            std::optional<uint32_t> key_offset;
            if (k.prep_key_at && *k.prep_key_at > 0)
                key_offset = *k.prep_key_at - 1;
            else if (k.prep_key_offset && *k.prep_key_offset > 0)
                key_offset = *k.prep_key_offset;
            if (key_offset) {
                if (uint64_t(*key_offset) + 8 > l.params.size())
                    throw std::runtime_error(l.kernel + ": prep key offset outside the parameter block");
                uint64_t key;
                std::memcpy(&key, l.params.data() + *key_offset, 8);
                const uint32_t slots = k.prep_key_slots.value_or(0);
                if (slots == 0) {
                    run_prep = !k.prepared_once || key != k.last_key;
                    k.prepared_once = true;
                    k.last_key = key;
                } else {
                    slot = slots;
                    for (uint32_t i = 0; i < k.slot_keys.size(); ++i)
                        if (k.slot_keys[i] == key) slot = i;
                    if (slot < slots) {
                        run_prep = false;
                    } else if (k.slot_keys.size() < slots) {
                        slot = static_cast<uint32_t>(k.slot_keys.size());
                        k.slot_keys.push_back(key);
                    }
                }
            }
            if (k.slot_global) {
                uint8_t* p = job.memory.find(*k.slot_global, 4);
                if (!p) throw std::runtime_error(l.kernel + ": d4r_prep_slot outside the code object");
                std::memcpy(p, &slot, 4);
            }
            if (run_prep) phase(job, k, l.kernel + "_prep", {k.prep_blocks.value_or(1), 1, 1}, {128, 1, 1}, l);
        }
        std::array<uint32_t, 3> grid = l.grid, block = l.block;
        if (k.grid_x) grid = {*k.grid_x, 1, 1};
        if (k.block_z) block[2] = *k.block_z;
        phase(job, k, l.kernel, grid, block, l);
        for (size_t i = 0; i < k.posts.size(); ++i) {
            const NativeKernel::PostDims& p = k.post_dims[i];
            phase(job, k, k.posts[i], {p.grid_x.value_or(l.grid[0]), p.grid_y.value_or(l.grid[1]), 1},
                  {p.block_x.value_or(32), p.block_y.value_or(1), p.block_z.value_or(1)}, l);
        }
        ++m_launches;
    }
    size_t phases() const { return m_phases; }

private:
    NativeKernel& kernel(Job& job, const std::string& name) {
        if (auto it = m_kernels.find(name); it != m_kernels.end()) return it->second;
        const fs::path file = m_dir / (name + ".hsaco");
        if (!fs::exists(file))
            throw std::runtime_error("no " + file.string() + ": every kernel of the job must be native");
        NativeKernel k;
        k.code = std::make_unique<CodeObject>(CodeObject::parse(file.string(), read_bytes(file.string())));
        if (k.code->target() != m_config.target && !m_allow_other)
            throw std::runtime_error(file.string() + " is a " + k.code->target() + " code object; the config " +
                                     m_config.path + " models " + m_config.target);
        if (!k.code->kernel(name)) throw std::runtime_error(file.string() + ": no kernel " + name);
        k.base = kCodeBase + kCodeStride * m_kernels.size();
        add_code_object(job.memory, *k.code, k.base);
        k.prep = k.code->kernel(name + "_prep").has_value();
        for (int i = 1; i <= 8 && k.code->kernel(name + "_post" + std::to_string(i)); ++i)
            k.posts.push_back(name + "_post" + std::to_string(i));
        auto u32 = [&](const std::string& s) { return k.code->u32_global(s); };
        k.prep_blocks = u32("d4r_prep_blocks");
        k.prep_key_offset = u32("d4r_prep_key_offset");
        k.prep_key_at = u32("d4r_prep_key_at");
        k.prep_key_slots = u32("d4r_prep_key_slots");
        k.block_z = u32("d4r_block_z");
        k.grid_x = u32("d4r_grid_x");
        for (size_t i = 0; i < k.posts.size(); ++i) {
            auto sym = [&](const char* what) { return u32("d4r_post" + std::to_string(i + 1) + "_" + what); };
            k.post_dims.push_back({sym("grid_x"), sym("grid_y"), sym("block_x"), sym("block_y"), sym("block_z")});
        }
        if (auto s = k.code->symbol("d4r_prep_slot")) k.slot_global = k.base + *s;
        std::fprintf(stderr, "d4r-rj-run: %s: %s, prep %s, %zu post phase(s)\n", name.c_str(), k.code->target().c_str(),
                     k.prep ? "yes" : "no", k.posts.size());
        return m_kernels.emplace(name, std::move(k)).first->second;
    }

    void phase(Job& job, NativeKernel& k, const std::string& name, std::array<uint32_t, 3> grid,
               std::array<uint32_t, 3> block, const JobLaunch& l) {
        Dispatch d{k.code.get(), k.base, name, grid, block, l.shared, l.params};
        try {
            run_dispatch(m_config, job.memory, d);
        } catch (const std::exception& e) {
            throw std::runtime_error("launch " + std::to_string(m_launches) + " (" + l.layer + "), " + name + ": " +
                                     e.what());
        }
        ++m_phases;
    }

    Config m_config;
    fs::path m_dir;
    bool m_allow_other;
    std::map<std::string, NativeKernel> m_kernels;
    size_t m_launches = 0, m_phases = 0;
};

void write_trace(const std::string& path, const std::vector<std::pair<const JobLaunch*, std::vector<uint8_t>>>& out) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    auto u32 = [&](uint32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
    auto text = [&](const std::string& s) {
        u32(uint32_t(s.size()));
        f.write(s.data(), std::streamsize(s.size()));
    };
    u32(uint32_t(out.size()));
    for (const auto& [l, bytes] : out) {
        text(l->kernel);
        text(l->layer);
        uint64_t n = bytes.size();
        f.write(reinterpret_cast<const char*>(&n), 8);
        f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(n));
    }
    f.close();
    if (!f) throw std::runtime_error("cannot write " + path);
}

int run_job(const std::string& config_path, const std::string& kernels, const std::string& job_path,
            const std::string& trace_path, bool allow_other) {
    const Config config = read_config(config_path);
    Job job = read_job(job_path);
    std::fprintf(stderr, "d4r-rj-run: %s on %s (%s), kernels %s: %zu launches\n", job.note.c_str(),
                 config.target.c_str(), config.path.c_str(), kernels.c_str(), job.launches.size());
    Runner runner(config, kernels, allow_other);
    std::vector<std::pair<const JobLaunch*, std::vector<uint8_t>>> out;
    for (size_t i = 0; i < job.launches.size(); ++i) {
        const JobLaunch& l = job.launches[i];
        runner.launch(job, l);
        const uint8_t* p = job.memory.find(l.out, l.out_bytes);
        out.emplace_back(&l, std::vector<uint8_t>(p, p + l.out_bytes));
        std::fprintf(stderr, "d4r-rj-run: %3zu/%zu %-18s %s\n", i + 1, job.launches.size(), l.kernel.c_str(),
                     l.layer.c_str());
    }
    write_trace(trace_path, out);
    std::fprintf(stderr, "d4r-rj-run: %zu launches, %zu dispatches; trace %s\n", job.launches.size(), runner.phases(),
                 trace_path.c_str());
    return 0;
}

void usage(FILE* to) {
    std::fprintf(to,
                 "usage: d4r-rj-run --config CFG.json --kernels DIR --job FILE --trace OUT [--allow-other-target]\n"
                 "       d4r-rj-run --selftest --configs DIR --probes DIR\n"
                 "Runs a d4r job file (d4r kernels check --write-job) on rocjitsu's model of the config's GPU with\n"
                 "the .hsaco kernels of DIR, following d4r's native-kernel protocol, and writes each launch's\n"
                 "output as a d4r trace (d4r kernels check --trace OUT compares it with the PTX path).\n"
                 "--allow-other-target runs code objects built for another gfx target than the config's\n"
                 "(a negative control). --selftest runs the probes (probes_<target>.hsaco) on every config of\n"
                 "DIR (*.json) and exits 1 unless each gives its expected result.\n"
                 "Exit: 0 ok, 1 self-test failure, 2 usage, 3 error.\n");
}

} // namespace

} // namespace d4r::rj

int main(int argc, char** argv) {
    using namespace d4r::rj;
    std::map<std::string, std::string> opt;
    bool selftest = false, allow_other = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            usage(stdout);
            return 0;
        }
        if (a == "--selftest") {
            selftest = true;
        } else if (a == "--allow-other-target") {
            allow_other = true;
        } else if ((a == "--config" || a == "--kernels" || a == "--job" || a == "--trace" || a == "--configs" ||
                    a == "--probes") &&
                   i + 1 < argc) {
            opt[a] = argv[++i];
        } else {
            std::fprintf(stderr, "d4r-rj-run: unknown or incomplete argument '%s'\n", a.c_str());
            usage(stderr);
            return 2;
        }
    }
    try {
        if (selftest) {
            if (!opt.count("--configs") || !opt.count("--probes")) {
                usage(stderr);
                return 2;
            }
            return run_selftest(opt["--configs"], opt["--probes"]) ? 0 : 1;
        }
        for (const char* k : {"--config", "--kernels", "--job", "--trace"})
            if (!opt.count(k)) {
                std::fprintf(stderr, "d4r-rj-run: %s is required\n", k);
                usage(stderr);
                return 2;
            }
        return run_job(opt["--config"], opt["--kernels"], opt["--job"], opt["--trace"], allow_other);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "d4r-rj-run: error: %s\n", e.what());
        return 3;
    }
}
