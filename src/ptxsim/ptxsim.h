// ptxsim: d4r's CPU device. Executes PTX kernels with CUDA semantics, bit for bit as NVIDIA
// hardware does wherever the PTX ISA defines the result (see docs/ptxsim.md for the design and
// docs/numerics.md for measured hardware behaviour).
//
// Promise (the public API the cpu backend of libd4rcuda and the tools build on):
//   - Module::load() parses and decodes a whole PTX module once; malformed PTX is a load-time error
//     naming the module, line and instruction text. A kernel using an instruction ptxsim does not
//     implement is left out of the module with that error (Module::unavailable()); the others load.
//   - Device owns device memory: allocations are bounds-checked; every kernel access outside a live
//     allocation (or misaligned) stops the launch with an error naming kernel, block, thread and
//     address (the CUDA driver would report CUDA_ERROR_ILLEGAL_ADDRESS / MISALIGNED_ADDRESS).
//   - launch() runs a grid to completion on up to `worker_threads` cores; results never depend on the
//     number of threads (except where CUDA itself leaves an order unspecified: atomics' order).
//   - A launch that executes more than `instruction_budget` warp instructions, or runs longer than
//     `watchdog_ms`, is stopped with an error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "ptx/module_index.h"
#include "ptx/validate.h"
#include "ptxsim/device_heap.h"

namespace d4r::ptxsim {

struct Dim3 {
    uint32_t x = 1, y = 1, z = 1;
    uint64_t count() const { return uint64_t(x) * y * z; }
    bool operator==(const Dim3&) const = default;
};

// A device address. Global allocations and module variables are at their host addresses; shared,
// local and kernel-parameter memory have windows of generic addresses no host pointer can have
// (kSharedWindow... below; docs/ptxsim.md "Address spaces").
using DevicePtr = uint64_t;

inline constexpr uint64_t kWindowBytes = 1ull << 32;
inline constexpr uint64_t kSharedWindow = 0xffff'a000'0000'0000ull;   // generic = window + shared offset
inline constexpr uint64_t kLocalWindow = 0xffff'b000'0000'0000ull;    // generic = window + local offset (per thread)
inline constexpr uint64_t kParamWindow = 0xffff'c000'0000'0000ull;    // generic = window + kernel parameter offset
inline constexpr uint64_t kFunctionWindow = 0xffff'd000'0000'0000ull; // address of .func i = window + 16 * i

// Why a launch failed, so the runtime can map it to the CUresult a driver would give.
enum class FaultKind {
    None,
    IllegalAddress,     // CUDA_ERROR_ILLEGAL_ADDRESS
    MisalignedAddress,  // CUDA_ERROR_MISALIGNED_ADDRESS
    IllegalInstruction, // CUDA_ERROR_ILLEGAL_INSTRUCTION (trap, brkpt, a deadlocked barrier or collective)
    InvalidLaunch,      // CUDA_ERROR_INVALID_VALUE / LAUNCH_OUT_OF_RESOURCES (shape, shared size, parameters)
    BudgetExceeded,     // the instruction budget ran out (CUDA_ERROR_LAUNCH_TIMEOUT)
    Unsupported,        // the kernel needs what ptxsim does not do (recursion)
    Assert,             // a device-side assert failed (__assertfail): CUDA_ERROR_ASSERT
};
const char* fault_kind_name(FaultKind kind);

class Module;
class Kernel;
class Device;
struct ImageTable;     // texture and surface objects (texture.h)
struct CompiledKernel; // compiled.h

struct LaunchConfig {
    Dim3 grid;
    Dim3 block;
    uint32_t dynamic_shared_bytes = 0;
    uint64_t instruction_budget = 0; // warp instructions for the whole launch; 0 = unlimited
    // A watchdog like a display GPU's: a launch still running after this many milliseconds of wall time
    // is stopped with FaultKind::BudgetExceeded (CUDA_ERROR_LAUNCH_TIMEOUT); 0 = off.
    uint32_t watchdog_ms = 0;
    // The per-thread stack of a recursive kernel in bytes (the context's CU_LIMIT_STACK_SIZE): every
    // activation of a recursive function takes 16 bytes of it, as a frame whose variables live in registers
    // does on the H200, and a call past it stops the launch with FaultKind::IllegalAddress (recursion.h).
    // 0 = the most a thread can have (512 KiB).
    uint64_t stack_bytes = 0;
    unsigned worker_threads = 0; // 0 = every core
    // A cooperative launch (cuLaunchCooperativeKernel): every block is resident until the grid ends, so
    // blocks may wait for each other (cooperative groups' grid.sync(), through the grid workspace that
    // %envreg1/%envreg2 point at). The caller keeps the grid within what the device holds at once.
    bool cooperative = false;
    // Receives the text of device printf (vprintf) once the launch is over: one call per block that printed,
    // in block order (within a block: warps in execution order, lanes in lane order), so the output of a
    // launch never depends on the worker count. Empty: the text goes to stdout.
    std::function<void(std::string_view)> printf_sink;
    // The heap of malloc/free in kernels (device_heap.h). A kernel that calls them (Module::uses_device_heap())
    // cannot launch without one: launch() refuses it, naming malloc.
    std::shared_ptr<DeviceHeap> heap;
    // cudaGraphSetConditional(handle, value) from the kernel, per lane in lane order: false for a handle the
    // caller does not know (the launch stops naming it). Empty: every such call stops the launch.
    std::function<bool(uint64_t handle, uint32_t value)> set_conditional;
    // The texture and surface objects the launch sees: image_snapshot() taken when the caller queued the
    // launch, so that an object destroyed right after an asynchronous launch stays valid for it, as on a
    // GPU (cudaDestroyTextureObject after <<<>>>). Empty: the device's objects when the launch starts.
    std::shared_ptr<const ImageTable> images;
    // The kernel compiled to host code (compiled.h), run instead of the interpreter unless the launch has an
    // instruction budget, is cooperative or keeps a profile. Empty: interpreted.
    std::shared_ptr<const CompiledKernel> compiled;
    // Receives the launch's PTX profile once it is over (faulted or not; its own launches from the device are not
    // in it): the warp instructions issued at each line of the kernel's PTX (as warp_instructions counts them: a
    // guarded-off instruction counts) that issued any, one line each, the most first (ties in line order):
    // "COUNT LINE TEXT\n". Set, the launch is interpreted (compiled code counts no instructions). Empty: none kept.
    std::function<void(std::string_view)> profile_sink;
};

// The device's texture and surface objects now, for LaunchConfig::images.
std::shared_ptr<const ImageTable> image_snapshot(Device& device);

struct LaunchResult {
    uint64_t warp_instructions = 0; // decoded instructions issued (a guarded-off instruction counts)
    uint64_t lane_instructions = 0; // sum over issued instructions of the lanes active at them
    unsigned workers = 0;           // threads that ran blocks
};

// Where and why a launch stopped (filled when launch() returns an error and a LaunchFault was given).
struct LaunchFault {
    FaultKind kind = FaultKind::None;
    Dim3 block;  // block index (ctaid)
    Dim3 thread; // thread index in the block (tid)
    uint64_t address = 0;
    uint32_t access_bytes = 0;
    uint32_t line = 0;   // PTX line of the instruction
    std::string message; // the full error text
};

// The SM clock (%clock64) advances at this rate of wall time: an H200's 1755 MHz, what the cpu backend reports
// as CU_DEVICE_ATTRIBUTE_CLOCK_RATE, so a kernel spinning for N cycles spins N / rate seconds.
inline constexpr uint32_t kClockRateKhz = 1'755'000;

// Largest shared memory of one block (static + dynamic), as on sm_90 with the opt-in attribute.
inline constexpr uint32_t kMaxSharedBytes = 227u * 1024;
// Shared memory every block has beyond its own, reserved for system software as on sm_80 and later
// (CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK). Cooperative groups keep their multi-warp
// scratch there (%reserved_smem_offset_*); ptxsim places it after the block's static and dynamic
// shared memory, so user shared offsets are the same as without it.
inline constexpr uint32_t kReservedSharedBytes = 1024;

// Device memory. Thread-safe: allocations may be made and freed while kernels run.
class Device {
public:
    Device();
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    // A zero-filled allocation aligned to 256 bytes (cuMemAlloc's alignment); BYTES may be 0 (a
    // distinct, 1-byte-guarded, unusable address).
    Expected<DevicePtr> alloc(uint64_t bytes);
    Status free(DevicePtr ptr);
    // Host <-> device copies and memset; every range must lie inside one live allocation.
    Status copy_to_device(DevicePtr dst, const void* src, uint64_t bytes);
    Status copy_to_host(void* dst, DevicePtr src, uint64_t bytes) const;
    Status copy_device(DevicePtr dst, DevicePtr src, uint64_t bytes);
    Status memset(DevicePtr dst, uint8_t value, uint64_t bytes);

    uint64_t allocated_bytes() const;
    size_t allocation_count() const;

    // Memory the device does not own (registered host memory, mapped ranges) that kernels and copies may
    // use: [BASE, BASE + BYTES) joins the live ranges but is never freed by the device and is not an
    // allocation (free() refuses it; allocated_bytes() and allocation_count() leave it out).
    // add_foreign() refuses a BASE that is one of the device's own allocations; it replaces an earlier
    // foreign range at BASE.
    Status add_foreign(DevicePtr base, uint64_t bytes);
    Status remove_foreign(DevicePtr base);

    struct Impl;
    Impl& impl() const { return *m_impl; }

private:
    std::unique_ptr<Impl> m_impl;
};

struct GlobalSymbol {
    DevicePtr address = 0; // host address of the variable (writable by the host)
    uint64_t size = 0;
    bool is_const = false; // .const (else .global)
};

struct Program; // the decoded form of one kernel (decoder.h)

class Kernel {
public:
    Kernel(const Module* module, const ptx::EntryInfo* info, std::unique_ptr<Program> program);
    ~Kernel();

    const std::string& name() const { return m_info->name; }
    // Parameters laid out as CUDA lays them out (offsets in the parameter block).
    const ptx::EntryInfo& info() const { return *m_info; }
    const Module& module() const { return *m_module; }
    uint32_t static_shared_bytes() const;
    uint32_t local_bytes_per_thread() const;
    size_t instruction_count() const;
    const Program& program() const { return *m_program; }

private:
    const Module* m_module;
    const ptx::EntryInfo* m_info;
    std::unique_ptr<Program> m_program;
};

class Module {
public:
    // Parses TEXT (one PTX module) and decodes every function; NAME is used in error messages
    // ("NAME:12: unsupported instruction 'foo.bar %r1;'").
    static Expected<std::shared_ptr<Module>> load(std::string_view text, std::string name);
    ~Module();

    const std::string& name() const { return m_name; }
    const ptx::ModuleIndex& index() const { return m_index; }
    // The kernel NAME; an Unsupported error naming the line when the kernel uses what ptxsim cannot
    // execute (see unavailable()), NotFound when the module has no such kernel.
    Expected<const Kernel*> kernel(std::string_view name) const;
    // The kernels that decoded, in module order.
    std::vector<std::string> kernel_names() const;
    // Kernels that use an instruction or feature ptxsim does not implement: the module loads without
    // them and kernel() refuses them with REASON ("NAME:LINE: unsupported instruction '...'").
    struct Unavailable {
        std::string kernel;
        std::string reason;
    };
    const std::vector<Unavailable>& unavailable() const { return m_unavailable; }
    // Whether a kernel of the module calls malloc/free (C++ new/delete): its launches need
    // LaunchConfig::heap (kernels it launches from device code get the same heap).
    bool uses_device_heap() const { return m_device_heap; }
    // A module-scope .global or .const variable, like cuModuleGetGlobal.
    Expected<GlobalSymbol> global(std::string_view name) const;

    struct Impl;
    Impl& impl() const { return *m_impl; }

private:
    Module() = default;
    std::string m_name;
    ptx::ModuleIndex m_index;
    std::unique_ptr<Impl> m_impl;
    std::vector<std::unique_ptr<Kernel>> m_kernels;
    std::vector<Unavailable> m_unavailable;
    bool m_device_heap = false;
};

// The newest PTX ISA major version ptxsim knows: the front end's (ptx/validate.h).
using ptx::kNewestPtxIsaMajor;

// External functions ptxsim provides itself, which a module may declare (.extern .func) and call without
// defining them: vprintf, __assertfail, malloc/free/__cuda_syscall_aligned_malloc (the device heap), the
// device runtime's kernel-launch calls and cudaGraphSetConditional.
bool is_builtin_function(std::string_view name);

// Runs KERNEL over the grid and waits for it. PARAMS is the parameter block laid out as
// kernel.info() says (its size must be info().param_block_size). On a fault the error names the
// kernel, block, thread, address and instruction; FAULT (when given) receives the details.
Expected<LaunchResult> launch(Device& device, const Kernel& kernel, const LaunchConfig& config,
                              std::span<const uint8_t> params, LaunchFault* fault = nullptr);

} // namespace d4r::ptxsim
