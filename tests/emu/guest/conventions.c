/* Calling conventions of the emu/ test image. Each routine weighs its arguments differently so
   that a swapped or missing argument changes the result. */
#include "guest.h"

/* Not inlined: call_add3 calls it, so hooks on it are observable. */
EXPORT NOINLINE int __cdecl add3_cdecl(int a, int b, int c) { return a + 2 * b + 3 * c; }

EXPORT int __stdcall add3_stdcall(int a, int b, int c) { return a + 2 * b + 3 * c; }

/* ECX = a, EDX = b, stack: c, d (callee pops 8 bytes). */
EXPORT int __fastcall add4_fastcall(int a, int b, int c, int d) { return a + 2 * b + 3 * c + 4 * d; }

/* Returns in EDX:EAX. */
EXPORT long long __cdecl mul64_cdecl(int a, int b) { return (long long)a * (long long)b; }

int __cdecl watcall_body(int a, int b, int c, int d, int e, int f) {
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

/* Watcom register convention: EAX, EDX, EBX, ECX, then the stack (e, f); the callee pops the
   stack arguments and preserves every register but EAX. The thunk also scribbles on ESI and EDI
   (restoring them) so that a wrong register assumption in the caller shows up. */
EXPORT __attribute__((naked)) void sum6_watcall(void) {
    __asm__ volatile("pushl %ebp\n\t"
                     "movl %esp, %ebp\n\t"
                     "pushl %ecx\n\t"
                     "pushl %edx\n\t"
                     "pushl %ebx\n\t"
                     "pushl %esi\n\t"
                     "pushl %edi\n\t"
                     "pushl 12(%ebp)\n\t" /* f */
                     "pushl 8(%ebp)\n\t"  /* e */
                     "pushl %ecx\n\t"     /* d */
                     "pushl %ebx\n\t"     /* c */
                     "pushl %edx\n\t"     /* b */
                     "pushl %eax\n\t"     /* a */
                     "movl $0x5151, %esi\n\t"
                     "movl $0xd1d1, %edi\n\t"
                     "call _watcall_body\n\t"
                     "addl $24, %esp\n\t"
                     "popl %edi\n\t"
                     "popl %esi\n\t"
                     "popl %ebx\n\t"
                     "popl %edx\n\t"
                     "popl %ecx\n\t"
                     "popl %ebp\n\t"
                     "ret $8\n\t");
}

/* A table of absolute pointers: correct only if base relocations were applied. */
static const char* const names[] = {"alpha", "beta", "gamma"};
static int counters[3] = {10, 20, 30};
static int* const counter_ptrs[] = {&counters[0], &counters[1], &counters[2]};

EXPORT const char* __cdecl name_at(int i) { return names[i]; }

EXPORT int __cdecl bump_counter(int i) { return ++*counter_ptrs[i]; }

/* Calls another routine through a direct call, so a tap or replace on add3_cdecl is observable. */
EXPORT int __cdecl call_add3(int a) { return add3_cdecl(a, a, a) + 1; }
