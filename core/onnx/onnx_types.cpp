// TypeProto <-> dtype + Shape.
#include "core/onnx/onnx_types.h"

namespace graphlens {
namespace {

Shape shapeFromProto(const onnx::TensorShapeProto& proto) {
    std::vector<Dim> dims;
    for (const auto& d : proto.dim()) {
        if (d.has_dim_value()) dims.emplace_back(d.dim_value());
        else if (d.has_dim_param() && !d.dim_param().empty()) dims.emplace_back(d.dim_param());
        else dims.emplace_back();
    }
    return Shape(std::move(dims));
}

int knownDims(const Shape& s) {
    if (!s.rankKnown()) return -1;
    int n = 0;
    for (const Dim& d : s.dims()) n += d.isStatic() ? 2 : d.isSymbolic() ? 1 : 0;
    return n;
}

} // namespace

void applyValueInfo(const onnx::ValueInfoProto& info, Value& value, bool onlyIfMoreKnown) {
    value.declaredInFile = true;
    if (!info.doc_string().empty()) value.docString = info.doc_string();
    if (!info.has_type()) return;
    const auto& type = info.type();
    if (!type.has_tensor_type()) {
        if (!onlyIfMoreKnown || value.opaqueType.empty()) value.opaqueType = type.SerializeAsString();
        return;
    }
    const auto& tensorType = type.tensor_type();
    const auto dtype = dtypeFromOnnx(tensorType.elem_type()).value_or(DType::Undefined);
    if (!onlyIfMoreKnown || value.dtype == DType::Undefined) value.dtype = dtype;
    if (tensorType.has_shape()) {
        Shape shape = shapeFromProto(tensorType.shape());
        if (!onlyIfMoreKnown || knownDims(shape) > knownDims(value.shape)) value.shape = std::move(shape);
    }
}

void valueToValueInfo(const Value& value, onnx::ValueInfoProto& info) {
    info.set_name(value.name);
    if (!value.docString.empty()) info.set_doc_string(value.docString);
    if (!value.opaqueType.empty()) {
        info.mutable_type()->ParseFromString(value.opaqueType);
        return;
    }
    if (value.dtype == DType::Undefined && !value.shape.rankKnown()) return;
    auto* tensorType = info.mutable_type()->mutable_tensor_type();
    tensorType->set_elem_type(static_cast<int32_t>(value.dtype));
    if (!value.shape.rankKnown()) return;
    auto* shape = tensorType->mutable_shape();
    for (const Dim& d : value.shape.dims()) {
        auto* dim = shape->add_dim();
        if (d.isStatic()) dim->set_dim_value(d.size());
        else if (d.isSymbolic()) dim->set_dim_param(d.symbol());
    }
}

} // namespace graphlens
