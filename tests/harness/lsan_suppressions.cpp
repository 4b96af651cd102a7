// Unicorn 2.1.1 itself leaks one 32-byte allocation per engine (see tests/emu/lsan_suppressions.cpp);
// call_test and coverage_test open engines. Only matters under -DREFCHECK_SANITIZE=ON.
extern "C" const char* __lsan_default_suppressions() { return "leak:libunicorn.so\n"; }
