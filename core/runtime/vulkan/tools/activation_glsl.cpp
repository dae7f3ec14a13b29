// Build-time tool: prints the GLSL header the shaders include for the activation table
// (core/graph/activations.def): `#define ACT_<ID> <code>` for every kind and its parameter
// defaults as ACT_<ID>_ALPHA / ACT_<ID>_BETA, so no shader restates a code or a default.
#include "core/graph/activation_kinds.h"

#include <cctype>
#include <cstdio>
#include <string>

namespace {

std::string upper(std::string_view s) {
    std::string out;
    for (char c : s) out += char(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

/// A GLSL float literal that reads back as exactly `v`.
std::string glslFloat(float v) {
    char text[64];
    std::snprintf(text, sizeof text, "%.9g", double(v));
    std::string s = text;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
}

} // namespace

int main(int argc, char** argv) {
    if (argc > 1 && !std::freopen(argv[1], "w", stdout)) return 1;  // the output file, else stdout
    std::printf("// Generated from core/graph/activations.def by activation_glsl; do not edit.\n");
    std::printf("#ifndef GRAPHLENS_ACTIVATION_CODES\n#define GRAPHLENS_ACTIVATION_CODES\n");
    for (const graphlens::ActivationKind& kind : graphlens::kActivationKinds) {
        const std::string id = "ACT_" + upper(kind.name);
        std::printf("#define %s %d\n", id.c_str(), kind.code());
        if (kind.paramCount() > 0) std::printf("#define %s_ALPHA %s\n", id.c_str(), glslFloat(kind.alphaDefault).c_str());
        if (kind.paramCount() > 1) std::printf("#define %s_BETA %s\n", id.c_str(), glslFloat(kind.betaDefault).c_str());
    }
    std::printf("#endif\n");
    return 0;
}
