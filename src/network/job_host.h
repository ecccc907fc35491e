// d4r refine network: a job file (job_file.h) run on the host with the host kernels (host_kernels.h), at the
// job's own addresses.
//
// Promise: run_job_on_host() maps every region at its address (MAP_FIXED_NOREPLACE: an address already in use
// is an error, never a silent move), runs the launches in order with run_kernel() and returns each launch's
// [out, out + out_bytes) as a trace entry; the host kernels compute the PTX path's bytes (host_kernels.h), so
// this is the reference trace of the job. The mappings are removed on every path out.
#pragma once

#include "core/status.h"
#include "network/job_file.h"
#include "network/layer_trace.h"

namespace d4r::network {

Expected<LayerTrace> run_job_on_host(const Job& job, unsigned threads = 0);

} // namespace d4r::network
