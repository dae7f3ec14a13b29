// Tensor comparison with ONNX backend-test tolerances.
#include "core/runtime/tensor_compare.h"

#include "core/graph/shape.h"

#include <cmath>
#include <sstream>

namespace graphlens {

TensorComparison compareTensors(const Tensor& got, const Tensor& expected, double rtol, double atol) {
    TensorComparison c;
    // Sequences and optionals: the same kind and count, then element by element.
    const auto kind = [](const Tensor& t) { return t.isSequence() ? "a sequence" : t.isOptional() ? "an optional" : "a tensor"; };
    if (got.isSequence() != expected.isSequence() || got.isOptional() != expected.isOptional()) {
        c.mismatch = std::string(kind(got)) + " instead of " + kind(expected);
        return c;
    }
    if (got.isSequence() || got.isOptional()) {
        const auto& a = got.elements();
        const auto& e = expected.elements();
        if (a.size() != e.size()) {
            c.mismatch = got.isOptional() ? (a.empty() ? "no value instead of one" : "a value instead of none")
                                          : std::to_string(a.size()) + " elements instead of " + std::to_string(e.size());
            return c;
        }
        c.matches = true;
        for (size_t i = 0; i < a.size(); ++i) {
            TensorComparison element = compareTensors(a[i], e[i], rtol, atol);
            c.maxAbsError = std::max(c.maxAbsError, element.maxAbsError);
            c.maxRelError = std::max(c.maxRelError, element.maxRelError);
            if (!element.matches) {
                c.matches = false;
                c.mismatch = (got.isSequence() ? "element " + std::to_string(i) + ": " : "its value: ") + element.mismatch;
                return c;
            }
        }
        return c;
    }
    if (got.dtype() != expected.dtype()) {
        c.mismatch = "type " + std::string(dtypeName(got.dtype())) + " instead of " +
                     std::string(dtypeName(expected.dtype()));
        return c;
    }
    if (got.dims() != expected.dims()) {
        c.mismatch = "shape " + Shape::ofSizes(got.dims()).toString() + " instead of " +
                     Shape::ofSizes(expected.dims()).toString();
        return c;
    }
    if (got.dtype() == DType::String) {
        c.matches = got.strings() == expected.strings();
        if (!c.matches) c.mismatch = "the strings differ";
        return c;
    }
    const std::vector<double> a = got.toDoubles();
    const std::vector<double> e = expected.toDoubles();
    if (a.size() != e.size()) {
        c.mismatch = "elements of type " + std::string(dtypeName(got.dtype())) + " cannot be compared";
        return c;
    }
    const bool exact = !isFloatingPoint(got.dtype());
    c.matches = true;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) && std::isnan(e[i])) continue;
        if (std::isinf(e[i]) && a[i] == e[i]) continue;
        const double diff = std::fabs(a[i] - e[i]);
        c.maxAbsError = std::max(c.maxAbsError, diff);
        // Elements within atol of zero are judged by atol alone; their ratio says nothing.
        if (std::fabs(e[i]) > atol && e[i] != 0) c.maxRelError = std::max(c.maxRelError, diff / std::fabs(e[i]));
        const bool ok = exact ? diff == 0 : diff <= atol + rtol * std::fabs(e[i]);
        if (!ok && c.matches) {
            c.matches = false;
            std::ostringstream s;
            s.precision(9);
            s << "element " << i << " is " << a[i] << ", expected " << e[i];
            c.mismatch = s.str();
        }
    }
    return c;
}

} // namespace graphlens
