// Every optimized kernel against its reference kernel, as ncnn's per-layer tests do: the test walks
// the CPU kernel registry (cpuKernels()) and the Vulkan op registry (vk::vulkanOps()), and for each
// registered op runs its cases (kCases() in kernel_diff_cases.h, where the table's format is
// described) through that kernel and through the reference kernel (referenceKernels()) on the same
// seeded inputs, and compares the outputs. CPU: cpuKernels().prepare() must take the case, and the
// prepared kernel runs on it; Vulkan: a one-node model compiled by the Vulkan backend must run the
// node on a shader (products on both the shared-memory and the texel tile kernels). An op
// registered without a case fails the test, so a kernel without a differential test cannot exist;
// so does a case whose op no registry has (a stale row). Without a Vulkan device the Vulkan half
// is skipped, saying why.
//
// Registry keys: every registry keys on OpKey; its toString() ("Op", "com.microsoft:Op") is the
// table's key, and servesKey() is the one place that maps a registry entry to it.
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/backend_registry.h"
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/kernel.h"
#include "core/runtime/tensor_compare.h"
#include "core/runtime/vulkan/ops.h"
#include "kernel_diff_cases.h"

#include <QElapsedTimer>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// Whether registry entry `entry` serves table key `key`: registries key on OpKey, whose
/// toString() ("Op", "com.microsoft:Op") is the table's key.
bool servesKey(std::string_view entry, std::string_view key) { return entry == key; }

/// A registry's entries as table keys.
std::vector<std::string> keysOf(const std::vector<OpKey>& ops) {
    std::vector<std::string> keys;
    for (const OpKey& op : ops) keys.push_back(op.toString());
    return keys;
}


// ---- running a case -----------------------------------------------------------------------------

uint64_t seedOf(const std::string& key, size_t caseIndex, size_t input) {
    return std::hash<std::string>{}(key) ^ (caseIndex * 1000003u + input * 7919u);
}

Tensor generate(const In& in, uint64_t seed) {
    if (in.fixed) return *in.fixed;
    std::mt19937_64 rng(seed);
    Tensor t = Tensor::allocate(in.type, in.dims);
    const auto n = size_t(t.numel());
    auto integer = [&] { return std::uniform_int_distribution<int64_t>(int64_t(in.lo), int64_t(in.hi))(rng); };
    switch (in.type) {
    case DType::Float: {
        std::uniform_real_distribution<float> u(float(in.lo), float(in.hi));
        for (float& v : t.mutableSpan<float>()) v = u(rng);
        break;
    }
    case DType::Double: {
        std::uniform_real_distribution<double> u(in.lo, in.hi);
        for (double& v : t.mutableSpan<double>()) v = u(rng);
        break;
    }
    case DType::Int64: for (size_t i = 0; i < n; ++i) t.mutableSpan<int64_t>()[i] = integer(); break;
    case DType::Int32: for (size_t i = 0; i < n; ++i) t.mutableSpan<int32_t>()[i] = int32_t(integer()); break;
    case DType::Int8: for (size_t i = 0; i < n; ++i) t.mutableSpan<int8_t>()[i] = int8_t(integer()); break;
    case DType::UInt8: case DType::Bool: for (size_t i = 0; i < n; ++i) t.mutableSpan<uint8_t>()[i] = uint8_t(integer()); break;
    default: throw std::runtime_error("no generator for this input type");
    }
    return t;
}

/// One case made concrete: its inputs' values and a one-node model over them.
struct Instance {
    std::vector<Tensor> inputs;  ///< empty Tensor for omitted inputs
    Model model;
    std::map<std::string, Tensor> feeds;
    NodeId node = kNoId;
};

Instance instantiate(const Case& c, size_t index) {
    Instance x;
    GraphBuilder b;
    std::vector<ValueId> ids;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        const In& in = c.inputs[i];
        if (in.omitted) {
            x.inputs.emplace_back();
            ids.push_back(kNoId);
            continue;
        }
        x.inputs.push_back(generate(in, seedOf(c.key, index, i)));
        const std::string name = "in" + std::to_string(i);
        if (in.constant) {
            ids.push_back(b.initializer(name, x.inputs.back()));
        } else {
            ids.push_back(b.input(name, in.type, Shape::ofSizes(in.dims)));
            x.feeds[name] = x.inputs.back();
        }
    }
    for (ValueId out : b.ops(c.op(), ids, c.outputCount, c.attributes)) b.output(out);
    x.node = b.lastNode();
    b.graph().node(x.node).domain = c.domain();
    x.model = b.model(c.opsetVersion);
    if (!c.domain().empty()) x.model.opsets.push_back({c.domain(), 1});
    return x;
}

std::vector<const Tensor*> pointers(const std::vector<Tensor>& inputs) {
    std::vector<const Tensor*> out;
    for (const Tensor& t : inputs) out.push_back(t.empty() ? nullptr : &t);
    return out;
}

/// The reference kernel's outputs for the instance.
std::vector<Tensor> reference(const Case& c, const Instance& x) {
    const KernelFn kernel = referenceKernels().find(c.domain(), c.op());
    if (!kernel) throw std::runtime_error("no reference kernel for " + c.key);
    KernelContext ctx(x.model.graph.node(x.node), c.opsetVersion, pointers(x.inputs));
    kernel(ctx);
    return ctx.outputs();
}

/// "" when `got` matches `want` within the case's tolerance, else what differs.
std::string mismatch(const Case& c, const std::vector<Tensor>& got, const std::vector<Tensor>& want, Target on) {
    if (got.size() != want.size()) return std::to_string(got.size()) + " outputs, expected " + std::to_string(want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        const std::string which = "output " + std::to_string(i) + ": ";
        if (got[i].dtype() != want[i].dtype()) return which + "type differs";
        if (got[i].dims() != want[i].dims())
            return which + "shape " + Shape::ofSizes(got[i].dims()).toString() + ", expected " + Shape::ofSizes(want[i].dims()).toString();
        const bool real = want[i].dtype() == DType::Float || want[i].dtype() == DType::Double;
        if (!real) {
            // Integer outputs are exact unless the case allows steps (requantized int8 results).
            const double steps = c.tolerance ? c.tolerance->atol : 0;
            if (steps > 0 && want[i].dtype() != DType::String) {
                const std::vector<double> g = got[i].toDoubles(), w = want[i].toDoubles();
                for (size_t k = 0; k < g.size(); ++k)
                    if (std::abs(g[k] - w[k]) > steps)
                        return which + "element " + std::to_string(k) + " is " + std::to_string(g[k]) + ", expected " +
                               std::to_string(w[k]) + " within " + std::to_string(steps);
                continue;
            }
            if (!got[i].contentEquals(want[i])) return which + "values differ";
            continue;
        }
        const Tol tol = on == Target::Vulkan && c.vulkanTolerance ? *c.vulkanTolerance : c.tolerance.value_or(kFloat);
        const TensorComparison cmp = compareTensors(got[i], want[i], tol.rtol, tol.atol);
        if (!cmp.matches) return which + cmp.mismatch;
    }
    return {};
}

/// An attribute's value as a failure message shows it: numbers, strings and lists of them.
std::string valueText(const Attribute& a) {
    return std::visit([](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) return v;
        else if constexpr (std::is_arithmetic_v<T>) return QString::number(v).toStdString();
        else if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<float>>) {
            std::string s;
            for (auto x : v) s += (s.empty() ? "" : ",") + QString::number(x).toStdString();
            return "[" + s + "]";
        } else return "...";
    }, a.storage());
}

/// "Op case N ([2,3] const, none; axis=1)": the case's inputs and attributes, for failure messages.
std::string describe(const Case& c, size_t index) {
    std::string s = c.key + " case " + std::to_string(index) + " (";
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        if (i) s += ", ";
        s += c.inputs[i].omitted ? "none" : Shape::ofSizes(c.inputs[i].dims).toString();
        if (c.inputs[i].constant) s += " const";
    }
    for (const auto& [name, value] : c.attributes) s += (&name == &c.attributes.begin()->first ? "; " : " ") + name + "=" + valueText(value);
    return s + ")";
}

/// Runs case `c` through the CPU registry's kernel; "" when it is taken and matches the reference.
std::string runOnCpu(const Case& c, size_t index, std::set<std::string>& kernels) {
    const Instance x = instantiate(c, index);
    const std::vector<Tensor> want = reference(c, x);
    const Node& node = x.model.graph.node(x.node);
    NodeDescriptor info{x.model.graph, node, c.opsetVersion, 2, {}, {}, {}, {}, {}};
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        info.inputDims.push_back(x.inputs[i].empty() ? Dims{} : x.inputs[i].dims());
        info.inputTypes.push_back(x.inputs[i].empty() ? DType::Undefined : x.inputs[i].dtype());
        info.constants.push_back(c.inputs[i].constant ? &x.inputs[i] : nullptr);
    }
    for (const Tensor& t : want) {
        info.outputDims.push_back(t.dims());
        info.outputTypes.push_back(t.dtype());
    }
    const std::unique_ptr<PreparedKernel> kernel = cpuKernels().prepare(info);
    if (!kernel) return "the cpu registry declined " + describe(c, index) + ": choose a case its kernel takes";
    if (!c.cpuKernel.empty() && kernel->name() != c.cpuKernel)
        return describe(c, index) + " ran on " + kernel->name() + ", not " + c.cpuKernel;
    kernels.insert(kernel->name());
    // Outputs arrive in arena slots that hold whatever was there (all-ones bits: NaN for floats), and
    // a plan runs many times into the same slots: two runs, both must match.
    std::vector<Tensor> got;
    for (const Tensor& t : want) {
        got.push_back(Tensor::allocate(t.dtype(), t.dims()));
        if (t.dtype() != DType::String) std::memset(got.back().mutableData(), 0xff, got.back().byteSize());
    }
    for (const char* run : {"first run", "second run"}) {
        kernel->run(pointers(x.inputs), got);
        if (std::string bad = mismatch(c, got, want, Target::Cpu); !bad.empty())
            return kernel->name() + " on " + describe(c, index) + ", " + run + ": " + bad;
    }
    return {};
}

/// Runs case `c` on the Vulkan backend; "" when the node runs on a shader and matches the reference.
std::string runOnVulkanOnce(graphlens::Backend& vulkan, const Case& c, size_t index, std::set<std::string>& kernels) {
    const Instance x = instantiate(c, index);
    const std::vector<Tensor> want = reference(c, x);
    Model model = x.model;  // outputs declared with their types and shapes, as exporters write them
    for (size_t i = 0; i < want.size(); ++i) {
        Value& out = model.graph.value(model.graph.node(x.node).output(i));
        out.dtype = want[i].dtype();
        out.shape = Shape::ofSizes(want[i].dims());
    }
    const std::unique_ptr<Plan> plan = vulkan.compile(model, {});
    std::string kernel;
    for (const PlannedNode& n : plan->nodes())
        if (n.node == x.node) kernel = n.kernel;
    if (kernel.rfind("vulkan:", 0) != 0)
        return describe(c, index) + " did not run on a shader: " + (kernel.empty() ? "node folded away" : kernel);
    kernels.insert(kernel);
    for (const char* run : {"first run", "second run"}) {  // the second reuses the recorded command buffer
        if (std::string bad = mismatch(c, plan->run(x.feeds), want, Target::Vulkan); !bad.empty())
            return kernel + " on " + describe(c, index) + ", " + run + ": " + bad;
    }
    return {};
}

/// runOnVulkanOnce() on the device's product kernels, and for products on both kinds.
std::string runOnVulkan(graphlens::Backend& vulkan, const Case& c, size_t index, std::set<std::string>& kernels) {
    if (!c.bothProductKernels) return runOnVulkanOnce(vulkan, c, index, kernels);
    for (const char* kind : {"tiles", "texels"}) {
        qputenv("GRAPHLENS_VULKAN_PRODUCTS", kind);
        std::string bad;
        try {
            bad = runOnVulkanOnce(vulkan, c, index, kernels);
        } catch (...) {
            qunsetenv("GRAPHLENS_VULKAN_PRODUCTS");
            throw;
        }
        qunsetenv("GRAPHLENS_VULKAN_PRODUCTS");
        if (!bad.empty()) return bad + " (" + kind + ")";
    }
    return {};
}

/// Walks `registered` (one registry's entries): every entry needs a case for `backend`, and every
/// case of it must pass `run`. Returns the failures; counts the cases run.
std::vector<std::string> walk(const std::vector<std::string>& registered, Target backend, const char* what,
                              const std::function<std::string(const Case&, size_t)>& run, int& casesRun) {
    std::vector<std::string> failures;
    const auto& cases = kCases();
    for (const std::string& entry : registered) {
        bool covered = false;
        for (size_t i = 0; i < cases.size(); ++i) {
            if (!cases[i].runsOn(backend) || !servesKey(entry, cases[i].key)) continue;
            covered = true;
            ++casesRun;
            try {
                if (std::string bad = run(cases[i], i); !bad.empty()) failures.push_back(bad);
            } catch (const std::exception& e) {
                failures.push_back(describe(cases[i], i) + " threw: " + e.what());
            }
        }
        if (!covered)
            failures.push_back(std::string(what) + " kernel registered for " + entry + " has no differential case: add one to kCases");
    }
    return failures;
}

std::string joined(const std::set<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : " ") + n;
    return s;
}

/// Prints every failure (QVERIFY2 would cut a long list) and returns the summary line.
std::string listed(const std::vector<std::string>& failures) {
    for (const std::string& f : failures) qWarning("%s", f.c_str());
    return std::to_string(failures.size()) + " failures, listed above";
}

} // namespace

class TestKernelRegistryDiff : public QObject {
    Q_OBJECT

private slots:
    void everyCpuKernelMatchesTheReference() {
        QElapsedTimer timer;
        timer.start();
        const std::vector<std::string> ops = keysOf(cpuKernels().ops());
        int casesRun = 0;
        std::set<std::string> kernels;
        const auto run = [&](const Case& c, size_t i) { return runOnCpu(c, i, kernels); };
        const auto failures = walk(ops, Target::Cpu, "cpu", run, casesRun);
        qInfo("cpu: %zu registered ops, %d cases, %lld ms; kernels run: %s", ops.size(), casesRun,
              qint64(timer.elapsed()), joined(kernels).c_str());
        QVERIFY2(failures.empty(), listed(failures).c_str());
    }

    void everyCaseNamesARegisteredOp() {
        std::vector<std::string> registered = keysOf(cpuKernels().ops());
#ifdef GRAPHLENS_HAVE_VULKAN
        for (const std::string& op : keysOf(vk::vulkanOps().ops())) registered.push_back(op);
#else
        QSKIP("this build has no Vulkan backend: cases of Vulkan-only ops cannot be told from stale ones");
#endif
        std::vector<std::string> stale;
        for (const Case& c : kCases()) {
            const bool known = std::any_of(registered.begin(), registered.end(),
                                           [&](const std::string& entry) { return servesKey(entry, c.key); });
            if (!known) stale.push_back(c.key + " has cases but no registry has a kernel for it");
        }
        QVERIFY2(stale.empty(), listed(stale).c_str());
    }

    void everyVulkanShaderMatchesTheReference() {
#ifndef GRAPHLENS_HAVE_VULKAN
        QSKIP("this build has no Vulkan backend (GRAPHLENS_VULKAN was OFF)");
#else
        std::unique_ptr<graphlens::Backend> vulkan;
        try {
            vulkan = makeBackend("vulkan");
        } catch (const std::exception& e) {
            QSKIP(e.what());  // "no Vulkan device: ..."
        }
        QElapsedTimer timer;
        timer.start();
        const std::vector<std::string> ops = keysOf(vk::vulkanOps().ops());
        int casesRun = 0;
        std::set<std::string> kernels;
        const auto run = [&](const Case& c, size_t i) { return runOnVulkan(*vulkan, c, i, kernels); };
        const auto failures = walk(ops, Target::Vulkan, "vulkan", run, casesRun);
        qInfo("vulkan: %zu registered ops, %d cases, %lld ms; kernels run: %s", ops.size(), casesRun,
              qint64(timer.elapsed()), joined(kernels).c_str());
        QVERIFY2(failures.empty(), listed(failures).c_str());
#endif
    }
};

QTEST_GUILESS_MAIN(TestKernelRegistryDiff)
#include "tst_kernel_registry_diff.moc"
