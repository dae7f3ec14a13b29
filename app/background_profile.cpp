// The profile worker thread and the CPU profile it runs.
#include "app/background_profile.h"

#include "app/cli/model_inputs.h"

#include <QCoreApplication>
#include <QThreadPool>

namespace graphlens {

QThreadPool* profilePool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool(qApp);
        p->setMaxThreadCount(1);
        return p;
    }();
    return pool;
}

CpuProfile profileOnCpu(const Model& model, const ProfileOptions& options) {
    const std::map<std::string, Tensor> feeds = cli::makeFeeds(model.graph, {}, {}, 0);
    CompileOptions compile;
    for (const auto& [name, tensor] : feeds) compile.inputShapes[name] = tensor.dims();
    const std::unique_ptr<Plan> plan = makeCpuBackend()->compile(model, compile);
    return {compile.inputShapes, profilePlan(*plan, graphWithShapes(model, compile.inputShapes), feeds, options)};
}

} // namespace graphlens
