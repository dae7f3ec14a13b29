// The weights of a TF.js GraphModel: the shards of each weightsManifest group, concatenated in
// order, cut into named tensors; quantized weights (uint8/uint16 with scale and min, float16) are
// decoded to their original type at load.
#pragma once

#include "core/graph/tensor.h"
#include "core/tf/tfjs_model.pb.h"

#include <filesystem>
#include <string>
#include <unordered_map>

namespace graphlens::tf {

/// Reads every weight of `manifest` from the shards in `modelDir`. Shard paths must stay inside
/// that folder (no absolute paths, no '..', no symbolic links out). Throws TfImportError naming
/// `fileLabel` for a missing or short shard, an unknown dtype or a path leaving the folder.
std::unordered_map<std::string, Tensor> readTfjsWeights(
    const google::protobuf::RepeatedPtrField<TfjsWeightGroup>& manifest,
    const std::filesystem::path& modelDir, const std::string& fileLabel);

} // namespace graphlens::tf
