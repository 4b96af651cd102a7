/* A program built like a retail image: mingw's C runtime start-up (mainCRTStartup) against
   msvcrt.dll, stdio and malloc, no exports, symbols stripped (-s), an image base above the
   default heap's start. Its exit status is the sum of DATA\INPUT.BIN's bytes plus argc; 250 when
   the file does not open, 251 when malloc fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A C initialiser in the table _initterm runs during start-up (.CRT$XCU, between mingw's __xc_a
   and __xc_z): crt_started() says whether start-up ran. Read by the boot-mode test, which stops
   the start-up at main and then calls crt_started and main on their own. */
static int started;
static void crt_initialiser(void) { started = 1998; }
__attribute__((section(".CRT$XCU"), used)) static void (*const crt_initialiser_entry)(void) = crt_initialiser;

int crt_started(void) { return started; }

int main(int argc, char** argv) {
    FILE* f = fopen("DATA\\INPUT.BIN", "rb");
    if (!f) return 250;
    unsigned char* buf = malloc(256);
    if (!buf) return 251;
    size_t n = fread(buf, 1, 256, f);
    fclose(f);
    int sum = argc + (strlen(argv[0]) > 0 ? 0 : 1000);
    for (size_t i = 0; i < n; ++i) sum += buf[i];
    free(buf);
    return sum;
}
