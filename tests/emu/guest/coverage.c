/* Routines for coverage across calls (tests/emu/test_coverage_trace.cpp): a branch taken only when
   asked, so a later call runs blocks an earlier one did not. */
#include "guest.h"

EXPORT NOINLINE int __cdecl cover_branch(int x) {
    volatile int r = 1;
    if (x == 7) {
        r = r * 3 + x;
        r ^= 0x55;
    }
    return r;
}

/* Calls cover_branch n times with 0 and then once with x: hot blocks, then a cold one. */
EXPORT int __cdecl cover_loop(int n, int x) {
    int sum = 0;
    for (int i = 0; i < n; ++i) sum += cover_branch(0);
    return sum + cover_branch(x);
}
