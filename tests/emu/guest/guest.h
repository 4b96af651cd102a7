/* Shared declarations of the emu/ test image (freestanding, i686-w64-mingw32 only). */
#ifndef REFCHECK_EMU_GUEST_H
#define REFCHECK_EMU_GUEST_H

#define EXPORT __declspec(dllexport)
#define NOINLINE __attribute__((noinline))

#endif
