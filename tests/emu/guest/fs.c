/* FS of the emu/ test image: the TEB as CRT start-up and SEH prologs read it. */
#include "guest.h"

/* fs:[0x18], the TEB's own address. */
EXPORT unsigned __cdecl fs_teb_self(void) {
    unsigned v;
    __asm__ volatile("movl %%fs:0x18, %0" : "=r"(v));
    return v;
}

/* fs:[0x30] -> PEB.ImageBaseAddress (PEB + 8). */
EXPORT unsigned __cdecl fs_image_base(void) {
    unsigned peb;
    __asm__ volatile("movl %%fs:0x30, %0" : "=r"(peb));
    return *(volatile unsigned*)(peb + 8);
}

/* fs:[4], the TEB's StackBase (the top of the stack). */
EXPORT unsigned __cdecl fs_stack_base(void) {
    unsigned v;
    __asm__ volatile("movl %%fs:4, %0" : "=r"(v));
    return v;
}

static int __cdecl handler(void) { return 1; }

/* An SEH prolog and epilog by hand: pushes a registration record on fs:[0], reads it back, pops
   it. Returns 1 when the chain started at its end (0xffffffff) and fs:[0] held the record. */
EXPORT int __cdecl fs_seh_frame(void) {
    unsigned old, now;
    struct {
        unsigned next;
        void* handler;
    } volatile frame;
    __asm__ volatile("movl %%fs:0, %0" : "=r"(old));
    frame.next = old;
    frame.handler = (void*)handler;
    __asm__ volatile("movl %0, %%fs:0" : : "r"(&frame) : "memory");
    __asm__ volatile("movl %%fs:0, %0" : "=r"(now));
    __asm__ volatile("movl %0, %%fs:0" : : "r"(old) : "memory");
    return old == 0xffffffffu && now == (unsigned)&frame;
}
