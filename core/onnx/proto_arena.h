// The arena a whole ModelProto is built or parsed on: a large model's thousands of node, attribute
// and string objects are carved from a few blocks and freed with them, not one by one (malloc and
// free were about a tenth of `optimize` on a 6,000-node model).
#pragma once

#include <google/protobuf/arena.h>

#include <cstddef>

namespace graphlens {

inline google::protobuf::ArenaOptions modelArenaOptions() {
    google::protobuf::ArenaOptions blocks;
    blocks.start_block_size = size_t(64) << 10;
    blocks.max_block_size = size_t(4) << 20;
    return blocks;
}

} // namespace graphlens
