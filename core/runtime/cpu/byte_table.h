// y[i] = table[x[i]] over bytes, on the widest path the machine has (qlinear_lookup_table.cpp:
// AVX-512 VBMI, AVX2, or one byte at a time): the int8 lookup tables of QDQ activations, and the
// requantizing copies of QLinearConcat.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

namespace graphlens::onednn {

struct ShuffleRows;  ///< the table as the AVX2 path reads it

class ByteTable {
public:
    explicit ByteTable(const std::array<uint8_t, 256>& table);
    ~ByteTable();
    ByteTable(ByteTable&&) noexcept;
    ByteTable& operator=(ByteTable&&) noexcept;

    /// y[i] = table[x[i]] for i < n (x and y may be the same buffer).
    void map(const uint8_t* x, uint8_t* y, int64_t n) const;

private:
    std::array<uint8_t, 256> table_;
    std::unique_ptr<ShuffleRows> rows_;  ///< where the AVX2 path is taken
};

} // namespace graphlens::onednn
