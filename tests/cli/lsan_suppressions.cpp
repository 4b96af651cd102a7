// Unicorn 2.1.1 leaks one 32-byte allocation per engine (see tests/emu/lsan_suppressions.cpp); the
// seeded-fault tests load the stand-in into an emu::Machine. Only read under -DREFCHECK_SANITIZE=ON.
extern "C" const char* __lsan_default_suppressions() { return "leak:libunicorn.so\n"; }
