// CSV export of per-node statistics.
#include "profiler/profile_csv.h"

#include <cstdio>

namespace graphlens {
namespace {

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
}

} // namespace

std::string csvField(const std::string& field) {
    if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
    std::string quoted = "\"";
    for (char c : field) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string nodeProfileCsv(const std::vector<NodeProfile>& nodes) {
    std::string csv = "name,op,kernel,output_shape,median_ms,min_ms,max_ms,share,flops,gflops,intensity,"
                      "bytes_read,bytes_written,weight_bytes,output_bytes\r\n";
    for (const NodeProfile& p : nodes) {
        const std::string fields[] = {
            csvField(p.name), csvField(p.op), csvField(p.kernel), csvField(p.outputShape),
            number(p.ms.median), number(p.ms.min), number(p.ms.max), number(p.share),
            p.flops ? std::to_string(*p.flops) : std::string(), number(p.gflops()),
            number(p.arithmeticIntensity()), std::to_string(p.bytesRead), std::to_string(p.bytesWritten),
            std::to_string(p.weightBytes), std::to_string(p.outputBytes)};
        for (size_t i = 0; i < std::size(fields); ++i) csv += (i ? "," : "") + fields[i];
        csv += "\r\n";
    }
    return csv;
}

} // namespace graphlens
