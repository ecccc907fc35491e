// cpu backend: stream attributes (stored and returned) and stream memory operations (wait for or write a
// 32/64-bit value in stream order).
//
// A wait runs on the context's one worker, like every operation: it can be satisfied by the host or by
// another context, not by work queued after it in the same context (that would wait forever; a GPU would
// run it on another stream concurrently). The limitation is logged once.
#include <chrono>
#include <cstring>
#include <thread>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_ops.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

bool known_attribute(int attr) {
    switch (attr) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        return true;
    default:
        return false;
    }
}

CUresult cu_stream_get_attribute(CUstream h, CUstreamAttrID attr, CUstreamAttrValue* value) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!value, CUDA_ERROR_INVALID_VALUE);
    std::memset(value, 0, sizeof *value);
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    D4R_CPU_REFUSE_IF(!known_attribute(attr), CUDA_ERROR_INVALID_VALUE);
    if (attr == CU_LAUNCH_ATTRIBUTE_PRIORITY) {
        value->priority = ref.stream->priority;
        return CUDA_SUCCESS;
    }
    std::lock_guard lock(ref.stream->attributes_mutex);
    auto it = ref.stream->attributes.find(attr);
    if (it != ref.stream->attributes.end())
        *value = it->second;
    else if (attr == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY)
        value->syncPolicy = CU_SYNC_POLICY_AUTO;
    return CUDA_SUCCESS;
}

CUresult cu_stream_set_attribute(CUstream h, CUstreamAttrID attr, const CUstreamAttrValue* value) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!value, CUDA_ERROR_INVALID_VALUE);
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    D4R_CPU_REFUSE_IF(!known_attribute(attr), CUDA_ERROR_INVALID_VALUE);
    if (attr == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY &&
        (value->syncPolicy < CU_SYNC_POLICY_AUTO || value->syncPolicy > CU_SYNC_POLICY_BLOCKING_SYNC))
        return CUDA_ERROR_INVALID_VALUE;
    if (attr == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW) {
        const CUaccessPolicyWindow& w = value->accessPolicyWindow;
        D4R_CPU_REFUSE_IF(w.hitRatio < 0.0f || w.hitRatio > 1.0f, CUDA_ERROR_INVALID_VALUE);
    }
    if (attr == CU_LAUNCH_ATTRIBUTE_PRIORITY) {
        ref.stream->priority = std::clamp(value->priority, kStreamPriorityGreatest, kStreamPriorityLeast);
        return CUDA_SUCCESS;
    }
    // Stored and returned; the cpu backend has no L2 cache or scheduling policy to apply them to.
    std::lock_guard lock(ref.stream->attributes_mutex);
    ref.stream->attributes[attr] = *value;
    return CUDA_SUCCESS;
}

CUresult cu_stream_copy_attributes(CUstream dst, CUstream src) {
    if (CUresult r = check_init()) return r;
    StreamRef a, b;
    if (CUresult r = resolve_stream(dst, a)) return r;
    if (CUresult r = resolve_stream(src, b)) return r;
    if (a.stream == b.stream) return CUDA_SUCCESS;
    std::map<int, CUlaunchAttributeValue> copy;
    {
        std::lock_guard lock(b.stream->attributes_mutex);
        copy = b.stream->attributes;
    }
    a.stream->priority = b.stream->priority;
    std::lock_guard lock(a.stream->attributes_mutex);
    a.stream->attributes = std::move(copy);
    return CUDA_SUCCESS;
}

// ---- Memory operations ---------------------------------------------------------------------------------

template <typename T>
bool condition_holds(const T* p, T value, unsigned mode) {
    T v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    switch (mode) {
    case CU_STREAM_WAIT_VALUE_GEQ:
        return static_cast<std::make_signed_t<T>>(v - value) >= 0; // cyclic, as documented
    case CU_STREAM_WAIT_VALUE_EQ:
        return v == value;
    case CU_STREAM_WAIT_VALUE_AND:
        return (v & value) != 0;
    case CU_STREAM_WAIT_VALUE_NOR:
        return ~(v | value) != 0;
    default:
        return true;
    }
}

template <typename T>
CUresult wait_value(CUstream h, CUdeviceptr addr, T value, unsigned flags) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    unsigned mode = flags & ~unsigned(CU_STREAM_WAIT_VALUE_FLUSH);
    D4R_CPU_REFUSE_IF(mode > CU_STREAM_WAIT_VALUE_NOR || addr % sizeof(T), CUDA_ERROR_INVALID_VALUE);
    if (CUresult r = check_range(addr, sizeof(T))) return r;
    if (CUresult r = ref.ctx->sticky.load()) return r;
    if (log::once("cpu:wait-value"))
        log::info(
            "cpu backend: cuStreamWaitValue runs on the context's worker; only the host or another context can satisfy it");
    ref.ctx->submit(ref.stream, [addr, value, mode](CUresult status) {
        if (status != CUDA_SUCCESS || !find_region(addr, sizeof(T))) return;
        const T* p = reinterpret_cast<const T*>(addr);
        while (!condition_holds(p, value, mode)) std::this_thread::sleep_for(std::chrono::microseconds(50));
    });
    return CUDA_SUCCESS;
}

template <typename T>
CUresult write_value(CUstream h, CUdeviceptr addr, T value, unsigned flags) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    D4R_CPU_REFUSE_IF(flags > CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER || addr % sizeof(T), CUDA_ERROR_INVALID_VALUE);
    if (CUresult r = check_range(addr, sizeof(T))) return r;
    return run_memory_op(ref, true, [addr, value]() -> CUresult {
        if (CUresult r = check_range(addr, sizeof(T))) return r;
        __atomic_store_n(reinterpret_cast<T*>(addr), value, __ATOMIC_RELEASE);
        return CUDA_SUCCESS;
    });
}

CUresult cu_wait32(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned f) { return wait_value<uint32_t>(h, a, v, f); }
CUresult cu_wait64(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned f) { return wait_value<uint64_t>(h, a, v, f); }
CUresult cu_write32(CUstream h, CUdeviceptr a, cuuint32_t v, unsigned f) { return write_value<uint32_t>(h, a, v, f); }
CUresult cu_write64(CUstream h, CUdeviceptr a, cuuint64_t v, unsigned f) { return write_value<uint64_t>(h, a, v, f); }

CUresult cu_batch_mem_op(CUstream h, unsigned int count, CUstreamBatchMemOpParams* ops, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(flags != 0 || (count && !ops) || count > 256, CUDA_ERROR_INVALID_VALUE);
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    // Every operation is checked before any is queued.
    for (unsigned i = 0; i < count; ++i) {
        const CUstreamBatchMemOpParams& op = ops[i];
        switch (op.operation) {
        case CU_STREAM_MEM_OP_WAIT_VALUE_32:
        case CU_STREAM_MEM_OP_WRITE_VALUE_32:
            D4R_CPU_REFUSE_IF(op.waitValue.address % 4 || check_range(op.waitValue.address, 4),
                              CUDA_ERROR_INVALID_VALUE);
            break;
        case CU_STREAM_MEM_OP_WAIT_VALUE_64:
        case CU_STREAM_MEM_OP_WRITE_VALUE_64:
            D4R_CPU_REFUSE_IF(op.waitValue.address % 8 || check_range(op.waitValue.address, 8),
                              CUDA_ERROR_INVALID_VALUE);
            break;
        case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
        case CU_STREAM_MEM_OP_BARRIER:
            break;
        default:
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    for (unsigned i = 0; i < count; ++i) {
        const CUstreamBatchMemOpParams& op = ops[i];
        CUresult r = CUDA_SUCCESS;
        switch (op.operation) {
        case CU_STREAM_MEM_OP_WAIT_VALUE_32:
            r = cu_wait32(h, op.waitValue.address, op.waitValue.value, op.waitValue.flags);
            break;
        case CU_STREAM_MEM_OP_WAIT_VALUE_64:
            r = cu_wait64(h, op.waitValue.address, op.waitValue.value64, op.waitValue.flags);
            break;
        case CU_STREAM_MEM_OP_WRITE_VALUE_32:
            r = cu_write32(h, op.writeValue.address, op.writeValue.value, op.writeValue.flags);
            break;
        case CU_STREAM_MEM_OP_WRITE_VALUE_64:
            r = cu_write64(h, op.writeValue.address, op.writeValue.value64, op.writeValue.flags);
            break;
        default:
            break; // flushes and barriers: the worker already runs everything in order
        }
        if (r != CUDA_SUCCESS) return r;
    }
    return CUDA_SUCCESS;
}

} // namespace

void fill_stream_ext(ApiTable& t) {
    t.cuStreamGetAttribute = cu_stream_get_attribute;
    t.cuStreamSetAttribute = cu_stream_set_attribute;
    t.cuStreamCopyAttributes = cu_stream_copy_attributes;
    t.cuStreamWaitValue32 = cu_wait32;
    t.cuStreamWaitValue32_v2 = cu_wait32;
    t.cuStreamWaitValue64 = cu_wait64;
    t.cuStreamWaitValue64_v2 = cu_wait64;
    t.cuStreamWriteValue32 = cu_write32;
    t.cuStreamWriteValue32_v2 = cu_write32;
    t.cuStreamWriteValue64 = cu_write64;
    t.cuStreamWriteValue64_v2 = cu_write64;
    t.cuStreamBatchMemOp = cu_batch_mem_op;
    t.cuStreamBatchMemOp_v2 = cu_batch_mem_op;
}

} // namespace d4r::runtime::cpu
