// Unicorn 2.1.1 itself leaks one 32-byte allocation per engine (uc_open + uc_close of an empty
// engine shows it). LeakSanitizer reads this hook at exit; it only matters under
// -DREFCHECK_SANITIZE=ON and only suppresses leaks allocated inside libunicorn.
extern "C" const char* __lsan_default_suppressions() { return "leak:libunicorn.so\n"; }
