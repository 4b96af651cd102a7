/* msvcrt use of the emu/ test image: the routines call msvcrt.dll's exports through the import
   table (declared here, dllimport, so no CRT header or start-up code comes in). */
#include <stddef.h>
#include "guest.h"

#define CRT __declspec(dllimport) __cdecl
CRT void* malloc(size_t n);
CRT void free(void* p);
CRT void* realloc(void* p, size_t n);
CRT void* memcpy(void* dst, const void* src, size_t n);
CRT void* memset(void* dst, int c, size_t n);
CRT char* strncpy(char* dst, const char* src, size_t n);
CRT size_t strlen(const char* s);
CRT int strcmp(const char* a, const char* b);
CRT void* fopen(const char* path, const char* mode);
CRT size_t fread(void* buf, size_t size, size_t count, void* f);
CRT int fseek(void* f, long offset, int origin);
CRT long ftell(void* f);
CRT int fclose(void* f);
CRT int* _errno(void);
CRT int puts(const char* s);
typedef void(__cdecl* initialiser)(void);
CRT void _initterm(initialiser* begin, initialiser* end);

/* A heap copy of s (malloc + strlen + memcpy); its address. */
EXPORT char* __cdecl crt_copy_string(const char* s) {
    size_t n = strlen(s) + 1;
    char* p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* malloc(n), memset to c, realloc to 2n, free: returns the realloc'd block's first byte + 256 * (the
   old block == the new one). */
EXPORT int __cdecl crt_grow(int n, int c) {
    unsigned char* p = malloc((size_t)n);
    memset(p, c, (size_t)n);
    unsigned char* q = realloc(p, (size_t)n * 2);
    int result = q[0] + 256 * (p == q);
    free(q);
    return result;
}

/* Reads up to cap bytes of path with fopen/fseek/ftell/fread; returns size * 65536 + bytes read,
   or -errno when fopen fails. */
EXPORT int __cdecl crt_read_file(const char* path, char* buf, int cap) {
    void* f = fopen(path, "rb");
    if (!f) return -*_errno();
    fseek(f, 0, 2);
    long size = ftell(f);
    fseek(f, 0, 0);
    size_t got = fread(buf, 1, (size_t)cap, f);
    fclose(f);
    return (int)(size * 65536 + (long)got);
}

/* memcpy(dst, src, n) from guest code (not a tail call: the import is called from here); returns 1. */
EXPORT NOINLINE int __cdecl crt_copy(void* dst, const void* src, int n) {
    memcpy(dst, src, (size_t)n);
    return 1;
}

/* strncpy(dst, src, n): the guest's length, whatever its buffer. */
EXPORT char* __cdecl crt_strncpy(char* dst, const char* src, unsigned n) { return strncpy(dst, src, n); }

/* strcmp of two strings (the sign). */
EXPORT int __cdecl crt_compare(const char* a, const char* b) { return strcmp(a, b); }

/* Calls puts, which emu/ does not shim: the run stops naming msvcrt.dll!puts and this routine. */
EXPORT int __cdecl crt_calls_unshimmed(void) { return puts("not shimmed"); }

static int initialised;
static void __cdecl init_one(void) { initialised += 1; }
static void __cdecl init_ten(void) { initialised += 10; }
static initialiser init_table[] = {init_one, 0, init_ten, init_ten};

/* _initterm over a table with a null entry: returns what the initialisers added (21). */
EXPORT int __cdecl crt_initterm(void) {
    initialised = 0;
    _initterm(init_table, init_table + 4);
    return initialised;
}
