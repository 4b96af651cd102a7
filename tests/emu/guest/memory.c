/* kernel32 memory and miscellany of the emu/ test image. */
#include <windows.h>
#include "guest.h"

EXPORT void* __cdecl heap_alloc(int size) { return HeapAlloc(GetProcessHeap(), 0, (SIZE_T)size); }

EXPORT int __cdecl heap_free(void* p) { return HeapFree(GetProcessHeap(), 0, p); }

/* Grows p to size, then returns HeapSize of the result (the pointer goes to *out). */
EXPORT int __cdecl heap_grow(void* p, int size, void** out) {
    void* q = HeapReAlloc(GetProcessHeap(), 0, p, (SIZE_T)size);
    *out = q;
    return q ? (int)HeapSize(GetProcessHeap(), 0, q) : -1;
}

/* Fills an allocation with a pattern and reads one byte at offset off (maybe past its end). */
EXPORT int __cdecl fill_and_peek(unsigned char* p, int size, int off) {
    for (int i = 0; i < size; i++) p[i] = (unsigned char)(i + 1);
    return ((volatile unsigned char*)p)[off];
}

/* Global, local and virtual memory: allocates from each, writes, frees; returns a checksum. */
EXPORT int __cdecl other_allocators(void) {
    unsigned char* g = (unsigned char*)GlobalAlloc(GMEM_FIXED | GMEM_ZEROINIT, 100);
    unsigned char* l = (unsigned char*)LocalAlloc(LMEM_FIXED, 50);
    unsigned char* v = (unsigned char*)VirtualAlloc(0, 8192, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    if (!g || !l || !v) return -1;
    g[99] = 1;
    l[49] = 2;
    v[8191] = 3;
    int sum = g[99] + l[49] + v[8191] + (int)(((unsigned)v & 0xfff) == 0) * 100;
    GlobalFree(g);
    LocalFree(l);
    VirtualFree(v, 0, MEM_RELEASE);
    return sum;
}

/* SetLastError / GetLastError round trip. */
EXPORT int __cdecl last_error_roundtrip(int code) {
    SetLastError((DWORD)code);
    return (int)GetLastError();
}

/* Deterministic time: returns GetTickCount delta over two calls, and the frequency's low word. */
EXPORT int __cdecl time_probe(unsigned* ticks, long long* counter, long long* frequency) {
    *ticks = GetTickCount();
    LARGE_INTEGER c, f;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&f);
    *counter = c.QuadPart;
    *frequency = f.QuadPart;
    return 1;
}

EXPORT void __cdecl say(const char* text) { OutputDebugStringA(text); }

EXPORT void __cdecl quit(unsigned code) { ExitProcess(code); }

/* Calls a kernel32 function that has no shim: the run must stop at the trap. */
EXPORT int __cdecl unshimmed(void) { return (int)Beep(440, 10) + 1; }

/* .bss must be zero-filled at load: sums the zero-initialised array, then dirties it. */
static unsigned char scratch[8192];

EXPORT int __cdecl bss_probe(void) {
    int sum = 0;
    for (int i = 0; i < (int)sizeof scratch; i++) {
        sum += scratch[i];
        scratch[i] = 1;
    }
    return sum;
}

/* Fills 1 KiB of its own stack frame: the bytes stay below ESP after it returns. */
EXPORT NOINLINE int __cdecl stack_scribble(int v) {
    volatile int a[256];
    for (int i = 0; i < 256; i++) a[i] = v + i;
    return a[v & 255];
}
