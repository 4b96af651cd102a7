// Linked into every test executable (emu, fixture, harness, cli; tools/refcheck/main.cpp and
// fuzz/pe_load.cpp carry their own). Unicorn 2.1.1 itself leaks one 32-byte allocation per engine
// (uc_open + uc_close of an empty engine shows it). LeakSanitizer reads this hook at exit; it only
// matters under -DREFCHECK_SANITIZE=ON and only suppresses leaks allocated inside libunicorn.
// NOLINTNEXTLINE(bugprone-reserved-identifier,readability-identifier-naming): the name LSan looks up
extern "C" const char* __lsan_default_suppressions() { return "leak:libunicorn.so\n"; }
