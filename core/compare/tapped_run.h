// Running one side of a comparison with chosen values reported as they are computed. On the CPU a
// ValueObserver sees each value when its node wrote it (nothing else is kept and the plan is the
// one a normal run uses, but for plain layouts); the Vulkan plan keeps its values on the device,
// so there the chosen values become extra graph outputs read back at the end of the run: the
// comparison asks for few at a time.
#pragma once

#include "core/runtime/backend.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace graphlens {

class TappedRun {
public:
    using Sink = std::function<void(const std::string& name, const Tensor& tensor)>;

    /// `backend`: "cpu" or "vulkan" (on `device`, -1: the preferred one). Throws ExecutionError.
    TappedRun(const Model& model, std::string backend, int device, std::map<std::string, Tensor> feeds, int threads);
    ~TappedRun();

    /// True when values reach the sink while the plan runs, one at a time (CPU); false when they
    /// come after the run, all of a round together (Vulkan read-back).
    bool streams() const { return backend_ == "cpu"; }

    /// Runs once; every value named in `wanted` goes to `sink` (in execution order, each once);
    /// returns the graph outputs. `readBackBytes` receives the bytes of the extra outputs a
    /// Vulkan run read back (0 on the CPU).
    std::vector<Tensor> run(const std::set<std::string>& wanted, const Sink& sink, uint64_t* readBackBytes = nullptr);

    /// Bytes of every value the model computes for these feeds (static shapes), by name.
    const std::map<std::string, uint64_t>& valueBytes() const { return valueBytes_; }

private:
    const Model& model_;
    std::string backend_;
    int device_;
    std::map<std::string, Tensor> feeds_;
    CompileOptions compile_;
    std::unique_ptr<Backend> vulkan_;
    std::unique_ptr<Plan> cpuPlan_;  ///< compiled once: the wanted values only change the observer
    std::map<std::string, uint64_t> valueBytes_;
};

} // namespace graphlens
