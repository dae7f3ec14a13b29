// Summary statistics of repeated measurements: what a benchmark or profile prints per figure.
#pragma once

#include <cstddef>
#include <vector>

namespace graphlens {

struct SampleStats {
    double min = 0;
    double median = 0;
    double max = 0;
    double mean = 0;
    size_t count = 0;
};

/// Min, median (mean of the middle two for an even count), max and mean; all zero when empty.
SampleStats summarizeSamples(std::vector<double> samples);

} // namespace graphlens
