// ptxsim: kernel launches from a kernel (CUDA dynamic parallelism). nvcc and libNVVM compile
// `kernel<<<grid, block, shared, stream>>>(args)` in device code to two calls of CUDA's device runtime:
//
//   buffer = cudaGetParameterBufferV2(function, grid, block, shared)    returns the parameter buffer
//   (the caller writes the arguments into it)
//   error  = cudaLaunchDeviceV2(buffer, stream)                          queues the launch
//
// or the older pair cudaGetParameterBuffer(alignment, size) / cudaLaunchDevice(function, buffer, grid,
// block, shared, stream); nvcc 12+ names them __cudaCDP2*. ptxsim implements them itself (the device
// runtime library, libcudadevrt, holds machine code only):
//   - the parameter buffers come from an arena the launch allocates when its kernel makes such calls (room
//     for kPendingLaunches buffers, CUDA's default pending-launch limit); when it is full the buffer is
//     NULL, as on the GPU when too many launches are pending;
//   - a queued launch runs after the grid that queued it has finished (launch.cpp), in the order of the
//     launching block's index and then of the calls within the block, whatever stream it names. CUDA
//     runs children concurrently with their parent, but since CUDA 12 a parent can no longer wait for its
//     children, so a kernel cannot tell the difference; the parent's launch completes only after all its
//     descendants, as on the GPU.
//   - cudaMemcpyAsync (device to device) is queued like a launch and runs in the same order, so it sees
//     what the launches queued before it wrote and a later launch sees what it copied; both ranges must be
//     in device memory when it is called (an illegal address otherwise). Other copy kinds are refused
//     (cudaErrorInvalidValue).
//   - streams: cudaStreamCreateWithFlags hands out a distinct non-null handle and cudaStreamDestroy accepts
//     it; the queue's order is the same whatever stream a launch names (above).
//   - cudaGetLastError/cudaPeekAtLastError: the calling thread's last failed call (cudaSuccess when none;
//     GetLastError resets it); a NULL parameter buffer records cudaErrorLaunchPendingCountExceeded.
//     cudaGetErrorString returns a string in memory the kernel may read.
// Returned error codes are cudaError_t values: 0 success, 1 cudaErrorInvalidValue (an unknown buffer or
// function, a buffer launched twice), 65 cudaErrorLaunchMaxDepthExceeded (nesting beyond 24 levels),
// 69 cudaErrorLaunchPendingCountExceeded (no parameter buffer left).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "ptxsim/decoder.h"
#include "ptxsim/exec.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/module_impl.h"
#include "ptxsim/ops.h"
#include "ptxsim/program_builder.h"

namespace d4r::ptxsim {

namespace {

constexpr uint32_t kCudaSuccess = 0;
constexpr uint32_t kCudaErrorInvalidValue = 1;
constexpr uint32_t kCudaErrorLaunchMaxDepthExceeded = 65;
constexpr uint32_t kCudaErrorLaunchPendingCountExceeded = 69;
constexpr uint32_t kMaxNesting = 24;          // CUDA's maximum launch nesting depth
constexpr uint32_t kMemcpyDeviceToDevice = 3; // cudaMemcpyKind
constexpr uint32_t kMemcpyDefault = 4;
// Stream handles cudaStreamCreateWithFlags hands out in kernels (never dereferenced, never null).
constexpr uint64_t kStreamHandleBase = 0xffff'e000'0000'0000ull;

enum class Call : uint8_t {
    GetBufferV2,
    GetBuffer,
    LaunchV2,
    Launch,
    StreamCreate,
    StreamDestroy,
    MemcpyAsync,
    GetLastError,
    PeekAtLastError,
    GetErrorString
};

// cudaGetErrorString's texts for the codes these calls return (CUDA's runtime texts).
struct ErrorText {
    uint32_t code;
    std::string_view text;
};
constexpr ErrorText kErrorTexts[] = {
    {kCudaSuccess, "no error"},
    {kCudaErrorInvalidValue, "invalid argument"},
    {kCudaErrorLaunchMaxDepthExceeded, "launch would exceed maximum depth of nested launches"},
    {kCudaErrorLaunchPendingCountExceeded,
     "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount"},
};
constexpr std::string_view kUnknownErrorText = "unrecognized error code";

struct CallShape {
    std::string_view name;
    Call call;
    std::initializer_list<uint32_t> args; // minimum byte size of each argument
    uint32_t ret;                         // byte size of the return value
};

// The functions and their signatures (dim3 is 12 bytes, pointers and streams 8).
constexpr CallShape kCalls[] = {
    {"cudaGetParameterBufferV2", Call::GetBufferV2, {8, 12, 12, 4}, 8},
    {"__cudaCDP2GetParameterBufferV2", Call::GetBufferV2, {8, 12, 12, 4}, 8},
    {"cudaGetParameterBuffer", Call::GetBuffer, {8, 8}, 8},
    {"__cudaCDP2GetParameterBuffer", Call::GetBuffer, {8, 8}, 8},
    {"cudaLaunchDeviceV2", Call::LaunchV2, {8, 8}, 4},
    {"__cudaCDP2LaunchDeviceV2", Call::LaunchV2, {8, 8}, 4},
    {"cudaLaunchDevice", Call::Launch, {8, 8, 12, 12, 4, 8}, 4},
    {"__cudaCDP2LaunchDevice", Call::Launch, {8, 8, 12, 12, 4, 8}, 4},
    {"cudaStreamCreateWithFlags", Call::StreamCreate, {8, 4}, 4},
    {"__cudaCDP2StreamCreateWithFlags", Call::StreamCreate, {8, 4}, 4},
    {"cudaStreamDestroy", Call::StreamDestroy, {8}, 4},
    {"__cudaCDP2StreamDestroy", Call::StreamDestroy, {8}, 4},
    {"cudaMemcpyAsync", Call::MemcpyAsync, {8, 8, 8, 4, 8}, 4},
    {"__cudaCDP2MemcpyAsync", Call::MemcpyAsync, {8, 8, 8, 4, 8}, 4},
    {"cudaGetLastError", Call::GetLastError, {}, 4},
    {"__cudaCDP2GetLastError", Call::GetLastError, {}, 4},
    {"cudaPeekAtLastError", Call::PeekAtLastError, {}, 4},
    {"__cudaCDP2PeekAtLastError", Call::PeekAtLastError, {}, 4},
    {"cudaGetErrorString", Call::GetErrorString, {4}, 8},
    {"__cudaCDP2GetErrorString", Call::GetErrorString, {4}, 8},
};

// The offset of CODE's text in DeviceLaunchQueue::strings (device_runtime_error_strings' layout).
uint64_t error_text_offset(uint32_t code) {
    uint64_t offset = 0;
    for (const ErrorText& e : kErrorTexts) {
        if (e.code == code) return offset;
        offset += e.text.size() + 1;
    }
    return offset; // kUnknownErrorText comes last
}

// Whether [ADDR, ADDR + BYTES) lies in one range of device memory the launch may touch.
bool in_device_memory(const Warp& w, uint64_t addr, uint64_t bytes) {
    for (const MemRange& r : w.launch->ranges)
        if (range_holds(r.base, r.size, addr, bytes)) return true;
    return false;
}

uint64_t thread_key(const Warp& w, unsigned lane) { return (w.block->linear_id << 32) | thread_of(w, lane); }

// Records ERR as the calling thread's last error (cudaSuccess records nothing). Takes q.mutex.
void record_error(DeviceLaunchQueue& q, const Warp& w, unsigned lane, uint32_t err) {
    if (err == kCudaSuccess) return;
    std::lock_guard lock(q.mutex);
    q.last_errors[thread_key(w, lane)] = err;
}

const CallShape* find_call(std::string_view name) {
    for (const CallShape& c : kCalls)
        if (c.name == name) return &c;
    return nullptr;
}

template <typename T>
T read_param(const uint8_t* fp, uint32_t offset) {
    T v;
    std::memcpy(&v, fp + offset, sizeof v);
    return v;
}

Dim3 read_dim3(const uint8_t* fp, uint32_t offset) {
    Dim3 d;
    d.x = read_param<uint32_t>(fp, offset);
    d.y = read_param<uint32_t>(fp, offset + 4);
    d.z = read_param<uint32_t>(fp, offset + 8);
    return d;
}

// The kernel at function address ADDRESS in the launching kernel's module, or UINT32_MAX.
uint32_t kernel_function(const LaunchState& launch, uint64_t address) {
    if (address < kFunctionWindow || (address - kFunctionWindow) % 16) return UINT32_MAX;
    const uint64_t index = (address - kFunctionWindow) / 16;
    const ast::Module& ast = launch.kernel->module().impl().ast;
    if (index >= ast.functions.size() || !ast.functions[index].is_entry) return UINT32_MAX;
    return static_cast<uint32_t>(index);
}

uint64_t param_block_size(const LaunchState& launch, uint32_t function) {
    const Module& m = launch.kernel->module();
    const std::string_view name = m.impl().ast.functions[function].name;
    for (const ptx::EntryInfo& e : m.index().entries)
        if (e.name == name) return e.param_block_size;
    return 0;
}

// A parameter buffer of BYTES (ALIGN-aligned) from the launch's arena; 0 when it is full.
uint64_t take_buffer(DeviceLaunchQueue& q, uint64_t bytes, uint64_t align, DeviceLaunch record) {
    align = std::max<uint64_t>(align, 16);
    if (align & (align - 1) || align > 4096) return 0;
    const uint64_t want = (std::max<uint64_t>(bytes, 1) + 15) / 16 * 16 + align;
    const uint64_t start = q.used.fetch_add(want);
    if (start > q.arena.size() || want > q.arena.size() - start) return 0;
    const uint64_t base = reinterpret_cast<uint64_t>(q.arena.data());
    const uint64_t address = (base + start + align - 1) / align * align;
    record.buffer = address;
    record.buffer_bytes = bytes;
    std::lock_guard lock(q.mutex);
    q.buffers.emplace(address, record);
    return address;
}

// Queues the launch of the buffer at ADDRESS (FILL completes its record); a cudaError_t value.
template <typename Fill>
uint32_t queue_launch(Warp& w, uint64_t address, Fill&& fill) {
    DeviceLaunchQueue& q = *w.launch->device_launches;
    std::lock_guard lock(q.mutex);
    auto it = q.buffers.find(address);
    if (it == q.buffers.end() || it->second.launched) return kCudaErrorInvalidValue;
    DeviceLaunch& rec = it->second;
    if (!fill(rec) || rec.function == UINT32_MAX) return kCudaErrorInvalidValue;
    if (param_block_size(*w.launch, rec.function) > rec.buffer_bytes) return kCudaErrorInvalidValue;
    rec.launched = true;
    rec.order = (w.block->linear_id << 32) | w.block->device_launches++;
    return kCudaSuccess;
}

// in.s[0..3]: the arguments' offsets in the function-parameter area; in.aux: the return value's offset;
// in.flags: the Call.
Flow exec_device_runtime(Warp& w, const Instr& in, uint32_t mask) {
    LaunchState& launch = *w.launch;
    const Call call = static_cast<Call>(in.flags);
    const uint32_t* off = in.s;
    const uint32_t ret = static_cast<uint32_t>(in.aux);
    // The two argument offsets of cudaLaunchDevice beyond s[3] are in imm (shared << 32 | stream).
    const uint32_t launch_shared = static_cast<uint32_t>(static_cast<uint64_t>(in.imm) >> 32);
    for_lanes(mask, [&](unsigned l) {
        uint8_t* fp = fparam_of(w, l);
        DeviceLaunchQueue* q = launch.device_launches;
        switch (call) {
        case Call::GetBufferV2:
        case Call::GetBuffer: {
            uint64_t buffer = 0;
            if (q && launch.nesting + 1 < kMaxNesting) {
                DeviceLaunch rec;
                uint64_t bytes = 0, align = 16;
                if (call == Call::GetBufferV2) {
                    rec.function = kernel_function(launch, read_param<uint64_t>(fp, off[0]));
                    rec.grid = read_dim3(fp, off[1]);
                    rec.block = read_dim3(fp, off[2]);
                    rec.shared_bytes = read_param<uint32_t>(fp, off[3]);
                    if (rec.function != UINT32_MAX) {
                        bytes = param_block_size(launch, rec.function);
                        buffer = take_buffer(*q, bytes, 16, rec);
                    }
                } else {
                    align = read_param<uint64_t>(fp, off[0]);
                    bytes = read_param<uint64_t>(fp, off[1]);
                    if (bytes <= 32768) buffer = take_buffer(*q, bytes, align, rec);
                }
            }
            if (q && buffer == 0)
                record_error(*q, w, l,
                             launch.nesting + 1 < kMaxNesting ? kCudaErrorLaunchPendingCountExceeded
                                                              : kCudaErrorLaunchMaxDepthExceeded);
            std::memcpy(fp + ret, &buffer, sizeof buffer);
            break;
        }
        case Call::LaunchV2:
        case Call::Launch: {
            uint32_t err = kCudaErrorInvalidValue;
            if (!q) {
            } else if (launch.nesting + 1 >= kMaxNesting) {
                err = kCudaErrorLaunchMaxDepthExceeded;
            } else if (call == Call::LaunchV2) {
                err = queue_launch(w, read_param<uint64_t>(fp, off[0]), [](DeviceLaunch&) { return true; });
            } else {
                const uint32_t function = kernel_function(launch, read_param<uint64_t>(fp, off[0]));
                err = queue_launch(w, read_param<uint64_t>(fp, off[1]), [&](DeviceLaunch& rec) {
                    rec.function = function;
                    rec.grid = read_dim3(fp, off[2]);
                    rec.block = read_dim3(fp, off[3]);
                    rec.shared_bytes = read_param<uint32_t>(fp, launch_shared);
                    return function != UINT32_MAX;
                });
            }
            if (q) record_error(*q, w, l, err);
            std::memcpy(fp + ret, &err, sizeof err);
            break;
        }
        case Call::StreamCreate: {
            uint8_t* p = translate<Space::Generic>(w, l, read_param<uint64_t>(fp, off[0]), 8, true);
            if (!p) return; // the fault is recorded
            const uint64_t handle = kStreamHandleBase + (q ? q->streams.fetch_add(1) : 0);
            std::memcpy(p, &handle, sizeof handle);
            const uint32_t err = kCudaSuccess;
            std::memcpy(fp + ret, &err, sizeof err);
            break;
        }
        case Call::StreamDestroy: {
            const uint32_t err = kCudaSuccess;
            std::memcpy(fp + ret, &err, sizeof err);
            break;
        }
        case Call::MemcpyAsync: {
            uint32_t err = kCudaErrorInvalidValue;
            const uint64_t dst = read_param<uint64_t>(fp, off[0]);
            const uint64_t src = read_param<uint64_t>(fp, off[1]);
            const uint64_t bytes = read_param<uint64_t>(fp, off[2]);
            const uint32_t kind = read_param<uint32_t>(fp, off[3]);
            if (q && (kind == kMemcpyDeviceToDevice || kind == kMemcpyDefault)) {
                if (bytes == 0) {
                    err = kCudaSuccess;
                } else if (!in_device_memory(w, dst, bytes) || !in_device_memory(w, src, bytes)) {
                    fault(w, FaultKind::IllegalAddress, l, in_device_memory(w, dst, bytes) ? src : dst, 1,
                          fmt::format("cudaMemcpyAsync in a kernel of {} bytes from 0x{:x} to 0x{:x} outside any "
                                      "live allocation",
                                      bytes, src, dst));
                    return;
                } else {
                    DeviceLaunch rec;
                    rec.copy_dst = dst;
                    rec.copy_src = src;
                    rec.copy_bytes = bytes;
                    std::lock_guard lock(q->mutex);
                    rec.order = (w.block->linear_id << 32) | w.block->device_launches++;
                    q->copies.push_back(rec);
                    err = kCudaSuccess;
                }
            }
            if (q) record_error(*q, w, l, err);
            std::memcpy(fp + ret, &err, sizeof err);
            break;
        }
        case Call::GetLastError:
        case Call::PeekAtLastError: {
            uint32_t err = kCudaSuccess;
            if (q) {
                std::lock_guard lock(q->mutex);
                auto it = q->last_errors.find(thread_key(w, l));
                if (it != q->last_errors.end()) {
                    err = it->second;
                    if (call == Call::GetLastError) q->last_errors.erase(it);
                }
            }
            std::memcpy(fp + ret, &err, sizeof err);
            break;
        }
        case Call::GetErrorString: {
            uint64_t text = 0;
            if (q)
                text =
                    reinterpret_cast<uint64_t>(q->strings.data()) + error_text_offset(read_param<uint32_t>(fp, off[0]));
            std::memcpy(fp + ret, &text, sizeof text);
            break;
        }
        }
    });
    return Flow::Next;
}

} // namespace

std::vector<char> device_runtime_error_strings() {
    std::vector<char> out;
    for (const ErrorText& e : kErrorTexts) {
        out.insert(out.end(), e.text.begin(), e.text.end());
        out.push_back('\0');
    }
    out.insert(out.end(), kUnknownErrorText.begin(), kUnknownErrorText.end());
    out.push_back('\0');
    return out;
}

bool is_device_runtime_function(std::string_view name) { return find_call(name) != nullptr; }

Status decode_device_runtime_call(InstrDecoder& d, std::string_view name, const ast::Operand* rets,
                                  const ast::Operand* args) {
    const CallShape& shape = *find_call(name);
    const size_t nargs = shape.args.size();
    const size_t given = args ? args->elements.size() : 0;
    if (given != nargs || !rets || rets->elements.size() != 1)
        return d.error(fmt::format("{} takes {} arguments and returns a value", name, nargs));
    auto param = [&](const ast::Operand& o, uint32_t min_size) -> Expected<uint32_t> {
        auto v = o.kind == ast::OperandKind::Name ? d.lookup(o.name) : std::nullopt;
        if (!v || v->kind != Symbol::Kind::Var || v->space != Space::FuncParam || v->size < min_size)
            return d.error(fmt::format("the arguments of {} must be .param variables of its signature", name));
        return static_cast<uint32_t>(v->value);
    };
    uint32_t offsets[6] = {};
    size_t i = 0;
    for (uint32_t size : shape.args) {
        offsets[i] = D4R_TRY(param(args->elements[i], size));
        ++i;
    }
    const uint32_t ret = D4R_TRY(param(rets->elements[0], shape.ret));
    d.builder().program().device_launches = true;
    Instr& in = d.emit(&exec_device_runtime);
    in.flags = static_cast<uint16_t>(shape.call);
    for (size_t k = 0; k < 4 && k < nargs; ++k) in.s[k] = offsets[k];
    if (nargs >= 5) in.imm = static_cast<int64_t>((uint64_t(offsets[4]) << 32) | offsets[5]);
    in.aux = ret;
    return ok_status();
}

} // namespace d4r::ptxsim
