// One ONNX backend test case: load model.onnx, run every test_data_set_* and compare outputs.
#pragma once

#include <string>

namespace graphlens::cli {

enum class CaseVerdict { Passed = 0, Failed = 1, Skipped = 2 };

struct CaseResult {
    CaseVerdict verdict = CaseVerdict::Failed;
    std::string message;  ///< why it failed, or which ops/types made it skip
};

/// Runs the case on the CPU backend (or its reference kernels only).
CaseResult runConformanceCase(const std::string& caseDir, bool referenceOnly = false);

} // namespace graphlens::cli
