/* Store-heavy and load-heavy loops: built into the emu/ test image AND natively into emu_bench,
   so the benchmark compares the same C code emulated and native. No Windows headers. */
#ifdef __MINGW32__
#define BENCH_EXPORT __declspec(dllexport)
#else
#define BENCH_EXPORT
/* NOLINTNEXTLINE(bugprone-reserved-identifier): the Windows keyword, empty in the native build */
#define __cdecl
#endif

/* Writes reps passes over buf[0..n) (byte stores). Returns the last byte written. */
BENCH_EXPORT __attribute__((noinline)) int __cdecl store_loop(unsigned char* buf, int n, int reps) {
    unsigned v = 0;
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < n; i++) {
            v = v * 5 + 1;
            buf[i] = (unsigned char)v;
        }
    return buf[n - 1];
}

/* Sums reps passes over buf[0..n) (byte loads). */
BENCH_EXPORT __attribute__((noinline)) int __cdecl load_loop(const unsigned char* buf, int n, int reps) {
    unsigned sum = 0;
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < n; i++) sum = sum * 3 + buf[i];
    return (int)sum;
}
