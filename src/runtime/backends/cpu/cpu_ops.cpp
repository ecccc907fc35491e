// cpu backend: synchronous and queued memory operations.
#include "runtime/backends/cpu/cpu_ops.h"

namespace d4r::runtime::cpu {

CUresult run_memory_op(StreamRef& ref, bool async, std::function<CUresult()> work) {
    Context* ctx = ref.ctx.get();
    if (CUresult r = ctx->sticky.load()) return r;
    if (!async) {
        ctx->drain();
        if (CUresult r = ctx->sticky.load()) return r;
        return work();
    }
    ctx->submit(ref.stream, [ctx, work = std::move(work)](CUresult status) {
        if (status != CUDA_SUCCESS) return;
        // A range that was valid when queued but is not any more (freed meanwhile) is a bad access.
        if (CUresult r = work()) ctx->fail(r == CUDA_ERROR_INVALID_VALUE ? CUDA_ERROR_ILLEGAL_ADDRESS : r);
    });
    return CUDA_SUCCESS;
}

CUresult current_stream(StreamRef& ref) {
    if (CUresult r = check_init()) return r;
    if (CUresult r = current_context(ref.ctx)) return r;
    ref.stream = &ref.ctx->null_stream;
    return CUDA_SUCCESS;
}

} // namespace d4r::runtime::cpu
