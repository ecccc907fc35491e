// d4r kprof: summaries of KERNEL_PROFILE logs (observe_layer.h writes the lines).
//
// Promise: every line containing "KERNEL_PROFILE " is read (anything before it, such as a log prefix,
// is ignored); a line missing a field or with a malformed number is an error naming the line. Per
// kernel: launches, median, min, max and total GPU ms and the share of the total. Per frame: a frame
// starts at every launch of the frame-start kernel (by default the first kernel of the log, which
// for DLSS-style workloads is the same kernel at the start of every evaluation); frame times are the
// sums of their launches. Launches whose time could not be measured (gpu_ms < 0) are counted but not
// timed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace d4r::runtime {

struct ProfileLine {
    uint64_t launch = 0;
    bool eligible = false;
    double gpu_ms = 0;
    std::string name;
};

struct KernelSummary {
    std::string name;
    uint64_t launches = 0, untimed = 0, eligible = 0;
    double median_ms = 0, min_ms = 0, max_ms = 0, total_ms = 0, share = 0;
};

struct ProfileSummary {
    std::vector<KernelSummary> kernels; // by total time, largest first
    double total_ms = 0;
    uint64_t launches = 0;
    std::string frame_start;
    std::vector<double> frame_ms; // one per frame
    double frame_median_ms = 0, frame_min_ms = 0, frame_max_ms = 0;
};

Expected<std::vector<ProfileLine>> parse_profile_log(std::string_view text, std::string_view what);
// FRAME_START "" = the first kernel of the log.
ProfileSummary summarise_profile(const std::vector<ProfileLine>& lines, std::string_view frame_start);
std::string format_profile_summary(const ProfileSummary& s);

} // namespace d4r::runtime
