// One dispatch on a fresh rocjitsu GPU model (see vm.h).
#include "vm.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>
#include <stdexcept>

#include "aql_queue.h"
#include "embedded_schema.h"
#include "rocjitsu/config/config_loader.h"
#include "rocjitsu/vm/amdgpu/gpu_memory.h"
#include "rocjitsu/vm/soc.h"
#include "simdojo/sim/simulation.h"

namespace d4r::rj {

namespace {

// Below every job address (jobs start at 4 GiB): the kernel arguments and the completion signal (an
// amd_signal_t: kind at 0, value at 8); rocjitsu's test queue uses 0xF0000000+.
constexpr uint64_t kKernargAddr = 0x0800'0000, kSignalAddr = 0x0900'0000;
// A dispatch that has not completed after this long is reported as hung.
constexpr auto kDispatchTimeout = std::chrono::minutes(10);

std::string read_text(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error("cannot open " + path);
    return {std::istreambuf_iterator<char>(f), {}};
}

std::vector<uint8_t> kernel_arguments(const KernelInfo& k, const Dispatch& d) {
    size_t size = std::max<size_t>(k.kernarg_size, d.params.size());
    std::vector<uint8_t> ka((size + 63) / 64 * 64 + 64, 0);
    std::memcpy(ka.data(), d.params.data(), d.params.size());
    const uint32_t dims = d.grid[2] > 1 ? 3 : d.grid[1] > 1 ? 2 : 1;
    for (const KernelArg& a : k.args) {
        if (!a.value_kind.starts_with("hidden_")) {
            if (uint64_t(a.offset) + a.size > d.params.size())
                throw std::runtime_error(d.kernel + ": its explicit argument at offset " + std::to_string(a.offset) +
                                         " (" + std::to_string(a.size) + " bytes) lies beyond the " +
                                         std::to_string(d.params.size()) + "-byte parameter block");
            continue;
        }
        if (uint64_t(a.offset) + a.size > ka.size())
            throw std::runtime_error(d.kernel + ": hidden argument beyond kernarg");
        uint64_t v = 0;
        const std::string& kind = a.value_kind;
        for (int i = 0; i < 3; ++i) {
            const std::string axis(1, char('x' + i));
            if (kind == "hidden_block_count_" + axis) v = d.grid[i];
            if (kind == "hidden_group_size_" + axis) v = d.block[i];
        }
        if (kind == "hidden_grid_dims") v = dims;
        if (kind == "hidden_dynamic_lds_size") v = d.shared_bytes;
        // Everything else (remainders: grids are whole workgroups; global offsets; printf, hostcall, heap and
        // queue pointers, which d4r's kernels do not use) stays 0.
        std::memcpy(ka.data() + a.offset, &v, std::min<uint32_t>(a.size, 8));
    }
    return ka;
}

} // namespace

uint8_t* MemoryImage::find(uint64_t addr, uint64_t bytes) {
    auto it = blocks.upper_bound(addr);
    if (it == blocks.begin()) return nullptr;
    --it;
    if (addr - it->first > it->second.size() || bytes > it->second.size() - (addr - it->first)) return nullptr;
    return it->second.data() + (addr - it->first);
}

Config read_config(const std::string& path) {
    const std::string text = read_text(path);
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(R"("gfx_target_version"\s*:\s*(\d+))")))
        throw std::runtime_error(path + ": no gfx_target_version");
    const unsigned v = std::stoul(m[1].str());
    char name[32];
    std::snprintf(name, sizeof name, "gfx%u%x%x", v / 10000, (v / 100) % 100, v % 100);
    return {path, name};
}

void add_code_object(MemoryImage& image, const CodeObject& code, uint64_t base) {
    // One block from the first segment to the end of the last, so the guard bands lie outside all of them.
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const Segment& s : code.segments()) {
        lo = std::min(lo, s.vaddr);
        hi = std::max(hi, s.vaddr + s.bytes.size());
    }
    if (lo >= hi) throw std::runtime_error(code.path() + ": no loadable segment");
    std::vector<uint8_t> block(hi - lo, 0);
    for (const Segment& s : code.segments()) std::memcpy(block.data() + (s.vaddr - lo), s.bytes.data(), s.bytes.size());
    image.blocks[base + lo] = std::move(block);
}

void run_dispatch(const Config& cfg, MemoryImage& image, const Dispatch& d) {
    const std::optional<KernelInfo> k = d.code->kernel(d.kernel);
    if (!k) throw std::runtime_error(d.code->path() + ": no kernel " + d.kernel);
    for (int i = 0; i < 3; ++i)
        if (d.grid[i] == 0 || d.block[i] == 0 || uint64_t(d.grid[i]) * d.block[i] > 0xffffffffull)
            throw std::runtime_error(d.kernel + ": bad grid or block");
    if (uint64_t(d.block[0]) * d.block[1] * d.block[2] > 1024) throw std::runtime_error(d.kernel + ": block over 1024");

    rocjitsu::config::LoadedConfig loaded = rocjitsu::config::load_config(cfg.path, rocjitsu::kEmbeddedSchema);
    // No tick limit (it would end a long kernel silently): the dispatch's completion signal ends the run below.
    loaded.engine_config.max_ticks = 0;
    rocjitsu::SoC* soc = loaded.soc();
    rocjitsu::amdgpu::GpuMemory* mem = loaded.memory();
    auto engine = std::make_unique<simdojo::SimulationEngine>(loaded.engine_config);
    engine->topology().set_root(loaded.take_root());
    loaded.wire_links(engine->topology());
    engine->build();
    // Workaround: at the pinned commit rocjitsu's config loader turns on packed work-item IDs (v0 = x | y << 10
    // | z << 20) only for CDNA3/4 and gfx1250, but gfx11 and gfx12 have them too (LLVM: FeaturePackedTID;
    // clang's code for them reads y from v0[19:10]). Without this every thread of a 2D block gets y = 0.
    // The self-test's k_tid probe fails without it (D4R_RJ_NO_PACKED_TID=1 leaves rocjitsu's setting, to show it).
    if ((cfg.target.starts_with("gfx11") || cfg.target.starts_with("gfx12")) && !std::getenv("D4R_RJ_NO_PACKED_TID"))
        for (uint32_t x = 0; x < soc->num_xcds(); ++x) soc->xcd(x)->command_processor()->set_packed_tid(true);

    const std::vector<uint8_t> guard(kGuardBytes, kGuardByte);
    for (const auto& [addr, bytes] : image.blocks) {
        mem->load_image(guard.data(), guard.size(), addr - kGuardBytes);
        mem->load_image(guard.data(), guard.size(), addr + bytes.size());
    }
    for (const auto& [addr, bytes] : image.blocks) mem->load_image(bytes.data(), bytes.size(), addr);
    const std::vector<uint8_t> ka = kernel_arguments(*k, d);
    mem->load_image(ka.data(), ka.size(), kKernargAddr);

    rocjitsu::amdgpu::CommandProcessor* cp = soc->xcd(0)->command_processor();
    rocjitsu::test::AqlQueue queue(mem, cp);
    hsa_kernel_dispatch_packet_t pkt{};
    pkt.header =
        uint16_t((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
    pkt.setup = 3;
    pkt.workgroup_size_x = uint16_t(d.block[0]);
    pkt.workgroup_size_y = uint16_t(d.block[1]);
    pkt.workgroup_size_z = uint16_t(d.block[2]);
    pkt.grid_size_x = d.grid[0] * d.block[0];
    pkt.grid_size_y = d.grid[1] * d.block[1];
    pkt.grid_size_z = d.grid[2] * d.block[2];
    pkt.group_segment_size = k->group_segment_fixed_size + d.shared_bytes;
    pkt.private_segment_size = k->private_segment_fixed_size;
    pkt.kernel_object = d.code_base + k->descriptor;
    pkt.kernarg_address = reinterpret_cast<void*>(kKernargAddr);
    const uint64_t signal[8] = {1 /* AMD_SIGNAL_KIND_USER */, 1 /* value: the CP decrements it */};
    mem->load_image(reinterpret_cast<const uint8_t*>(signal), sizeof signal, kSignalAddr);
    pkt.completion_signal.handle = kSignalAddr;
    queue.submit(pkt);
    // Step until the CP retires the dispatch (its signal reaches 0). engine->run() would not return: the CP stays
    // a primary while its queue is registered, and the engine then waits for doorbells that never come.
    const auto start = std::chrono::steady_clock::now();
    uint64_t steps = 0;
    while (mem->read64(kSignalAddr + 8) != 0) {
        if (!engine->step())
            throw std::runtime_error(
                d.kernel + ": the simulation ended before the dispatch completed: " + engine->last_exit().message);
        if (++steps % 4096 == 0 && std::chrono::steady_clock::now() - start > kDispatchTimeout)
            throw std::runtime_error(d.kernel + ": no completion after 10 minutes (hung?)");
    }
    if (cp->dispatched_count() != 1)
        throw std::runtime_error(d.kernel + ": the command processor dispatched " +
                                 std::to_string(cp->dispatched_count()) + " packets, not 1");
    soc->flush_all();

    for (auto& [addr, bytes] : image.blocks) {
        for (uint64_t i = 0; i < kGuardBytes; ++i)
            if (mem->read8(addr - kGuardBytes + i) != kGuardByte || mem->read8(addr + bytes.size() + i) != kGuardByte)
                throw std::runtime_error(d.kernel + ": wrote outside the block at " + std::to_string(addr) +
                                         " (guard band changed)");
        for (uint64_t i = 0; i < bytes.size(); ++i) bytes[i] = mem->read8(addr + i);
    }
}

} // namespace d4r::rj
