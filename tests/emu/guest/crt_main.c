/* A program built like a retail image: mingw's C runtime start-up (mainCRTStartup) against
   msvcrt.dll, stdio and malloc, no exports, symbols stripped (-s), an image base above the
   default heap's start. Its exit status is the sum of DATA\INPUT.BIN's bytes plus argc; 250 when
   the file does not open, 251 when malloc fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
