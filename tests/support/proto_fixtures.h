// Helpers for tests that need ONNX files the IR cannot express (cycles, broken tensors, ...):
// they build onnx.ModelProto messages directly.
#pragma once

#include <onnx/onnx_pb.h>

#include <QByteArray>
#include <QString>

#include <fstream>
#include <initializer_list>
#include <string>

namespace graphlens::testing {

inline onnx::ModelProto emptyModel(int opset = 17) {
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.set_producer_name("graphlens tests");
    auto* op = m.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    m.mutable_graph()->set_name("test");
    return m;
}

inline void setTensorType(onnx::ValueInfoProto& info, const std::string& name,
                          std::initializer_list<int64_t> dims, int elemType = onnx::TensorProto::FLOAT) {
    info.set_name(name);
    auto* t = info.mutable_type()->mutable_tensor_type();
    t->set_elem_type(elemType);
    auto* shape = t->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

inline void addInput(onnx::GraphProto& g, const std::string& name, std::initializer_list<int64_t> dims) {
    setTensorType(*g.add_input(), name, dims);
}

inline void addOutput(onnx::GraphProto& g, const std::string& name, std::initializer_list<int64_t> dims) {
    setTensorType(*g.add_output(), name, dims);
}

inline onnx::NodeProto& addNode(onnx::GraphProto& g, const std::string& op,
                                std::initializer_list<std::string> inputs,
                                std::initializer_list<std::string> outputs,
                                const std::string& name = {}) {
    auto* n = g.add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
}

inline onnx::TensorProto& addFloatInitializer(onnx::GraphProto& g, const std::string& name,
                                              std::initializer_list<int64_t> dims,
                                              std::initializer_list<float> values) {
    auto* t = g.add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    std::string raw;
    for (float v : values) raw.append(reinterpret_cast<const char*>(&v), sizeof v);
    t->set_raw_data(raw);
    return *t;
}

/// x -> Relu -> y: the smallest valid model.
inline onnx::ModelProto reluModel() {
    onnx::ModelProto m = emptyModel();
    auto& g = *m.mutable_graph();
    addInput(g, "x", {2, 3});
    addNode(g, "Relu", {"x"}, {"y"}, "relu");
    addOutput(g, "y", {2, 3});
    return m;
}

inline void writeFile(const QString& path, const std::string& bytes) {
    std::ofstream out(path.toStdString(), std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

inline void writeModel(const QString& path, const onnx::ModelProto& m) {
    writeFile(path, m.SerializeAsString());
}

} // namespace graphlens::testing
