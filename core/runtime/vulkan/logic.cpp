// Element-wise ops on tensors of any integer or float32 type, all through typed.comp: Cast and
// CastLike, the comparisons, And/Or/Xor/Not, Mod, BitShift, integer Add/Sub/Mul/Div/Max/Min and
// Neg/Abs/Sign, the float math the unary activation table lacks (inverse and hyperbolic
// trigonometry, Tan, IsNaN, IsInf, Shrink), Where, Trilu, Sum/Mean chains, QuantizeLinear and
// DequantizeLinear. Integers are computed in 32 bits (64-bit comparisons and casts to bool look at
// both words); integer math on int64, uint64 or uint32 runs in typed64.comp, exact over 64 bits, on
// devices with shaderInt64 and on the CPU elsewhere; element moves (Where, Trilu, a Cast to the
// same type) copy the bits as they are, 64-bit ones too.
#include "core/runtime/vulkan/typed.h"

#include <algorithm>

namespace graphlens::vk {
namespace {

// Op codes of typed.comp.
enum Code {
    Cast = 0, Acos = 1, Acosh = 2, Asin = 3, Asinh = 4, Atan = 5, Atanh = 6, Cosh = 7, Sinh = 8, Tan = 9,
    IsNaN = 10, IsInf = 11, Shrink = 12, Not = 13, Neg = 14, Abs = 15, Sign = 16, Scale = 17,
    Equal = 20, Less = 21, Greater = 22, LessOrEqual = 23, GreaterOrEqual = 24, And = 25, Or = 26, Xor = 27,
    Mod = 28, BitShift = 29, Add = 30, Sub = 31, Mul = 32, Div = 33, Max = 34, Min = 35,
    Where = 40, Trilu = 41, Move = 42, Dequantize = 43, Quantize = 44, Clip = 45,
};

struct TypedOp {
    int code = 0;
    bool floatMath = false;
    float alpha = 0, beta = 0;
    int flag = 0, k = 0;
    int64_t rows = 1, cols = 1;
    bool wide = false;  ///< typed64.comp whatever the types (casts between 64-bit types)
};

/// An operand of typed.comp: a tensor, its dims and its type.
struct Operand {
    TensorRef ref;
    std::vector<int64_t> dims;
    DType type;
};

bool wideType(DType t) { return t == DType::Int64 || t == DType::UInt64 || t == DType::UInt32; }

/// True when typed.comp's 32-bit integer math would lose bits: integer math (not moves, not the
/// comparisons, which typed.comp does over both words) with an int64, uint64 or uint32 operand or output.
bool needsWide(const NodeShapes& s, const std::vector<Operand>& operands, const TypedOp& op) {
    if (op.wide) return true;
    if (op.floatMath || op.code == Where || op.code == Trilu || op.code == Move || op.code == Dequantize ||
        op.code == Quantize || (op.code >= Equal && op.code <= GreaterOrEqual) || op.code == Cast)
        return false;
    bool wide = wideType(s.outputTypes[0]);
    for (const Operand& o : operands) wide = wide || wideType(o.type);
    return wide;
}

/// The typed.comp (or typed64.comp) dispatch writing output 0 from up to three operands A, B, C.
std::optional<Dispatch> typedDispatch(const NodeShapes& s, const std::vector<Operand>& operands, const TypedOp& op) {
    if (!s.hasOutput(0) || elementCode(s.outputTypes[0]) < 0) return std::nullopt;
    const bool wide = needsWide(s, operands, op);
    if (wide && !s.device.int64) return std::nullopt;
    std::vector<std::vector<int64_t>> dims;
    for (const Operand& o : operands) {
        if (elementCode(o.type) < 0) return std::nullopt;
        dims.push_back(o.dims);
    }
    const auto walk = operandWalk(s.outputDims[0], dims);
    if (!walk) return std::nullopt;
    const int64_t count = numel(s.outputDims[0]);
    Constants c;
    c.i(op.code).i(count);
    for (int64_t d : walk->dims) c.i(d);
    for (size_t k = 0; k < 3; ++k)
        for (size_t d = 0; d < 6; ++d) c.i(k < operands.size() ? walk->strides[k][d] : 0);
    for (size_t k = 0; k < 3; ++k) c.i(k < operands.size() ? elementCode(operands[k].type) : 0);
    c.i(elementCode(s.outputTypes[0])).i(op.floatMath).f(op.alpha).f(op.beta).i(op.flag).i(op.k).i(op.rows).i(op.cols);
    Dispatch d{wide ? "typed64" : "typed", c.take(), {TensorRef::output(0)}, flatGroups(uint64_t(count), 64)};
    for (const Operand& o : operands) d.bindings.push_back(o.ref);
    return d;
}

/// typed.comp over output 0 with the given inputs as operands A, B, C.
std::optional<NodeProgram> typedProgram(const NodeShapes& s, const std::vector<size_t>& inputs, const TypedOp& op) {
    std::vector<Operand> operands;
    for (size_t i : inputs) {
        if (!s.hasInput(i)) return std::nullopt;
        operands.push_back({TensorRef::input(int(i)), s.inputDims[i], s.inputTypes[i]});
    }
    auto d = typedDispatch(s, operands, op);
    if (!d && s.hasOutput(0) && !s.device.int64 && needsWide(s, operands, op))
        return declineBecause("64-bit and uint32 integer math needs a device with shaderInt64: it runs on the CPU");
    if (!d) return std::nullopt;
    const bool inPlace = !inputs.empty() && inputs[0] == 0 && s.inputDims[0] == s.outputDims[0] &&
                         elementSize(s.inputTypes[0]) == elementSize(s.outputTypes[0]);
    return NodeProgram{"vulkan:typed", {*d}, inPlace};
}

bool isFloat(DType t) { return t == DType::Float; }
bool isIntegral(DType t) { return elementCode(t) > 0; }
bool isUnsigned(DType t) { return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64; }

std::optional<NodeProgram> floatMath(const NodeShapes& s) {
    static const std::pair<const char*, Code> ops[] = {
        {"Acos", Acos}, {"Acosh", Acosh}, {"Asin", Asin}, {"Asinh", Asinh}, {"Atan", Atan}, {"Atanh", Atanh},
        {"Cosh", Cosh}, {"Sinh", Sinh}, {"Tan", Tan}, {"IsNaN", IsNaN}, {"IsInf", IsInf}, {"Shrink", Shrink}};
    const auto row = std::find_if(std::begin(ops), std::end(ops), [&](const auto& r) { return s.node.opType == r.first; });
    if (row == std::end(ops) || !s.floatInput(0)) return std::nullopt;
    TypedOp op{row->second, true};
    const Attributes& a = s.attributes();
    if (op.code == IsInf) {
        op.alpha = float(a.getInt("detect_negative", 1));
        op.beta = float(a.getInt("detect_positive", 1));
    }
    if (op.code == Shrink) {
        op.alpha = a.getFloat("lambd", 0.5f);
        op.beta = a.getFloat("bias", 0.0f);
    }
    return typedProgram(s, {0}, op);
}

/// Not on bool; Neg, Abs and Sign on integers (the float ones are unary activations).
std::optional<NodeProgram> intUnary(const NodeShapes& s) {
    const std::string& name = s.node.opType;
    if (!s.hasInput(0)) return std::nullopt;
    if (name == "Not") return s.inputTypes[0] == DType::Bool ? typedProgram(s, {0}, {Not}) : std::nullopt;
    if (!isIntegral(s.inputTypes[0]) || s.inputTypes[0] == DType::Bool) return std::nullopt;
    return typedProgram(s, {0}, {name == "Neg" ? Neg : name == "Abs" ? Abs : Sign});
}

std::optional<NodeProgram> compare(const NodeShapes& s) {
    static const std::pair<const char*, Code> ops[] = {{"Equal", Equal}, {"Less", Less}, {"Greater", Greater},
                                                       {"LessOrEqual", LessOrEqual}, {"GreaterOrEqual", GreaterOrEqual}};
    const auto row = std::find_if(std::begin(ops), std::end(ops), [&](const auto& r) { return s.node.opType == r.first; });
    if (row == std::end(ops) || s.inputTypes.size() != 2 || s.inputTypes[0] != s.inputTypes[1]) return std::nullopt;
    // 8/16-bit values compare right as 32-bit ints; uint32 has its own compare; 64-bit ones compare
    // over both words (uint64 unsigned).
    return typedProgram(s, {0, 1}, {row->second, isFloat(s.inputTypes[0])});
}

std::optional<NodeProgram> logic(const NodeShapes& s) {
    const std::string& name = s.node.opType;
    if (s.inputTypes.size() != 2 || s.inputTypes[0] != DType::Bool || s.inputTypes[1] != DType::Bool) return std::nullopt;
    return typedProgram(s, {0, 1}, {name == "And" ? And : name == "Or" ? Or : Xor});
}

std::optional<NodeProgram> mod(const NodeShapes& s) {
    if (s.inputTypes.size() != 2 || s.inputTypes[0] != s.inputTypes[1]) return std::nullopt;
    const int fmod = int(s.attributes().getInt("fmod", 0));
    if (isFloat(s.inputTypes[0])) return fmod ? typedProgram(s, {0, 1}, {Mod, true, 0, 0, 1}) : std::nullopt;
    if (!isIntegral(s.inputTypes[0]) || s.inputTypes[0] == DType::Bool) return std::nullopt;
    return typedProgram(s, {0, 1}, {Mod, false, 0, 0, fmod});
}

std::optional<NodeProgram> bitShift(const NodeShapes& s) {
    if (s.inputTypes.size() != 2 || s.inputTypes[0] != s.inputTypes[1] || !isUnsigned(s.inputTypes[0])) return std::nullopt;
    const std::string direction = s.attributes().getString("direction", "");
    if (direction != "LEFT" && direction != "RIGHT") return std::nullopt;
    // uint64 (and uint32) shifts run in typed64.comp.
    return typedProgram(s, {0, 1}, {BitShift, false, 0, 0, direction == "RIGHT"});
}

/// Add, Sub, Mul, Div, Max, Min on integer tensors (float ones are binary.comp's).
std::optional<NodeProgram> intArithmetic(const NodeShapes& s) {
    static const std::pair<const char*, Code> ops[] = {{"Add", Add}, {"Sub", Sub}, {"Mul", Mul}, {"Div", Div},
                                                       {"Max", Max}, {"Min", Min}};
    const auto row = std::find_if(std::begin(ops), std::end(ops), [&](const auto& r) { return s.node.opType == r.first; });
    if (row == std::end(ops) || s.inputTypes.size() != 2 || s.inputTypes[0] != s.inputTypes[1]) return std::nullopt;
    const DType t = s.inputTypes[0];
    if (!isIntegral(t) || t == DType::Bool) return std::nullopt;
    return typedProgram(s, {0, 1}, {row->second});
}

std::optional<NodeProgram> cast(const NodeShapes& s) {
    if (!s.hasInput(0) || !s.hasOutput(0)) return std::nullopt;
    const DType from = s.inputTypes[0], to = s.outputTypes[0];
    if (elementCode(from) < 0 || elementCode(to) < 0) return std::nullopt;
    if (s.node.opType == "Cast" && s.attributes().has("to") && dtypeFromOnnx(int32_t(s.attributes().getInt("to", 0))) != to)
        return std::nullopt;
    if (from == to) return typedProgram(s, {0}, {Move});
    // Float to unsigned 32/64-bit goes through a 32-bit signed int: leave those to the CPU.
    if (isFloat(from) && (to == DType::UInt32 || to == DType::UInt64)) return std::nullopt;
    // To bool from 64-bit integers as floats: the int path would see only the low word (2^32 is true).
    const bool wideToBool = to == DType::Bool && elementSize(from) == 8;
    // Between integers the 32-bit path is exact except into a 64-bit type from another 64-bit one or
    // from uint32 (it would sign-extend the low word); 64-bit integers to float32 round once there.
    if (isIntegral(from) && from != DType::Bool && (isIntegral(to) || (isFloat(to) && s.device.int64))) {
        const bool into64 = to != DType::Bool && elementSize(to) == 8 && (elementSize(from) == 8 || from == DType::UInt32);
        if (into64 || (isFloat(to) && elementSize(from) == 8)) {
            TypedOp op{Cast};
            op.wide = true;
            return typedProgram(s, {0}, op);
        }
    }
    return typedProgram(s, {0}, {Cast, isFloat(from) || isFloat(to) || wideToBool});
}

std::optional<NodeProgram> where(const NodeShapes& s) {
    if (s.inputTypes.size() != 3 || s.inputTypes[0] != DType::Bool || s.inputTypes[1] != s.inputTypes[2] ||
        s.inputTypes[1] != s.outputTypes.at(0))
        return std::nullopt;
    return typedProgram(s, {0, 1, 2}, {Where});
}

std::optional<NodeProgram> trilu(const NodeShapes& s) {
    const auto& y = s.outputDims.at(0);
    if (y.size() < 2 || !s.hasInput(0) || s.inputDims[0] != y || s.inputTypes[0] != s.outputTypes[0]) return std::nullopt;
    TypedOp op{Trilu};
    op.flag = int(s.attributes().getInt("upper", 1)) != 0;
    op.rows = y[y.size() - 2];
    op.cols = y.back();
    std::vector<Operand> operands{{TensorRef::input(0), s.inputDims[0], s.inputTypes[0]}};
    if (s.hasInput(1)) {
        if (numel(s.inputDims[1]) != 1 || (s.inputTypes[1] != DType::Int64 && s.inputTypes[1] != DType::Int32)) return std::nullopt;
        if (s.constants[1]) {
            const double k = s.constants[1]->toDoubles()[0];
            op.k = int(std::clamp<double>(k, -(1 << 30), 1 << 30));
        } else {  // k known at run time: the shader reads it (values past 32 bits are out of any matrix)
            op.flag |= 2;
            operands.push_back({TensorRef::input(1), {}, s.inputTypes[1]});
        }
    }
    auto d = typedDispatch(s, operands, op);
    if (!d) return std::nullopt;
    return NodeProgram{"vulkan:typed", {*d}, true};
}

/// Clip of integers, or of floats with bounds known only at run time (the float Clip with constant
/// bounds is a unary activation): the bounds are broadcast operands.
std::optional<NodeProgram> clip(const NodeShapes& s) {
    if (s.opset < 11 || !s.hasInput(0) || s.inputTypes[0] != s.outputTypes.at(0)) return std::nullopt;
    const DType t = s.inputTypes[0];
    if (!isFloat(t) && (!isIntegral(t) || t == DType::Bool)) return std::nullopt;
    std::vector<Operand> operands{{TensorRef::input(0), s.inputDims[0], t}};
    TypedOp op{Clip, isFloat(t)};
    for (size_t i = 1; i <= 2; ++i) {
        if (!s.hasInput(i)) {
            operands.push_back({TensorRef::none(), {}, t});
            continue;
        }
        if (s.inputTypes[i] != t || numel(s.inputDims[i]) != 1) return std::nullopt;
        operands.push_back({TensorRef::input(int(i)), {}, t});
        op.flag |= int(i);
    }
    auto d = typedDispatch(s, operands, op);
    if (!d) return std::nullopt;
    return NodeProgram{"vulkan:typed", {*d}, true};
}

/// Sum and Mean, and Max and Min of other than two float inputs: a chain of dispatches accumulating in
/// the output, Mean scaled at the end.
std::optional<NodeProgram> variadic(const NodeShapes& s) {
    const std::string& name = s.node.opType;
    const size_t n = s.inputTypes.size();
    if (n == 0 || !s.hasOutput(0)) return std::nullopt;
    const DType t = s.outputTypes[0];
    for (size_t i = 0; i < n; ++i)
        if (!s.hasInput(i) || s.inputTypes[i] != t) return std::nullopt;
    const bool floats = isFloat(t);
    if (!floats && (name == "Mean" || !isIntegral(t) || t == DType::Bool)) return std::nullopt;
    const Code code = name == "Max" ? Max : name == "Min" ? Min : Add;
    NodeProgram program{"vulkan:typed-chain", {}};
    const Operand out{TensorRef::output(0), s.outputDims[0], t};
    auto operand = [&](size_t i) { return Operand{TensorRef::input(int(i)), s.inputDims[i], s.inputTypes[i]}; };
    auto first = n == 1 ? typedDispatch(s, {operand(0)}, {Cast, floats}) : typedDispatch(s, {operand(0), operand(1)}, {code, floats});
    if (!first) return std::nullopt;
    program.dispatches.push_back(*first);
    for (size_t i = 2; i < n; ++i) {
        auto next = typedDispatch(s, {out, operand(i)}, {code, floats});
        if (!next) return std::nullopt;
        next->waits = true;
        program.dispatches.push_back(*next);
    }
    if (name == "Mean" && n > 1) {
        auto scale = typedDispatch(s, {out}, {Scale, true, 1.0f / float(n)});
        if (!scale) return std::nullopt;
        scale->waits = true;
        program.dispatches.push_back(*scale);
    }
    return program;
}

/// DequantizeLinear ((x - zero point) * scale) and QuantizeLinear (round half to even, add the zero
/// point, saturate) of 8-bit integers with a scalar or per-axis scale and zero point.
std::optional<NodeProgram> quantizeLinear(const NodeShapes& s) {
    const bool quantize = s.node.opType == "QuantizeLinear";
    if (!s.hasInput(0) || !s.floatInput(1) || !s.hasOutput(0) || s.attributes().getInt("block_size", 0) != 0) return std::nullopt;
    const DType q = quantize ? s.outputTypes[0] : s.inputTypes[0];
    if (q != DType::UInt8 && q != DType::Int8 && (quantize || q != DType::Int32)) return std::nullopt;
    if ((quantize ? !s.floatInput(0) : s.outputTypes[0] != DType::Float) || (s.hasInput(2) && s.inputTypes[2] != q))
        return std::nullopt;
    const auto& x = s.inputDims[0];
    // A per-axis scale (and zero point) broadcasts along `axis`: dims of x's rank, 1 elsewhere.
    auto alongAxis = [&](size_t i) -> std::optional<std::vector<int64_t>> {
        const auto& d = s.inputDims[i];
        if (numel(d) == 1) return std::vector<int64_t>{};
        int64_t axis = s.attributes().getInt("axis", 1);
        if (axis < 0) axis += int64_t(x.size());
        if (d.size() != 1 || axis < 0 || axis >= int64_t(x.size()) || d[0] != x[size_t(axis)]) return std::nullopt;
        std::vector<int64_t> dims(x.size(), 1);
        dims[size_t(axis)] = d[0];
        return dims;
    };
    const auto scaleDims = alongAxis(1);
    if (!scaleDims) return std::nullopt;
    std::vector<Operand> operands{{TensorRef::input(0), x, s.inputTypes[0]}, {TensorRef::input(1), *scaleDims, DType::Float}};
    if (s.hasInput(2)) {
        const auto zeroDims = alongAxis(2);
        if (!zeroDims) return std::nullopt;
        operands.push_back({TensorRef::input(2), *zeroDims, q});
    }
    const float lo = q == DType::UInt8 ? 0.0f : -128.0f, hi = q == DType::UInt8 ? 255.0f : 127.0f;
    auto d = typedDispatch(s, operands, {quantize ? Quantize : Dequantize, true, lo, hi, int(s.hasInput(2))});
    if (!d) return std::nullopt;
    return NodeProgram{quantize ? "vulkan:quantize" : "vulkan:dequantize", {*d}};
}

} // namespace

void registerLogicOps(VulkanOpRegistry& registry) {
    for (const char* op : {"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cosh", "Sinh", "Tan", "IsNaN", "IsInf", "Shrink"})
        registry.add(op, floatMath);
    for (const char* op : {"Not", "Neg", "Abs", "Sign"}) registry.add(op, intUnary);
    for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) registry.add(op, compare);
    for (const char* op : {"And", "Or", "Xor"}) registry.add(op, logic);
    registry.add("Mod", mod);
    registry.add("BitShift", bitShift);
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min"}) registry.add(op, intArithmetic);
    registry.add("Cast", cast);
    registry.add("CastLike", cast);
    registry.add("Where", where);
    registry.add("Trilu", trilu);
    registry.add("Clip", clip);
    for (const char* op : {"Sum", "Mean", "Max", "Min"}) registry.add(op, variadic);
    registry.add("QuantizeLinear", quantizeLinear);
    registry.add("DequantizeLinear", quantizeLinear);
}

} // namespace graphlens::vk
