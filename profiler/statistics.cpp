// Sample statistics.
#include "profiler/statistics.h"

#include <algorithm>
#include <numeric>

namespace graphlens {

SampleStats summarizeSamples(std::vector<double> samples) {
    SampleStats s;
    s.count = samples.size();
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    const size_t n = samples.size();
    s.min = samples.front();
    s.max = samples.back();
    s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(n);
    return s;
}

} // namespace graphlens
