#include "core/runtime/errors.h"

#include "core/graph/graph.h"
#include "core/onnx/onnx_error.h"

#include <new>

namespace graphlens {

const char* errorKindName(ErrorKind kind) {
    switch (kind) {
    case ErrorKind::Failed: return "failed";
    case ErrorKind::BadFeeds: return "bad-feeds";
    case ErrorKind::InvalidModel: return "invalid-model";
    case ErrorKind::UnsupportedOp: return "unsupported-op";
    case ErrorKind::DynamicShapes: return "dynamic-shapes";
    case ErrorKind::ResourceLimit: return "resource-limit";
    case ErrorKind::NoDevice: return "no-device";
    case ErrorKind::BadDeviceIndex: return "bad-device-index";
    case ErrorKind::UnknownBackend: return "unknown-backend";
    }
    return "failed";
}

ErrorKind errorKindOf(const std::exception& error) {
    if (const auto* e = dynamic_cast<const ExecutionError*>(&error)) return e->kind();
    if (dynamic_cast<const GraphError*>(&error) || dynamic_cast<const OnnxError*>(&error)) return ErrorKind::InvalidModel;
    if (dynamic_cast<const std::bad_alloc*>(&error)) return ErrorKind::ResourceLimit;
    return ErrorKind::Failed;
}

} // namespace graphlens
