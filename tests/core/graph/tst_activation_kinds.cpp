// The activation table (core/graph/activations.def): its defaults equal the ONNX schemas' (so the
// table cannot drift from ONNX), its codes are distinct, its lookups find kinds by name and by op,
// and fused kernels, the fusion pass and the reference agree on the numbers it supplies.
#include "core/graph/activation_kinds.h"
#include "core/graph/attribute.h"
#include "core/graph/op_key.h"
#include "core/onnx/schema_defaults.h"

#include <QtTest>

#include <set>

using namespace graphlens;

namespace {

/// The newest opset (1..23) whose schema of `op` declares attribute `name` with a default.
std::optional<std::pair<int64_t, float>> newestSchemaDefault(const OpKey& op, std::string_view name) {
    for (int64_t opset = 23; opset >= 1; --opset)
        if (auto d = schemaDefault(op, opset, name); d && d->holds<float>()) return std::pair{opset, d->get<float>()};
    return std::nullopt;
}

} // namespace

class TestActivationKinds : public QObject {
    Q_OBJECT
private slots:
    void tableDefaultsEqualTheOnnxSchemaDefaults() {
        int checked = 0;
        for (const ActivationKind& kind : kActivationKinds) {
            const OpKey op(kind.domain, kind.name);
            const std::pair<std::string_view, float> params[] = {{kind.alphaAttribute, kind.alphaDefault},
                                                                 {kind.betaAttribute, kind.betaDefault}};
            for (const auto& [name, tableDefault] : params) {
                if (name.empty()) continue;
                const auto schema = newestSchemaDefault(op, name);
                if (!op.isDefaultDomain() && !schema) continue;  // com.microsoft: no default in our contrib schemas
                QVERIFY2(schema, qPrintable(QString::fromStdString(op.toString() + "." + std::string(name))));
                QVERIFY2(schema->second == tableDefault,
                         qPrintable(QString("%1.%2: table %3, schema (opset %4) %5")
                                        .arg(QString::fromStdString(op.toString()))
                                        .arg(QString::fromUtf8(name.data(), int(name.size())))
                                        .arg(double(tableDefault), 0, 'g', 9)
                                        .arg(schema->first)
                                        .arg(double(schema->second), 0, 'g', 9)));
                ++checked;
            }
        }
        // LeakyRelu alpha, Clip min and max, HardSigmoid alpha and beta, Elu alpha, Selu alpha and
        // gamma, ThresholdedRelu alpha, Celu alpha.
        QCOMPARE(checked, 10);
    }

    void everyDefaultDomainKindIsAnOnnxOpWithoutUndeclaredNumbers() {
        // A default-domain kind with no parameters has no float attribute with a default in its
        // schema that the table would be ignoring (Relu, Sigmoid, ... have none).
        for (const ActivationKind& kind : kActivationKinds) {
            if (!kind.domain.empty() || kind.paramCount() > 0 || kind.id == ActivationId::PRelu) continue;
            for (const char* name : {"alpha", "beta", "gamma"})
                QVERIFY2(!newestSchemaDefault(OpKey("", kind.name), name),
                         qPrintable(QString::fromUtf8(kind.name.data(), int(kind.name.size()))));
        }
    }

    void codesAndNamesAreDistinct() {
        std::set<int> codes;
        std::set<std::string_view> names;
        for (const ActivationKind& kind : kActivationKinds) {
            QVERIFY(codes.insert(kind.code()).second);
            QVERIFY(names.insert(kind.name).second);
            QCOMPARE(&activationKind(kind.id), &kind);
        }
        QCOMPARE(activationKind(ActivationId::Relu).code(), 1);  // codes are stable: plans and shaders use them
        QCOMPARE(activationKind(ActivationId::Gelu).code(), 13);
        QCOMPARE(activationKind(ActivationId::FastGelu).code(), 26);
    }

    void lookupsByNameAndOpHonourTheDomain() {
        QCOMPARE(activationKindOfOp("", "LeakyRelu")->id, ActivationId::LeakyRelu);
        QCOMPARE(activationKindOfOp("ai.onnx", "LeakyRelu")->id, ActivationId::LeakyRelu);
        QCOMPARE(activationKindOfOp("com.microsoft", "QuickGelu")->id, ActivationId::QuickGelu);
        QVERIFY(!activationKindOfOp("", "QuickGelu"));          // ONNX has no QuickGelu
        QVERIFY(!activationKindOfOp("com.microsoft", "Relu"));  // nor ONNX Runtime a Relu of its own
        QVERIFY(!activationKindOfOp("", "PRelu"));              // binary: not a unary op of the table
        QCOMPARE(activationKindNamed("HardSigmoid")->id, ActivationId::HardSigmoid);
        QVERIFY(!activationKindNamed("NoSuchActivation"));
    }

    void paramsTakeTheNodesNumbersAndTheTableDefaultsElsewhere() {
        const ActivationKind& hardSigmoid = activationKind(ActivationId::HardSigmoid);
        QCOMPARE(activationParams(hardSigmoid, Attributes{}), (ActivationParams{0.2f, 0.5f}));
        QCOMPARE(activationParams(hardSigmoid, Attributes{{"beta", 0.25f}}), (ActivationParams{0.2f, 0.25f}));
        const float nan = std::numeric_limits<float>::quiet_NaN();
        QCOMPARE(activationParams(hardSigmoid, std::vector<float>{0.3f, nan}), (ActivationParams{0.3f, 0.5f}));
        QCOMPARE(activationParams(activationKind(ActivationId::Selu), std::vector<float>{}),
                 (ActivationParams{1.67326319217681884765625f, 1.05070102214813232421875f}));
        QCOMPARE(activationKind(ActivationId::QuickGelu).alphaDefault, 1.702f);
    }

    void fusableKindsAreWhatTheFusedKernelsTake() {
        std::set<std::string_view> fusable, ortConv, ortGemm;
        for (const ActivationKind& kind : kActivationKinds) {
            if (kind.has(kActFusable)) fusable.insert(kind.name);
            if (kind.has(kActOrtConv)) ortConv.insert(kind.name);
            if (kind.has(kActOrtGemm)) ortGemm.insert(kind.name);
        }
        QCOMPARE(fusable, (std::set<std::string_view>{"Clip", "HardSigmoid", "HardSwish", "LeakyRelu", "QuickGelu",
                                                      "Relu", "Sigmoid", "Tanh"}));
        QCOMPARE(ortConv, (std::set<std::string_view>{"Clip", "HardSigmoid", "LeakyRelu", "Relu", "Sigmoid", "Tanh"}));
        QCOMPARE(ortGemm, (std::set<std::string_view>{"HardSigmoid", "LeakyRelu", "Relu", "Sigmoid", "Tanh"}));
    }

    void schemaDefaultsFollowTheOpset() {
        // Softmax's axis moved from 1 to -1 at opset 13; LayerNormalization's epsilon is 1e-5.
        // (Gelu's approximate is not here: Debian's libonnx 1.12 predates Gelu, opset 20.)
        QCOMPARE(schemaDefault(OpKey("", "Softmax"), 11, "axis")->get<int64_t>(), int64_t(1));
        QCOMPARE(schemaDefault(OpKey("", "Softmax"), 13, "axis")->get<int64_t>(), int64_t(-1));
        QCOMPARE(schemaDefault(OpKey("", "LayerNormalization"), 17, "epsilon")->get<float>(), 1e-5f);
        QCOMPARE(schemaDefault(OpKey("", "BatchNormalization"), 15, "epsilon")->get<float>(), 1e-5f);
        QCOMPARE(schemaDefault(OpKey("ai.onnx", "Celu"), 12, "alpha")->get<float>(), 1.0f);
        QVERIFY(!schemaDefault(OpKey("", "Celu"), 11, "alpha"));  // no Celu before opset 12
        QVERIFY(!schemaDefault(OpKey("", "Relu"), 14, "alpha"));
        QCOMPARE(intAttributeOrDefault(Attributes{{"axis", int64_t(2)}}, OpKey("", "Softmax"), 11, "axis"), int64_t(2));
        QCOMPARE(floatAttributeOrDefault(Attributes{}, OpKey("", "InstanceNormalization"), 6, "epsilon"), 1e-5f);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 floatAttributeOrDefault(Attributes{}, OpKey("", "Relu"), 14, "alpha"));
    }
};

QTEST_APPLESS_MAIN(TestActivationKinds)
#include "tst_activation_kinds.moc"
