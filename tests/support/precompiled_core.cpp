// The translation unit that builds the core suites' precompiled header (tests/CMakeLists.txt:
// graphlens_test_pch_core); it has no code of its own.
