// The pass library: every pass by stable id, and pipelines by name (`default`, `all`, `none`)
// or as a comma list of ids.
#pragma once

#include "core/passes/pass.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace graphlens {

/// A pipeline spec names no known pipeline or pass.
class PassError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Every pass, in the order the `default` and `all` pipelines run them.
std::vector<std::unique_ptr<Pass>> makeAllPasses();

/// `default` (every lossless pass), `all` (lossy ones too), `none`, or "id,id,..." in the order
/// given, where an item may also be a pipeline ("default,quantize-int8-weights"). Throws PassError naming the unknown id and listing the known ones.
std::vector<std::unique_ptr<Pass>> makePipeline(std::string_view spec);

} // namespace graphlens
