// Waiting for the core (core_wait.h).
#include "shim/core_wait.h"

#include "core/env_vars.h"
#include "core/log.h"

namespace d4r::shim {

using namespace abi;

Status CoreWait::wait() {
    const upscaler::CudaFunctions& cuda = *m_cuda;
    if (m_blocking && !m_event) {
        CUresult r = cuda.cuEventCreate(&m_event, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING);
        if (r != CUDA_SUCCESS) {
            m_event = nullptr;
            m_blocking = false;
            log::warn("shim: {}: cuEventCreate(CU_EVENT_BLOCKING_SYNC) failed ({}); waiting with cuCtxSynchronize "
                      "instead",
                      env_name(EnvVar::ShimBlockingSync), upscaler::cuda_error(cuda, "cuEventCreate", r).text());
        }
    }
    if (!m_blocking) {
        CUresult r = cuda.cuCtxSynchronize();
        if (r != CUDA_SUCCESS) return upscaler::cuda_error(cuda, "cuCtxSynchronize after the evaluation", r);
        return {};
    }
    CUresult r = cuda.cuEventRecord(m_event, nullptr);
    if (r != CUDA_SUCCESS) return upscaler::cuda_error(cuda, "cuEventRecord after the evaluation", r);
    if (m_event_wait) {
        r = m_event_wait(m_event, D4R_WAIT_FOREVER);
        if (r != CUDA_SUCCESS) return upscaler::cuda_error(cuda, "d4r_EventWait after the evaluation", r);
        return {};
    }
    if (log::once("shim-blocking-sync-fallback"))
        log::warn("shim: {}: the CUDA driver has no d4r_EventWait (only d4r's Wine bridge has it); waiting with "
                  "cuEventSynchronize on a blocking-sync event instead",
                  env_name(EnvVar::ShimBlockingSync));
    r = cuda.cuEventSynchronize(m_event);
    if (r != CUDA_SUCCESS) return upscaler::cuda_error(cuda, "cuEventSynchronize after the evaluation", r);
    return {};
}

void CoreWait::release() {
    if (m_event) m_cuda->cuEventDestroy_v2(m_event);
    m_event = nullptr;
}

} // namespace d4r::shim
