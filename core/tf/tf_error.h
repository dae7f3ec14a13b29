// The error of TensorFlow import (TF.js GraphModels, frozen GraphDefs): one sentence for the user
// naming the file, node and op where they matter. It is an OnnxError so that every place that
// reports a failed load (CLI, window, tests) reports this one the same way.
#pragma once

#include "core/onnx/onnx_error.h"

namespace graphlens {

class TfImportError : public OnnxError {
public:
    using OnnxError::OnnxError;
};

} // namespace graphlens
