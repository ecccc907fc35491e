// d4r core: summary statistics of measurements (timings in the profile summary, the demo, benchmarks).
//
// Promise: median() of an empty list is 0; of an even count, the mean of the two middle values.
#pragma once

#include <algorithm>
#include <vector>

namespace d4r {

inline double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

} // namespace d4r
