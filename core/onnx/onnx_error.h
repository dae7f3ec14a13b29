// The one error type of ONNX import and export: its message is one sentence for the user.
#pragma once

#include <stdexcept>
#include <string>

namespace graphlens {

class OnnxError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The first line of an exception's message (libonnx appends multi-line context).
inline std::string firstLine(const std::exception& e) {
    std::string message = e.what();
    if (auto cut = message.find('\n'); cut != std::string::npos) message.resize(cut);
    return message;
}

} // namespace graphlens
