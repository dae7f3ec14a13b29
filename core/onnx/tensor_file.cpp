// TensorProto files.
#include "core/onnx/tensor_file.h"

#include "core/onnx/atomic_file.h"
#include "core/onnx/onnx_error.h"
#include "core/onnx/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <sstream>

namespace graphlens {

Tensor readTensorFile(const std::filesystem::path& path, std::string* name) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw OnnxError("cannot open the tensor file '" + path.string() + "'");
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto proto = std::make_shared<onnx::TensorProto>();
    if (!proto->ParseFromString(buffer.str()))
        throw OnnxError("'" + path.string() + "' is not an ONNX TensorProto file");
    if (name) *name = proto->name();
    return tensorFromProto(*proto, proto, nullptr, "the tensor in '" + path.filename().string() + "'");
}

void writeTensorFile(const std::filesystem::path& path, const Tensor& tensor, const std::string& name) {
    onnx::TensorProto proto;
    tensorToProto(tensor, proto);
    proto.set_name(name);
    AtomicFile file(path);
    file.writeMessage(proto);
    file.commit();
}

} // namespace graphlens
