#include "core/runtime/resource_limits.h"

#include <unistd.h>

#include <algorithm>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace graphlens {

uint64_t availableMemoryBytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (meminfo >> key >> kb >> unit)
        if (key == "MemAvailable:") return kb * 1024;
    return uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
}

std::string formatBytes(uint64_t bytes) {
    if (bytes < 1000) return std::to_string(bytes) + " bytes";
    static const char* units[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
    double value = double(bytes) / 1000.0;
    int unit = 0;
    while (value >= 1000.0 && unit < 5) {
        value /= 1000.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

std::optional<uint64_t> checkedTensorBytes(DType type, const std::vector<int64_t>& dims) {
    uint64_t count = 1;
    bool zero = false;
    for (int64_t d : dims) {
        if (d < 0) return std::nullopt;
        zero = zero || d == 0;
    }
    if (zero) return 0;
    for (int64_t d : dims) {
        if (count > UINT64_MAX / uint64_t(d)) return std::nullopt;
        count *= uint64_t(d);
    }
    if (count > uint64_t(INT64_MAX)) return std::nullopt;  // element counts are int64_t elsewhere
    const int bits = dtypeBits(type);
    if (bits == 4) return (count + 1) / 2;
    const uint64_t size = uint64_t(std::max(bits, 8) / 8);
    if (count > UINT64_MAX / size) return std::nullopt;
    return count * size;
}

MemoryBudget MemoryBudget::of(uint64_t maxMemory) {
    if (maxMemory > 0) return {maxMemory, true};
    return {availableMemoryBytes(), false};
}

std::string MemoryBudget::describe() const {
    return fromOption ? "the memory limit is " + formatBytes(bytes) : formatBytes(bytes) + " are available";
}

void checkPlanMemory(uint64_t arenaBytes, uint64_t weightBytes, const MemoryBudget& budget, bool atLeast) {
    const uint64_t total = saturatingAdd(arenaBytes, weightBytes);
    if (total <= budget.bytes) return;
    const std::string more = atLeast ? "at least " : "";
    throw ResourceError("the plan needs " + more + formatBytes(total) + " (arena " + more + formatBytes(arenaBytes) +
                        " + weights " + formatBytes(weightBytes) + ") but " + budget.describe());
}

namespace {
thread_local std::optional<uint64_t> runLimit;
} // namespace

RunMemoryLimit::RunMemoryLimit(uint64_t bytes) : outer_(runLimit) { runLimit = bytes; }

RunMemoryLimit::~RunMemoryLimit() { runLimit = outer_; }

std::optional<uint64_t> RunMemoryLimit::current() { return runLimit; }

void throwOverRunMemoryLimit(const std::string& what, uint64_t bytes, uint64_t limit) {
    throw ResourceError(what + " needs " + formatBytes(bytes) + " but " + MemoryBudget{limit, true}.describe());
}

} // namespace graphlens
