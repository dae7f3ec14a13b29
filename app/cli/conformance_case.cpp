// Running one conformance case in-process (the caller isolates it in a child process).
#include "app/cli/conformance_case.h"

#include "core/import/open_model.h"
#include "core/onnx/tensor_file.h"
#include "core/runtime/backend.h"
#include "core/runtime/backend_registry.h"
#include "core/runtime/executor.h"
#include "core/runtime/tensor_compare.h"

#include <algorithm>
#include <filesystem>
#include <map>

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

/// ONNX 1.12 writes bfloat16 test data as uint16: read it as the type the model declares.
Tensor asDeclared(Tensor t, DType declared) {
    if (t.dtype() == DType::UInt16 && declared == DType::BFloat16)
        return Tensor::view(declared, t.dims(), t.data(), t.byteSize(), t.sharedStorage());
    return t;
}

CaseResult runDataSet(const Model& model, const fs::path& set, const CaseOptions& caseOptions) {
    const Graph& g = model.graph;
    // Cases feed the first inputs in graph order; initializer-backed inputs may be left out.
    std::map<std::string, Tensor> feeds;
    CompileOptions options;
    options.threads = 1;
    options.referenceOnly = caseOptions.referenceOnly;
    const auto files = numberedFiles(set, "input_");
    for (size_t k = 0; k < files.size() && k < g.inputs().size(); ++k) {
        const Value& input = g.value(g.inputs()[k]);
        feeds[input.name] = asDeclared(readValueFile(files[k], input.opaqueType), input.dtype);
        if (input.opaqueType.empty()) options.inputShapes[input.name] = feeds[input.name].dims();
    }
    const std::vector<Tensor> outputs =
        makeBackend(caseOptions.backend, caseOptions.device)->compile(model, options)->run(feeds);
    const auto expected = numberedFiles(set, "output_");
    if (expected.size() != outputs.size())
        return {CaseVerdict::Failed, "the graph has " + std::to_string(outputs.size()) + " outputs, the case expects " +
                                         std::to_string(expected.size())};
    for (size_t k = 0; k < expected.size(); ++k) {
        const Tensor want = asDeclared(readValueFile(expected[k], g.value(g.outputs()[k]).opaqueType), outputs[k].dtype());
        const TensorComparison c = compareTensors(outputs[k], want, caseOptions.rtol, caseOptions.atol);
        if (!c.matches)
            return {CaseVerdict::Failed, "output " + std::to_string(k) + " ('" + g.value(g.outputs()[k]).name +
                                             "'): " + c.mismatch};
    }
    return {CaseVerdict::Passed, {}};
}

/// model.onnx, or a TensorFlow model (model.json, model.pb) in cases written by tests/fixtures/tf.
fs::path caseModelFile(const std::string& caseDir) {
    for (const char* name : {"model.onnx", "model.json", "model.pb"})
        if (fs::exists(fs::path(caseDir) / name)) return fs::path(caseDir) / name;
    return fs::path(caseDir) / "model.onnx";
}

} // namespace

CaseResult runConformanceCase(const std::string& caseDir, const CaseOptions& options) {
    try {
        const Model model = openModel(caseModelFile(caseDir));
        const Graph& g = model.graph;
        // Sequences and optionals run on the CPU backend's reference kernels.
        if (usesNonTensorTypes(g) && options.backend == "vulkan") return {CaseVerdict::Skipped, "sequence/optional/map values"};
        GraphExecutor executor(g, referenceKernels(), model.opsetVersion(), 1);
        const auto missing = executor.unsupportedOps();
        if (!missing.empty()) return {CaseVerdict::Skipped, "no kernel for " + joinOpNames(missing)};
        if (options.backend == "vulkan")
            if (const auto unshaded = opsWithoutVulkanShader(g); !unshaded.empty())
                return {CaseVerdict::Skipped, "no shader for " + joinOpNames(unshaded)};
        for (const fs::path& set : dataSets(caseDir)) {
            CaseResult r = runDataSet(model, set, options);
            if (r.verdict != CaseVerdict::Passed) return r;
        }
        return {CaseVerdict::Passed, {}};
    } catch (const std::exception& e) {
        return {CaseVerdict::Failed, e.what()};
    }
}

} // namespace graphlens::cli
