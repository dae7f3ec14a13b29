// The profile worker thread, the Vulkan device listing and the profile they run.
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

const DeviceListing& vulkanDevicesOnce() {
    static const DeviceListing listing = listVulkanDevices();
    return listing;
}

BackendProfile profileOn(const Model& model, const BackendChoice& choice, const ProfileOptions& options) {
    const std::unique_ptr<Backend> backend = makeBackend(choice.name, choice.device);
    const std::map<std::string, Tensor> feeds = cli::makeFeeds(model.graph, {}, {}, 0);
    CompileOptions compile;
    for (const auto& [name, tensor] : feeds) compile.inputShapes[name] = tensor.dims();
    const std::unique_ptr<Plan> plan = backend->compile(model, compile);
    return {compile.inputShapes, backend->name(),
            profilePlan(*plan, graphWithShapes(model, compile.inputShapes), feeds, options)};
}

} // namespace graphlens
