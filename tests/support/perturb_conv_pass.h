// A test-only pass with a deliberate bug: it scales the weight of the sample CNN's
// /block1/conv2/Conv by 1.1. Bisection (core/compare and the window's Bisect button) must name it.
#pragma once

#include "core/passes/pass.h"
#include "core/passes/rewriter.h"

#include <string>

namespace graphlens::testing {

class PerturbConvWeight final : public Pass {
public:
    std::string id() const override { return "test-perturb-conv-weight"; }
    std::string title() const override { return "Perturb a Conv weight (test only)"; }
    std::string explanation() const override { return "Multiplies the weight of /block1/conv2/Conv by 1.1."; }
    void run(Rewriter& rw, PassContext&) override {
        const auto node = rw.graph().findNode("/block1/conv2/Conv");
        if (!node) return;
        const ValueId w = rw.graph().node(*node).input(1);
        const Tensor& weight = *rw.graph().constantValue(w);
        Tensor scaled = Tensor::allocate(DType::Float, weight.dims());
        for (size_t i = 0; i < size_t(weight.numel()); ++i) scaled.mutableSpan<float>()[i] = weight.span<float>()[i] * 1.1f;
        rw.setNodeInput(*node, 1, rw.addInitializer("perturbed", scaled));
        rw.eraseIfDead(w);
        rw.commit("perturb-weight", "scaled the weight of /block1/conv2/Conv by 1.1");
    }
};

} // namespace graphlens::testing
