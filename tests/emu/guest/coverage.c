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

/* Some 200 blocks: more covered starts than the machine keeps hooks for (its cap is 64). Each bit
   of x picks one side of a branch, so calls with different x cover different blocks. */
#define COVER_STEP(k)                                                                                        \
    do {                                                                                                     \
        if (x & (1u << ((k) % 32)))                                                                          \
            acc = acc * 3 + (k);                                                                             \
        else                                                                                                 \
            acc ^= (k)*5;                                                                                    \
    } while (0)
#define COVER_TEN(k)                                                                                         \
    do {                                                                                                     \
        COVER_STEP(k);                                                                                       \
        COVER_STEP(k + 1);                                                                                   \
        COVER_STEP(k + 2);                                                                                   \
        COVER_STEP(k + 3);                                                                                   \
        COVER_STEP(k + 4);                                                                                   \
        COVER_STEP(k + 5);                                                                                   \
        COVER_STEP(k + 6);                                                                                   \
        COVER_STEP(k + 7);                                                                                   \
        COVER_STEP(k + 8);                                                                                   \
        COVER_STEP(k + 9);                                                                                   \
    } while (0)
EXPORT int __cdecl cover_many(unsigned x) {
    volatile int acc = 1;
    COVER_TEN(0);
    COVER_TEN(10);
    COVER_TEN(20);
    COVER_TEN(30);
    COVER_TEN(40);
    COVER_TEN(50);
    COVER_TEN(60);
    COVER_TEN(70);
    COVER_TEN(80);
    COVER_TEN(90);
    return acc;
}
