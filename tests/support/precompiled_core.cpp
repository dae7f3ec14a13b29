// The translation unit that builds the suites' precompiled headers (tests/CMakeLists.txt:
// graphlens_test_pch_core and graphlens_test_pch_widgets); it has no code of its own.
