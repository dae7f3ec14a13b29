// Format sniffing and the table of importers behind openModel.
#include "core/import/open_model.h"

#include "core/onnx/onnx_error.h"
#include "core/tf/tf_loader.h"

#include <array>
#include <fstream>

namespace graphlens {
namespace {

namespace fs = std::filesystem;

std::string leadingBytes(const fs::path& path, size_t count) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes(count, '\0');
    in.read(bytes.data(), std::streamsize(count));
    bytes.resize(size_t(std::max<std::streamsize>(in.gcount(), 0)));
    return bytes;
}

std::string lowerExtension(const fs::path& path) {
    std::string ext = path.extension().string();
    for (char& ch : ext) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return ext;
}

Model refuse(const fs::path&, const OpenOptions&, const char* sentence) { throw OnnxError(sentence); }

struct Importer {
    ModelFormat format;
    std::string_view name;
    Model (*load)(const fs::path&, const OpenOptions&);
};

const std::array<Importer, 5> kImporters{{
    {ModelFormat::Onnx, "ONNX model", [](const fs::path& p, const OpenOptions& o) { return loadModel(p, o.onnx); }},
    {ModelFormat::TfjsGraphModel, "TF.js GraphModel", [](const fs::path& p, const OpenOptions&) { return tf::loadTfjsModel(p); }},
    {ModelFormat::TfGraphDef, "TensorFlow GraphDef", [](const fs::path& p, const OpenOptions&) { return tf::loadFrozenGraph(p); }},
    {ModelFormat::TfLite, "TFLite model", [](const fs::path& p, const OpenOptions& o) {
         return refuse(p, o, "the file is a TFLite flatbuffer, which GraphLens does not open yet"); }},
    {ModelFormat::Keras, "Keras model", [](const fs::path& p, const OpenOptions& o) {
         return refuse(p, o, "the file is a Keras model (.h5/.keras), which GraphLens does not open yet"); }},
}};

} // namespace

ModelFormat sniffModelFormat(const fs::path& path) {
    const std::string head = leadingBytes(path, 16);
    const std::string ext = lowerExtension(path);
    const size_t text = head.find_first_not_of(" \t\r\n\xef\xbb\xbf");
    if (text != std::string::npos && head[text] == '{') return ModelFormat::TfjsGraphModel;
    if (head.size() >= 8 && head.compare(4, 4, "TFL3") == 0) return ModelFormat::TfLite;
    if (head.compare(0, 8, "\x89HDF\r\n\x1a\n") == 0 || (ext == ".keras" && head.compare(0, 4, "PK\x03\x04") == 0))
        return ModelFormat::Keras;
    if (ext == ".onnx") return ModelFormat::Onnx;
    if (ext == ".json") return ModelFormat::TfjsGraphModel;
    if (ext == ".tflite") return ModelFormat::TfLite;
    if (tf::looksLikeGraphDef(head)) return ModelFormat::TfGraphDef;
    return ModelFormat::Onnx;
}

std::string_view modelFormatName(ModelFormat format) {
    for (const Importer& importer : kImporters)
        if (importer.format == format) return importer.name;
    return "model";
}

Model openModel(const fs::path& path, const OpenOptions& options) {
    const ModelFormat format = sniffModelFormat(path);
    for (const Importer& importer : kImporters)
        if (importer.format == format) return importer.load(path, options);
    return loadModel(path, options.onnx);
}

} // namespace graphlens
