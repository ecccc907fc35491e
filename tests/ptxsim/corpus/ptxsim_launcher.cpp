// The corpus Launcher over ptxsim (ptxsim_launcher.h).
#include "ptxsim_launcher.h"

#include <fmt/format.h>

#include <utility>

namespace d4r::corpus {

const char* failure_stage_name(FailureStage stage) {
    switch (stage) {
        case FailureStage::none: return "none";
        case FailureStage::memory: return "memory";
        case FailureStage::image: return "image";
        case FailureStage::load: return "load";
        case FailureStage::launch: return "launch";
    }
    return "?";
}

PtxsimLauncher::PtxsimLauncher(uint64_t instruction_budget, unsigned worker_threads)
    : m_budget(instruction_budget), m_workers(worker_threads) {}

PtxsimLauncher::~PtxsimLauncher() { release(); }

std::string PtxsimLauncher::fail(FailureStage stage, std::string message) {
    m_stage = stage;
    return message;
}

std::string PtxsimLauncher::alloc(size_t bytes, uint64_t* address) {
    auto ptr = m_device.alloc(bytes);
    if (!ptr) return fail(FailureStage::memory, "alloc: " + ptr.error().text());
    m_allocations.push_back(*ptr);
    *address = *ptr;
    return "";
}

std::string PtxsimLauncher::upload(uint64_t address, const void* data, size_t bytes) {
    auto s = m_device.copy_to_device(address, data, bytes);
    return s ? "" : fail(FailureStage::memory, "upload: " + s.error().text());
}

std::string PtxsimLauncher::download(uint64_t address, void* data, size_t bytes) {
    auto s = m_device.copy_to_host(data, address, bytes);
    return s ? "" : fail(FailureStage::memory, "download: " + s.error().text());
}

// ptxsim.h has no texture or surface objects yet: refusing here keeps those cases visibly unsupported
// (status.md) rather than passing with invented texel values.
std::string PtxsimLauncher::create_image(const ImageParam& image, const std::vector<uint8_t>&, uint64_t*) {
    return fail(FailureStage::image,
                fmt::format("unsupported: textures ({} {}x{} image; ptxsim has no texture/surface API)",
                            format_name(image.format), image.width, image.height));
}

std::string PtxsimLauncher::read_image(uint64_t, std::vector<uint8_t>*) {
    return fail(FailureStage::image, "unsupported: textures");
}

std::string PtxsimLauncher::launch(const std::string& ptx, const Case& c, const std::vector<uint8_t>& param_block) {
    auto module = ptxsim::Module::load(ptx, c.module + ".ptx");
    if (!module) return fail(FailureStage::load, "load: " + module.error().text());
    auto kernel = (*module)->kernel(c.entry);
    if (!kernel) return fail(FailureStage::load, "load: " + kernel.error().text());
    const ptxsim::Kernel& k = **kernel;
    // The corpus library lays the block out from the case table and has checked it against the PTX
    // .entry; ptxsim lays it out from its own parse. Both must agree or the kernel reads garbage.
    if (k.info().param_block_size != param_block.size())
        return fail(FailureStage::launch, fmt::format("launch: parameter block is {} bytes, ptxsim expects {}",
                                                      param_block.size(), k.info().param_block_size));
    ptxsim::LaunchConfig config;
    config.grid = {c.grid.x, c.grid.y, c.grid.z};
    config.block = {c.block.x, c.block.y, c.block.z};
    config.dynamic_shared_bytes = c.dynamic_smem;
    config.instruction_budget = m_budget;
    config.worker_threads = m_workers;
    m_fault = {};
    auto result = ptxsim::launch(m_device, k, config, param_block, &m_fault);
    if (!result) return fail(FailureStage::launch, "launch: " + result.error().text());
    m_last = *result;
    return "";
}

void PtxsimLauncher::release() {
    for (ptxsim::DevicePtr p : m_allocations) (void)m_device.free(p);
    m_allocations.clear();
}

}  // namespace d4r::corpus
