/* Entry point of the emu/ test image. The machine never runs it: routines are called one by one. */
#include "guest.h"

int __stdcall guest_entry(void) { return 0; }
