// TensorProto files.
#include "core/onnx/tensor_file.h"

#include "core/onnx/atomic_file.h"
#include "core/onnx/onnx_error.h"
#include "core/onnx/tensor_proto.h"

#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <sstream>

namespace graphlens {

namespace {

/// The bytes of the `what` ("tensor", "value") file at `path`.
std::string fileBytes(const std::filesystem::path& path, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw OnnxError(std::string("cannot open the ") + what + " file '" + path.string() + "'");
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

} // namespace

Tensor readTensorFile(const std::filesystem::path& path, std::string* name) {
    auto proto = std::make_shared<onnx::TensorProto>();
    if (!proto->ParseFromString(fileBytes(path, "tensor")))
        throw OnnxError("'" + path.string() + "' is not an ONNX TensorProto file");
    if (name) *name = proto->name();
    return tensorFromProto(*proto, proto, nullptr, "the tensor in '" + path.filename().string() + "'");
}

namespace {

/// The element type a TypeProto's tensors have, through sequences and optionals.
DType elementTypeOf(const onnx::TypeProto& type) {
    if (type.has_tensor_type()) return dtypeFromOnnx(type.tensor_type().elem_type()).value_or(DType::Undefined);
    if (type.has_sequence_type()) return elementTypeOf(type.sequence_type().elem_type());
    if (type.has_optional_type()) return elementTypeOf(type.optional_type().elem_type());
    return DType::Undefined;
}

Tensor sequenceFromProto(const onnx::SequenceProto& proto, const onnx::TypeProto& type, const std::string& label,
                         const std::shared_ptr<const void>& owner);

Tensor optionalFromProto(const onnx::OptionalProto& proto, const onnx::TypeProto& type, const std::string& label,
                         const std::shared_ptr<const void>& owner) {
    const onnx::TypeProto& element = type.optional_type().elem_type();
    switch (proto.elem_type()) {
    case onnx::OptionalProto::UNDEFINED: return Tensor::optional(elementTypeOf(type), std::nullopt);
    case onnx::OptionalProto::TENSOR:
        if (!proto.has_tensor_value()) return Tensor::optional(elementTypeOf(type), std::nullopt);
        return Tensor::optional(elementTypeOf(type), tensorFromProto(proto.tensor_value(), owner, nullptr, label));
    case onnx::OptionalProto::SEQUENCE:
        if (!proto.has_sequence_value()) return Tensor::optional(elementTypeOf(type), std::nullopt);
        return Tensor::optional(elementTypeOf(type), sequenceFromProto(proto.sequence_value(), element, label, owner));
    default: throw OnnxError(label + " holds an optional of maps or sparse tensors, which are not supported");
    }
}

Tensor sequenceFromProto(const onnx::SequenceProto& proto, const onnx::TypeProto& type, const std::string& label,
                         const std::shared_ptr<const void>& owner) {
    const onnx::TypeProto& element =
        type.has_sequence_type() ? type.sequence_type().elem_type() : onnx::TypeProto::default_instance();
    std::vector<Tensor> elements;
    switch (proto.elem_type()) {
    case onnx::SequenceProto::UNDEFINED:
    case onnx::SequenceProto::TENSOR:
        for (const auto& t : proto.tensor_values()) elements.push_back(tensorFromProto(t, owner, nullptr, label));
        break;
    case onnx::SequenceProto::SEQUENCE:
        for (const auto& s : proto.sequence_values()) elements.push_back(sequenceFromProto(s, element, label, owner));
        break;
    case onnx::SequenceProto::OPTIONAL:
        for (const auto& o : proto.optional_values()) elements.push_back(optionalFromProto(o, element, label, owner));
        break;
    default: throw OnnxError(label + " holds a sequence of maps or sparse tensors, which are not supported");
    }
    return Tensor::sequence(elementTypeOf(type), std::move(elements));
}

} // namespace

Tensor readValueFile(const std::filesystem::path& path, const std::string& opaqueType) {
    if (opaqueType.empty()) return readTensorFile(path);
    onnx::TypeProto type;
    if (!type.ParseFromString(opaqueType)) throw OnnxError("the value's declared type cannot be read");
    const std::string label = "the value in '" + path.filename().string() + "'";
    const std::string bytes = fileBytes(path, "value");
    if (type.has_sequence_type()) {
        auto proto = std::make_shared<onnx::SequenceProto>();
        if (!proto->ParseFromString(bytes)) throw OnnxError("'" + path.string() + "' is not an ONNX SequenceProto file");
        return sequenceFromProto(*proto, type, label, proto);
    }
    if (type.has_optional_type()) {
        auto proto = std::make_shared<onnx::OptionalProto>();
        if (!proto->ParseFromString(bytes)) throw OnnxError("'" + path.string() + "' is not an ONNX OptionalProto file");
        return optionalFromProto(*proto, type, label, proto);
    }
    throw OnnxError(label + " is a map or a sparse tensor, which is not supported");
}

namespace {

void sequenceToProto(const Tensor& sequence, onnx::SequenceProto& proto);

void optionalToProto(const Tensor& optional, onnx::OptionalProto& proto) {
    if (optional.elements().empty()) return;  // no value: elem_type UNDEFINED
    const Tensor& value = optional.elements()[0];
    if (value.isSequence()) {
        proto.set_elem_type(onnx::OptionalProto::SEQUENCE);
        sequenceToProto(value, *proto.mutable_sequence_value());
    } else {
        proto.set_elem_type(onnx::OptionalProto::TENSOR);
        tensorToProto(value, *proto.mutable_tensor_value());
    }
}

void sequenceToProto(const Tensor& sequence, onnx::SequenceProto& proto) {
    const auto& elements = sequence.elements();
    const bool nested = !elements.empty() && elements[0].isSequence();
    const bool optionals = !elements.empty() && elements[0].isOptional();
    proto.set_elem_type(nested ? onnx::SequenceProto::SEQUENCE
                               : optionals ? onnx::SequenceProto::OPTIONAL : onnx::SequenceProto::TENSOR);
    for (const Tensor& e : elements) {
        if (e.isSequence()) sequenceToProto(e, *proto.add_sequence_values());
        else if (e.isOptional()) optionalToProto(e, *proto.add_optional_values());
        else tensorToProto(e, *proto.add_tensor_values());
    }
}

} // namespace

void writeTensorFile(const std::filesystem::path& path, const Tensor& tensor, const std::string& name) {
    AtomicFile file(path);
    const auto write = [&](auto&& proto, auto&& fill) {
        fill(tensor, proto);
        proto.set_name(name);
        file.writeMessage(proto);
    };
    if (tensor.isSequence()) write(onnx::SequenceProto(), sequenceToProto);
    else if (tensor.isOptional()) write(onnx::OptionalProto(), optionalToProto);
    else write(onnx::TensorProto(), tensorToProto);
    file.commit();
}

} // namespace graphlens
