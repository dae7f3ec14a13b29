// Reference kernels for the text ops: StringNormalizer (stopword removal, case change; ASCII case
// rules, the locale attribute is not read) and TfIdfVectorizer (n-gram counts with skips over
// int32, int64 or string tokens, in TF, IDF or TFIDF mode).
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/neural_net_internal.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace graphlens {
namespace {

std::string lowered(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::vector<std::string> stringsAttribute(const Attributes& a, const char* name) {
    const Attribute* attr = a.find(name);
    return attr && attr->holds<std::vector<std::string>>() ? attr->get<std::vector<std::string>>() : std::vector<std::string>{};
}

void stringNormalizer(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::String) throw KernelError("StringNormalizer takes strings");
    const auto& dims = x.dims();
    if (dims.size() > 2 || (dims.size() == 2 && dims[0] != 1))
        throw KernelError("StringNormalizer takes [C] or [1, C], got " + ref::dimsText(dims));
    const Attributes& a = ctx.attributes();
    const std::string action = a.getString("case_change_action", "NONE");
    if (action != "NONE" && action != "LOWER" && action != "UPPER")
        throw KernelError("case_change_action is '" + action + "'; it must be NONE, LOWER or UPPER");
    const bool caseSensitive = a.getInt("is_case_sensitive", 0) != 0;
    std::set<std::string> stopwords;
    for (const std::string& w : stringsAttribute(a, "stopwords")) stopwords.insert(caseSensitive ? w : lowered(w));
    std::vector<std::string> kept;
    for (const std::string& s : x.strings()) {
        if (stopwords.count(caseSensitive ? s : lowered(s))) continue;
        std::string out = s;
        if (action != "NONE")
            std::transform(out.begin(), out.end(), out.begin(), [&](unsigned char c) {
                return char(action == "LOWER" ? std::tolower(c) : std::toupper(c));
            });
        kept.push_back(std::move(out));
    }
    if (kept.empty()) kept.push_back({});  // every string removed: one empty string, as ONNX specifies
    const int64_t n = int64_t(kept.size());
    ctx.setOutput(0, Tensor::fromStrings(dims.size() == 2 ? std::vector<int64_t>{1, n} : std::vector<int64_t>{n}, std::move(kept)));
}

void tfIdfVectorizer(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Attributes& a = ctx.attributes();
    const int64_t minGram = a.getInt("min_gram_length", 1), maxGram = a.getInt("max_gram_length", 1);
    const int64_t maxSkip = a.getInt("max_skip_count", 0);
    const std::string mode = a.getString("mode", "TF");
    if (mode != "TF" && mode != "IDF" && mode != "TFIDF") throw KernelError("mode is '" + mode + "'; it must be TF, IDF or TFIDF");
    if (minGram < 1 || maxGram < minGram || maxSkip < 0)
        throw KernelError("min_gram_length, max_gram_length and max_skip_count are inconsistent");
    const std::vector<int64_t> counts = a.getInts("ngram_counts"), indexes = a.getInts("ngram_indexes");
    std::vector<float> weights;
    if (const Attribute* w = a.find("weights"); w && w->holds<std::vector<float>>()) weights = w->get<std::vector<float>>();
    // Tokens as strings, for int and string inputs alike.
    std::vector<std::string> pool = stringsAttribute(a, "pool_strings");
    if (pool.empty())
        for (int64_t v : a.getInts("pool_int64s")) pool.push_back(std::to_string(v));
    std::vector<std::string> tokens;
    if (x.dtype() == DType::String) tokens = x.strings();
    else
        for (int64_t v : ref::toInt64s(x)) tokens.push_back(std::to_string(v));
    // The pool's n-grams, in order, each to its output column.
    std::map<std::vector<std::string>, int64_t> columnOf;
    int64_t ordinal = 0;
    for (size_t level = 0; level < counts.size(); ++level) {
        const int64_t n = int64_t(level) + 1;
        const int64_t begin = counts[level], end = level + 1 < counts.size() ? counts[level + 1] : int64_t(pool.size());
        if (begin < 0 || end > int64_t(pool.size()) || end < begin || (end - begin) % n != 0)
            throw KernelError("ngram_counts does not split the pool into whole n-grams");
        for (int64_t p = begin; p < end; p += n, ++ordinal) {
            if (ordinal >= int64_t(indexes.size())) throw KernelError("ngram_indexes is shorter than the pool's n-grams");
            columnOf[std::vector<std::string>(pool.begin() + p, pool.begin() + p + n)] = indexes[size_t(ordinal)];
        }
    }
    for (int64_t index : indexes)
        if (index < 0 || index >= (int64_t(1) << 24))
            throw KernelError("ngram_indexes holds " + std::to_string(index) + "; output columns run from 0 to 2^24");
    const int64_t width = indexes.empty() ? 0 : *std::max_element(indexes.begin(), indexes.end()) + 1;
    const auto& dims = x.dims();
    if (dims.size() != 1 && dims.size() != 2) throw KernelError("TfIdfVectorizer takes [C] or [N, C]");
    const int64_t rows = dims.size() == 2 ? dims[0] : 1, cols = dims.back();
    // No n-gram is longer than the pool's longest or the row, and no skip spans more than the row
    // (fuzzing: a max_gram_length of 2^62 looped for as long).
    const int64_t longest = std::min<int64_t>({maxGram, int64_t(counts.size()), cols});
    const int64_t widestSkip = std::min<int64_t>(maxSkip, cols);
    std::vector<double> y(size_t(rows * width), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        const auto row = tokens.begin() + r * cols;
        for (int64_t n = minGram; n <= longest; ++n)
            for (int64_t skip = 0; skip <= (n == 1 ? 0 : widestSkip); ++skip)
                for (int64_t start = 0; start + (n - 1) * (skip + 1) < cols; ++start) {
                    std::vector<std::string> gram;
                    for (int64_t k = 0; k < n; ++k) gram.push_back(row[start + k * (skip + 1)]);
                    if (auto it = columnOf.find(gram); it != columnOf.end()) y[size_t(r * width + it->second)] += 1.0;
                }
    }
    for (size_t i = 0; i < y.size(); ++i) {
        const size_t column = i % size_t(std::max<int64_t>(width, 1));
        const double w = column < weights.size() ? weights[column] : 1.0;
        if (mode == "IDF") y[i] = y[i] > 0 ? w : 0.0;
        else if (mode == "TFIDF") y[i] *= w;
    }
    ctx.setOutput(0, nn::tensorOfDoubles(DType::Float, dims.size() == 2 ? std::vector<int64_t>{rows, width} : std::vector<int64_t>{width}, y));
}

} // namespace

void registerTextKernels(KernelRegistry& registry) {
    registry.add("StringNormalizer", stringNormalizer);
    registry.add("TfIdfVectorizer", tfIdfVectorizer);
}

} // namespace graphlens
