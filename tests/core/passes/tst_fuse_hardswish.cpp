// fuse-hardswish: x * HardSigmoid(x) and the relu6 forms of x * relu6(x + 3) / 6 become one
// HardSwish from opset 14; below it, and where intermediates are shared, the pass says why not.
#include "core/graph/builder.h"
#include "core/onnx/loader.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

ValueId scalar(GraphBuilder& b, float v) { return b.constant(Tensor::scalar(v)); }

ValueId plusThree(GraphBuilder& b, ValueId x) { return b.op("Add", {x, scalar(b, 3.f)}); }

const std::string kMobileNetBlock = GRAPHLENS_SOURCE_DIR "/tests/fixtures/models/mobilenet_v3_block/model.onnx";

} // namespace

class TestFuseHardSwish : public QObject {
    Q_OBJECT
private slots:
    void fusesEveryExportedForm() {
        GraphBuilder b;
        std::vector<ValueId> x;
        for (int i = 0; i < 6; ++i) x.push_back(b.input("x" + std::to_string(i), DType::Float, {2, 4, 5, 5}));
        // x * HardSigmoid(x), as PyTorch exports nn.Hardswish before opset 14
        b.output(b.op("Mul", {x[0], b.op("HardSigmoid", {x[0]}, {{"alpha", 1.f / 6}})}));
        // x * Clip(x + 3, 0, 6) / 6
        auto clip = b.op("Clip", {plusThree(b, x[1]), scalar(b, 0.f), scalar(b, 6.f)});
        b.output(b.op("Div", {b.op("Mul", {x[1], clip}), scalar(b, 6.f)}));
        // x * (Clip(x + 3, 0, 6) / 6): the division first
        auto clip2 = b.op("Clip", {plusThree(b, x[2]), scalar(b, 0.f), scalar(b, 6.f)});
        b.output(b.op("Mul", {b.op("Div", {clip2, scalar(b, 6.f)}), x[2]}));
        // x * Min(Relu(x + 3), 6) * (1/6)
        auto relu6 = b.op("Min", {b.op("Relu", {plusThree(b, x[3])}), scalar(b, 6.f)});
        b.output(b.op("Mul", {b.op("Mul", {relu6, x[3]}), scalar(b, 1.f / 6)}));
        // (x * 1/6) * Max(Min(x + 3, 6), 0)
        auto clamp = b.op("Max", {b.op("Min", {plusThree(b, x[4]), scalar(b, 6.f)}), scalar(b, 0.f)});
        b.output(b.op("Mul", {clamp, b.op("Mul", {x[4], scalar(b, 0.16666667f)})}));
        // x * Relu(Min(x + 3, 6)) / 6
        auto relu = b.op("Relu", {b.op("Min", {plusThree(b, x[5]), scalar(b, 6.f)})});
        b.output(b.op("Div", {b.op("Mul", {x[5], relu}), scalar(b, 6.f)}));
        Model m = withShapes(b.model(14));
        const CheckedPass out = runPassChecked(m, "fuse-hardswish");
        QCOMPARE(countOps(m.graph, "HardSwish"), 6);
        QCOMPARE(m.graph.nodeCount(), size_t(6));  // Constants included
        QCOMPARE(out.result.counter("numFused"), int64_t(6));
        QVERIFY(out.verification.passed);
        QVERIFY(out.verification.maxAbsError < 1e-5);
    }

    void raisesOpset13To14AndDeclinesBelow() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 8});
        b.output(b.op("Mul", {b.op("HardSigmoid", {x}, {{"alpha", 1.f / 6}}, "hs"), x}));
        Model at12 = withShapes(b.model(12));
        const CheckedPass declined = runPassChecked(at12, "fuse-hardswish");
        QCOMPARE(countOps(at12.graph, "HardSwish"), 0);
        QCOMPARE(at12.graph.nodeCount(), size_t(2));
        QVERIFY(declinedWith(declined.result, "HardSwish is an ONNX operator from opset 14 on, and the model imports opset 12"));
        QCOMPARE(at12.opsetVersion(), int64_t(12));

        Model at13 = withShapes(b.model(13));
        const CheckedPass raised = runPassChecked(at13, "fuse-hardswish");
        QCOMPARE(countOps(at13.graph, "HardSwish"), 1);
        QCOMPARE(at13.graph.nodeCount(), size_t(1));
        QCOMPARE(at13.opsetVersion(), int64_t(14));
        QCOMPARE(raised.result.notes.size(), size_t(1));
        QVERIFY(raised.result.notes[0].find("raised the model's opset import from 13 to 14") != std::string::npos);
        QVERIFY(raised.verification.passed);
    }

    void keepsOpset13WhenABatchNormHasTrainingOutputs() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 2, 4});
        b.output(b.op("Mul", {b.op("HardSigmoid", {x}, {{"alpha", 1.f / 6}}, "hs"), x}));
        auto scale = b.initializer("s", Tensor::floats({2}, {1, 1}));
        auto bias = b.initializer("b", Tensor::floats({2}, {0, 0}));
        const auto bn = b.ops("BatchNormalization", {x, scale, bias, b.initializer("m", Tensor::floats({2}, {0, 0})),
                                                      b.initializer("v", Tensor::floats({2}, {1, 1}))},
                              3, {}, "bn_train");
        b.output(bn[0]);
        Model m = b.model(13);
        PassContext context = contextFor(m);  // not run numerically: a BatchNorm-9 with training outputs
        const PassResult out = runPass(*makePipeline("fuse-hardswish").front(), m, context);
        QCOMPARE(countOps(m.graph, "HardSwish"), 0);
        QCOMPARE(m.opsetVersion(), int64_t(13));
        QVERIFY(declinedWith(out, "raising the model from 13 would change BatchNormalization 'bn_train'"));
    }

    void declinesOtherConstantsAndSharedValues() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 8});
        auto y = b.input("y", DType::Float, {1, 8});
        auto z = b.input("z", DType::Float, {1, 8});
        // HardSigmoid's default alpha 0.2: x * HardSigmoid(x) is not HardSwish then
        b.output(b.op("Mul", {b.op("HardSigmoid", {x}), x}));
        // relu6(y + 3) is read elsewhere too
        auto clip = b.op("Clip", {plusThree(b, y), scalar(b, 0.f), scalar(b, 6.f)});
        b.output(b.op("Div", {b.op("Mul", {y, clip}), scalar(b, 6.f)}));
        b.output(b.op("Neg", {clip}));
        // divided by 5, not 6
        auto clip5 = b.op("Clip", {plusThree(b, z), scalar(b, 0.f), scalar(b, 6.f)});
        b.output(b.op("Div", {b.op("Mul", {z, clip5}), scalar(b, 5.f)}));
        // a squeeze-and-excitation gate: the HardSigmoid of another tensor, silently left alone
        b.output(b.op("Mul", {b.op("HardSigmoid", {z}, {{"alpha", 1.f / 6}}), y}));
        Model m = withShapes(b.model(14));
        const size_t before = m.graph.nodeCount();
        const CheckedPass out = runPassChecked(m, "fuse-hardswish");
        QCOMPARE(m.graph.nodeCount(), before);
        QVERIFY(declinedWith(out.result, "alpha and beta are 0.2 and 0.5, not 1/6 and 1/2"));
        QVERIFY(declinedWith(out.result, "is read by 2 nodes"));
        QVERIFY(declinedWith(out.result, "scales by 0.2, not by 0.166667"));
        QCOMPARE(out.result.declines.size(), size_t(3));
    }

    void mobileNetBlockFusesFromOpset12() {
        Model m = loadModel(kMobileNetBlock);  // opset 13: two hard-swishes, one SE gate
        m.opsets[0].version = 12;
        const CheckedPass at12 = runPassChecked(m, "fuse-hardswish");
        QCOMPARE(countOps(m.graph, "HardSwish"), 0);
        QCOMPARE(at12.result.declines.size(), size_t(2));
        QVERIFY(declinedWith(at12.result, "from opset 14 on"));
        m.opsets[0].version = 13;
        const CheckedPass at14 = runPassChecked(m, "fuse-hardswish");
        QCOMPARE(countOps(m.graph, "HardSwish"), 2);
        QCOMPARE(countOps(m.graph, "HardSigmoid"), 1);  // the SE gate stays
        QCOMPARE(m.graph.nodeCount(), size_t(12));
        QVERIFY(at14.verification.passed);
    }
};

QTEST_GUILESS_MAIN(TestFuseHardSwish)
#include "tst_fuse_hardswish.moc"
