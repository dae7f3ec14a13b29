// An OCR-style detector head on the Vulkan backend against the CPU backend: a strided Conv, a
// ConvTranspose and a nearest Resize upsampling it back, their Concat, a reflect Pad before a
// valid Conv, a bilinear Resize to twice the size and a Sigmoid, as DBNet-like text detectors
// end. Every node must run in a shader (pad.comp, resize.comp, conv_transpose.comp among them) and
// the output must match the CPU's within 1e-3. A second graph covers grouped, dilated
// ConvTranspose with output_padding, edge and constant Pad with negative pads, and cubic Resize
// with sizes. Nodes the shaders decline run on the CPU with the factory's own reason. Skips where
// there is no Vulkan device (or the build has no Vulkan backend).
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/backend_registry.h"
#include "core/runtime/tensor_compare.h"
#include "support/seeded_tensor.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

class TestVulkanOcr : public QObject {
    Q_OBJECT

    std::unique_ptr<Backend> vulkan_;
    std::string problem_;

    /// Runs `m` (one input "x" of `dims`) on both backends; fails unless every node ran in a shader
    /// and the outputs agree within 1e-3. Returns the Vulkan plan's kernel names.
    std::vector<std::string> runsInShadersLikeTheCpu(const Model& m, const std::vector<int64_t>& dims) {
        const std::map<std::string, Tensor> feeds{{"x", seeded(dims, 7)}};
        const Tensor want = makeCpuBackend()->compile(m, {})->run(feeds).at(0);
        auto plan = vulkan_->compile(m, {});
        std::vector<std::string> kernels;
        for (const PlannedNode& n : plan->nodes()) {
            kernels.push_back(n.kernel);
            if (n.device != "vulkan")
                QTest::qFail((n.kernel + " ran on the cpu: " + n.why).c_str(), __FILE__, __LINE__);
        }
        const Tensor got = plan->run(feeds).at(0);
        const TensorComparison c = compareTensors(got, want, 1e-3, 1e-3);
        if (!c.matches) QTest::qFail(c.mismatch.c_str(), __FILE__, __LINE__);
        return kernels;
    }

private slots:
    void initTestCase() {
        try {
            vulkan_ = makeBackend("vulkan");
        } catch (const std::exception& e) {
            problem_ = e.what();
        }
    }

    void init() {
        if (!vulkan_) QSKIP(problem_.c_str());
    }

    void detectorHeadRunsInShaders() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 4, 10, 12}));
        const ValueId c1 = b.op("Conv", {x, b.initializer("w1", seeded({8, 4, 3, 3}, 1)), b.initializer("b1", seeded({8}, 2))},
                                {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}});
        const ValueId up = b.op("ConvTranspose", {c1, b.initializer("wt", seeded({8, 8, 2, 2}, 3)), b.initializer("bt", seeded({8}, 4))},
                                {{"strides", {2, 2}}});
        const ValueId none = b.initializer("roi", Tensor::floats({0}, {}));
        const ValueId near = b.op("Resize", {c1, none, b.initializer("scales", Tensor::floats({4}, {1, 1, 2, 2}))},
                                  {{"mode", "nearest"}, {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}});
        const ValueId cat = b.op("Concat", {up, near}, {{"axis", int64_t(1)}});
        const ValueId padded = b.op("Pad", {cat, b.initializer("pads", Tensor::int64s({8}, {0, 0, 1, 1, 0, 0, 1, 1}))},
                                    {{"mode", "reflect"}});
        const ValueId head = b.op("Conv", {padded, b.initializer("w2", seeded({2, 16, 3, 3}, 5))});
        const ValueId big = b.op("Resize", {head, none, b.initializer("none", Tensor::floats({0}, {})),
                                            b.initializer("sizes", Tensor::int64s({4}, {1, 2, 20, 24}))},
                                 {{"mode", "linear"}});
        b.output(b.op("Sigmoid", {big}));
        const auto kernels = runsInShadersLikeTheCpu(b.model(17), {1, 4, 10, 12});
        for (const char* k : {"vulkan:conv-transpose", "vulkan:resize", "vulkan:pad"})
            QVERIFY2(std::count(kernels.begin(), kernels.end(), k) >= 1, k);
        QCOMPARE(std::count(kernels.begin(), kernels.end(), "vulkan:resize"), 2);
    }

    void geometryCornersRunInShaders() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({2, 6, 5, 7}));
        const ValueId up = b.op("ConvTranspose", {x, b.initializer("w", seeded({6, 2, 3, 3}, 11))},
                                {{"group", int64_t(3)}, {"strides", {2, 3}}, {"dilations", {2, 1}}, {"pads", {1, 0, 2, 1}},
                                 {"output_padding", {1, 2}}});
        const ValueId edge = b.op("Pad", {up, b.initializer("p1", Tensor::int64s({8}, {0, 0, 2, -1, 0, 0, -3, 2}))},
                                  {{"mode", "edge"}});
        const ValueId value = b.initializer("v", Tensor::scalar(0.25f));
        const ValueId konst = b.op("Pad", {edge, b.initializer("p2", Tensor::int64s({8}, {0, 1, 0, 1, 0, 0, 1, 0})), value});
        const ValueId none = b.initializer("roi", Tensor::floats({0}, {}));
        b.output(b.op("Resize", {konst, none, b.initializer("scales", Tensor::floats({0}, {})),
                                 b.initializer("sizes", Tensor::int64s({4}, {2, 7, 9, 30}))},
                      {{"mode", "cubic"}, {"coordinate_transformation_mode", "pytorch_half_pixel"}}));
        const auto kernels = runsInShadersLikeTheCpu(b.model(17), {2, 6, 5, 7});
        QCOMPARE(kernels, (std::vector<std::string>{"vulkan:conv-transpose", "vulkan:pad", "vulkan:pad", "vulkan:resize"}));
    }

    void declinedNodesSayWhy() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 2, 4, 4}));
        const ValueId scales = b.input("scales", DType::Float, Shape::ofSizes({4}));
        const ValueId none = b.initializer("roi", Tensor::floats({0}, {}));
        const ValueId fed = b.op("Resize", {x, none, scales}, {{"mode", "linear"}});
        b.output(fed, DType::Float, Shape::ofSizes({1, 2, 8, 8}));  // its shape: declared, not inferred
        b.output(b.op("Resize", {fed, none, b.initializer("s2", Tensor::floats({4}, {1, 1, 0.5f, 0.5f}))},
                      {{"mode", "linear"}, {"antialias", int64_t(1)}}),
                 DType::Float, Shape::ofSizes({1, 2, 4, 4}));
        const auto plan = vulkan_->compile(b.model(18), {});
        QCOMPARE(plan->nodes().size(), size_t(2));
        QCOMPARE(plan->nodes()[0].device, std::string("cpu"));
        QCOMPARE(plan->nodes()[0].why, std::string("its scales input is computed at run time"));
        QCOMPARE(plan->nodes()[1].device, std::string("cpu"));
        QCOMPARE(plan->nodes()[1].why, std::string("antialias is not supported"));
    }
};

QTEST_GUILESS_MAIN(TestVulkanOcr)
#include "tst_vulkan_ocr.moc"
