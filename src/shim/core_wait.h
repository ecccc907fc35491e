// d4r NGX shim: how a data path waits, on the CUDA worker, for the core's work on the null stream.
//
// Promise: `wait` returns once that work is done: by cuCtxSynchronize, or with D4R_SHIM_BLOCKING_SYNC (BLOCKING) on a
// CU_EVENT_BLOCKING_SYNC event recorded after it, through the bridge's d4r_EventWait (the waiting Windows thread
// sleeps in Linux instead of spinning) or, without one, cuEventSynchronize (said once). If the event cannot be made,
// it says so once and synchronises the context from then on. Every call on the worker, `release` included (the
// event is made on first use and destroyed there).
#pragma once

#include "bridge/d4r_helpers.h"
#include "core/status.h"
#include "upscaler/cuda_functions.h"

namespace d4r::shim {

class CoreWait {
public:
    CoreWait(const upscaler::CudaFunctions& cuda, bool blocking, abi::PFN_d4r_EventWait event_wait)
        : m_cuda(&cuda), m_blocking(blocking), m_event_wait(event_wait) {}
    Status wait();
    void release();

private:
    const upscaler::CudaFunctions* m_cuda;
    bool m_blocking;
    abi::PFN_d4r_EventWait m_event_wait;
    abi::CUevent m_event = nullptr;
};

} // namespace d4r::shim
