// Running one conformance case in-process (the caller isolates it in a child process).
#include "app/cli/conformance_case.h"

#include "core/onnx/loader.h"
#include "core/onnx/tensor_file.h"
#include "core/runtime/executor.h"
#include "core/runtime/tensor_compare.h"

#include <algorithm>
#include <filesystem>

namespace graphlens::cli {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> numberedFiles(const fs::path& dir, const std::string& prefix) {
    std::vector<fs::path> files;
    for (int k = 0;; ++k) {
        fs::path p = dir / (prefix + std::to_string(k) + ".pb");
        if (!fs::exists(p)) break;
        files.push_back(p);
    }
    return files;
}

std::vector<fs::path> dataSets(const fs::path& caseDir) {
    std::vector<fs::path> sets;
    for (const auto& entry : fs::directory_iterator(caseDir))
        if (entry.is_directory() && entry.path().filename().string().starts_with("test_data_set_"))
            sets.push_back(entry.path());
    std::sort(sets.begin(), sets.end());
    return sets;
}

bool usesNonTensorTypes(const Graph& g) {
    for (ValueId v : g.inputs()) if (!g.value(v).opaqueType.empty()) return true;
    for (ValueId v : g.outputs()) if (!g.value(v).opaqueType.empty()) return true;
    return false;
}

CaseResult runDataSet(GraphExecutor& executor, const Graph& g, const fs::path& set) {
    std::vector<Tensor> inputs;
    for (const fs::path& p : numberedFiles(set, "input_")) inputs.push_back(readTensorFile(p));
    // Cases feed the inputs that have data, in order; initializer-backed inputs may be left out.
    const std::vector<Tensor> outputs = executor.runPositional(inputs);
    const auto expected = numberedFiles(set, "output_");
    if (expected.size() != outputs.size())
        return {CaseVerdict::Failed, "the graph has " + std::to_string(outputs.size()) + " outputs, the case expects " +
                                         std::to_string(expected.size())};
    for (size_t k = 0; k < expected.size(); ++k) {
        const TensorComparison c = compareTensors(outputs[k], readTensorFile(expected[k]));
        if (!c.matches)
            return {CaseVerdict::Failed, "output " + std::to_string(k) + " ('" + g.value(g.outputs()[k]).name +
                                             "'): " + c.mismatch};
    }
    return {CaseVerdict::Passed, {}};
}

} // namespace

CaseResult runConformanceCase(const std::string& caseDir) {
    try {
        const Model model = loadModel(fs::path(caseDir) / "model.onnx");
        const Graph& g = model.graph;
        if (usesNonTensorTypes(g)) return {CaseVerdict::Skipped, "sequence/optional/map values"};
        GraphExecutor executor(g, referenceKernels(), model.opsetVersion(), 1);
        const auto missing = executor.unsupportedOps();
        if (!missing.empty()) {
            std::string ops;
            for (const auto& op : missing) ops += (ops.empty() ? "" : ", ") + op;
            return {CaseVerdict::Skipped, "no kernel for " + ops};
        }
        for (const fs::path& set : dataSets(caseDir)) {
            CaseResult r = runDataSet(executor, g, set);
            if (r.verdict != CaseVerdict::Passed) return r;
        }
        return {CaseVerdict::Passed, {}};
    } catch (const std::exception& e) {
        return {CaseVerdict::Failed, e.what()};
    }
}

} // namespace graphlens::cli
