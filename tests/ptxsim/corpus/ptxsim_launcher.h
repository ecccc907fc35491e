// The corpus Launcher over ptxsim (d4r's CPU device): device memory through ptxsim::Device, the case's
// PTX loaded with Module::load, the parameter block built by the corpus library, and a launch with a
// bounded instruction budget.
//
// Promises:
// - Every failure is an error string (never an exception or abort), and failure_stage() says where the
//   last one happened, so the conformance test can tell "ptxsim cannot load this PTX" (an unsupported
//   instruction, named with its line) from "ptxsim ran it and faulted" and from a wrong answer.
// - Textures and surfaces go through ptxsim's texture/surface object API (ptxsim_texture.h), created as
//   the H200 runner creates them (tests/device/ptxsim_golden_runner.cpp): CUDA arrays for texture and
//   surface images, 32-byte-pitched device memory for pitch-linear textures.
// - release() frees every allocation of the current case; the Device lives as long as the launcher.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "corpus.h"
#include "ptxsim/ptxsim.h"
#include "ptxsim/ptxsim_texture.h"

namespace d4r::corpus {

enum class FailureStage { none, memory, image, load, launch };
const char* failure_stage_name(FailureStage stage);

class PtxsimLauncher final : public Launcher {
public:
    // Warp instructions one case may issue. The corpus kernels are small (a few blocks of 256 threads,
    // tens to hundreds of instructions per thread); 1e8 stops a runaway loop after well under a minute.
    static constexpr uint64_t kDefaultBudget = 100'000'000;

    // JIT: kernels are compiled by the PTX JIT (jit/kernel_compiler.h) and run compiled, under a watchdog instead
    // of the instruction budget; one the JIT refuses runs interpreted (jit_refusal() says why).
    explicit PtxsimLauncher(uint64_t instruction_budget = kDefaultBudget, unsigned worker_threads = 0,
                            bool jit = false);
    ~PtxsimLauncher() override;

    std::string alloc(size_t bytes, uint64_t* address) override;
    std::string upload(uint64_t address, const void* data, size_t bytes) override;
    std::string download(uint64_t address, void* data, size_t bytes) override;
    std::string create_image(const ImageParam& image, const std::vector<uint8_t>& texels, uint64_t* handle) override;
    std::string read_image(uint64_t handle, std::vector<uint8_t>* texels) override;
    std::string launch(const std::string& ptx, const Case& c, const std::vector<uint8_t>& param_block) override;
    void release() override;

    FailureStage failure_stage() const { return m_stage; }
    const ptxsim::LaunchResult& last_launch() const { return m_last; }
    const ptxsim::LaunchFault& last_fault() const { return m_fault; }
    bool ran_compiled() const { return m_compiled; }
    const std::string& jit_refusal() const { return m_jit_refusal; }
    bool ran_warp_code() const { return m_warp; } // compiled to warp code (else one thread at a time: why_not_warp)
    const std::string& why_not_warp() const { return m_why_not_warp; }

private:
    std::string fail(FailureStage stage, std::string message);

    struct Image {
        ptxsim::ArrayId array = 0; // 0 for pitch-linear memory
        ptxsim::DevicePtr ptr = 0;
        uint64_t pitch = 0, width_bytes = 0;
        uint32_t height = 0;
        bool surface = false;
    };

    ptxsim::Device m_device;
    std::vector<ptxsim::DevicePtr> m_allocations;
    std::map<uint64_t, Image> m_images; // by object handle
    uint64_t m_budget;
    unsigned m_workers;
    bool m_jit;
    bool m_compiled = false;
    std::string m_jit_refusal;
    bool m_warp = false;
    std::string m_why_not_warp;
    FailureStage m_stage = FailureStage::none;
    ptxsim::LaunchResult m_last;
    ptxsim::LaunchFault m_fault;
};

} // namespace d4r::corpus
