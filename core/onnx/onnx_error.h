// The one error type of ONNX import and export: its message is one sentence for the user.
#pragma once

#include <stdexcept>

namespace graphlens {

class OnnxError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace graphlens
