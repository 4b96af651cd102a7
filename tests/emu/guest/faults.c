/* Routines of the emu/ test image that fault. The data faults are written in assembly so that
   the faulting instruction sits in the middle of a basic block at a known label (a COFF symbol
   the tests look up): Unicorn reports the block start for these unless the machine finds the
   exact instruction. */
#include "guest.h"

/* Reads 0x00000010 (unmapped) as the third instruction of its block. */
EXPORT __attribute__((naked)) int fault_read_unmapped(void) {
    __asm__ volatile("movl $1, %eax\n\t"
                     "addl $2, %eax\n\t"
                     ".globl _fault_read_insn\n"
                     "_fault_read_insn:\n\t"
                     "movl 0x10, %ecx\n\t"
                     "addl %ecx, %eax\n\t"
                     "ret\n\t");
}

/* Writes through EDX = 0x00000020 (unmapped) after two harmless stores to the stack. */
EXPORT __attribute__((naked)) int fault_write_unmapped(void) {
    __asm__ volatile("movl $0x20, %edx\n\t"
                     "movl $7, -4(%esp)\n\t"
                     "movl $8, -8(%esp)\n\t"
                     ".globl _fault_write_insn\n"
                     "_fault_write_insn:\n\t"
                     "movl $9, (%edx)\n\t"
                     "movl $1, %eax\n\t"
                     "ret\n\t");
}

static const int read_only_table[4] = {1, 2, 3, 4};

/* Writes into .rdata (mapped read-only): a protection fault. */
EXPORT int __cdecl fault_write_readonly(int i) {
    ((volatile int*)read_only_table)[i] = 5;
    return read_only_table[i];
}

/* Calls through a pointer to unmapped memory. */
EXPORT int __cdecl fault_fetch_unmapped(void) {
    int (*volatile target)(void) = (int (*)(void))0x00000100;
    return target() + 1;
}

EXPORT int __cdecl fault_invalid_instruction(void) { __builtin_trap(); /* ud2 */ }

EXPORT int __cdecl fault_divide(int a, int b) { return a / b; }

EXPORT int __cdecl fault_breakpoint(void) {
    __asm__ volatile("int3");
    return 3;
}

/* Never returns: for the instruction budget and the wall-clock limit. */
EXPORT int __cdecl spin_forever(void) {
    volatile int x = 0;
    for (;;) x++;
}

/* Deep recursion through a frame-pointer chain, faulting at the bottom: for the call stack. */
NOINLINE __attribute__((optimize("no-omit-frame-pointer", "no-optimize-sibling-calls"))) int
recurse_then_fault(int depth) {
    if (depth == 0) {
        volatile int* volatile bad = (volatile int*)0x30;
        return *bad;
    }
    return recurse_then_fault(depth - 1) + 1;
}

EXPORT __attribute__((optimize("no-omit-frame-pointer"))) int fault_deep(int depth) {
    return recurse_then_fault(depth) + 1;
}

/* Executes from .data (mapped read/write, not executable). */
static unsigned char not_code[16] = {0xc3};

EXPORT int __cdecl fault_fetch_data(void) {
    int (*volatile target)(void) = (int (*)(void))not_code;
    return target();
}

EXPORT int __cdecl fault_halt(void) {
    __asm__ volatile("hlt");
    return 1;
}

EXPORT int __cdecl fault_interrupt(void) {
    __asm__ volatile("int $0x2e");
    return 1;
}
