// Errors the runtime throws, each with a kind the caller switches on (the command line's exit
// status and wording, the window's dialog, a conformance verdict) instead of searching the
// message. The message stays one sentence naming the input, node or device.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace graphlens {

enum class ErrorKind {
    Failed,          ///< a kernel or a device call failed while running
    BadFeeds,        ///< inputs missing, unknown, or of the wrong type or shape
    InvalidModel,    ///< attributes out of range, a malformed graph, shapes that cannot broadcast
    UnsupportedOp,   ///< an op no kernel of the backend runs
    DynamicShapes,   ///< the backend needs static shapes the preparation could not make concrete
    ResourceLimit,   ///< the memory allowed, or a size that overflows 64 bits
    NoDevice,        ///< no Vulkan driver or device, or a build without the Vulkan backend
    BadDeviceIndex,  ///< a device index the machine does not have
    UnknownBackend,  ///< a backend name that is neither cpu nor vulkan
};

/// "unsupported-op", "no-device", ... as `--json` output and tests spell the kinds.
const char* errorKindName(ErrorKind kind);

/// Bad feeds, unsupported ops, a missing device or a kernel failure; one sentence naming the
/// input, node or device, and its kind.
class ExecutionError : public std::runtime_error {
public:
    explicit ExecutionError(const std::string& message, ErrorKind kind = ErrorKind::Failed)
        : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const { return kind_; }

private:
    ErrorKind kind_;
};

/// One sentence naming the node, its op and the attribute or input:
/// "node 'conv1' (Conv): strides[1] is 0; strides must be positive".
class ValidationError : public ExecutionError {
public:
    explicit ValidationError(const std::string& message) : ExecutionError(message, ErrorKind::InvalidModel) {}
};

/// A plan or inputs larger than the memory allowed, or a size that overflows 64 bits.
class ResourceError : public ExecutionError {
public:
    explicit ResourceError(const std::string& message) : ExecutionError(message, ErrorKind::ResourceLimit) {}
};

/// The kind of any exception: an ExecutionError's own, InvalidModel for graph and load errors,
/// ResourceLimit for std::bad_alloc, Failed otherwise.
ErrorKind errorKindOf(const std::exception& error);

} // namespace graphlens
