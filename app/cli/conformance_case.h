// One ONNX backend test case: load model.onnx, run every test_data_set_* and compare outputs.
#pragma once

#include <string>

namespace graphlens::cli {

enum class CaseVerdict { Passed = 0, Failed = 1, Skipped = 2 };

struct CaseResult {
    CaseVerdict verdict = CaseVerdict::Failed;
    std::string message;  ///< why it failed, or which ops/types made it skip
};

struct CaseOptions {
    std::string backend = "cpu"; ///< "cpu" or "vulkan"
    int device = -1;             ///< the Vulkan device (-1: the preferred one)
    bool referenceOnly = false;  ///< the reference kernels only
    double rtol = 1e-3;          ///< ONNX's backend-test tolerance: |got - want| <= atol + rtol |want|
    double atol = 1e-7;
};

/// Runs the case on the chosen backend. On vulkan, a case with an op that has no shader is
/// skipped ("no shader for Op, ...").
CaseResult runConformanceCase(const std::string& caseDir, const CaseOptions& options = {});

} // namespace graphlens::cli
