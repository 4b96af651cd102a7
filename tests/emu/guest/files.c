/* kernel32 file access of the emu/ test image. */
#include <windows.h>
#include "guest.h"

/* Reads up to cap bytes of path into buf; returns the count, or -(GetLastError()) on failure. */
EXPORT int __cdecl read_file(const char* path, char* buf, int cap) {
    HANDLE h = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, 0, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, 0);
    if (h == INVALID_HANDLE_VALUE) return -(int)GetLastError();
    DWORD got = 0;
    BOOL ok = ReadFile(h, buf, (DWORD)cap, &got, 0);
    CloseHandle(h);
    return ok ? (int)got : -(int)GetLastError();
}

/* Size via GetFileSize, then the last byte via SetFilePointer(FILE_END) + ReadFile:
   returns size * 256 + last byte, or -(GetLastError()). */
EXPORT int __cdecl size_and_last_byte(const char* path) {
    HANDLE h = CreateFileA(path, GENERIC_READ, 0, 0, OPEN_EXISTING, 0, 0);
    if (h == INVALID_HANDLE_VALUE) return -(int)GetLastError();
    DWORD size = GetFileSize(h, 0);
    unsigned char last = 0;
    DWORD got = 0;
    SetFilePointer(h, -1, 0, FILE_END);
    ReadFile(h, &last, 1, &got, 0);
    CloseHandle(h);
    return (int)(size * 256 + last);
}

/* Creates (or truncates) path and writes n bytes; returns the count written or -(GetLastError()). */
EXPORT int __cdecl write_file(const char* path, const char* data, int n) {
    HANDLE h = CreateFileA(path, GENERIC_WRITE, 0, 0, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, 0);
    if (h == INVALID_HANDLE_VALUE) return -(int)GetLastError();
    DWORD put = 0;
    BOOL ok = WriteFile(h, data, (DWORD)n, &put, 0);
    CloseHandle(h);
    return ok ? (int)put : -(int)GetLastError();
}

/* Counts the files matching pattern and copies the first name found into first (260 bytes). */
EXPORT int __cdecl count_files(const char* pattern, char* first) {
    WIN32_FIND_DATAA data;
    HANDLE h = FindFirstFileA(pattern, &data);
    if (h == INVALID_HANDLE_VALUE) return -(int)GetLastError();
    int n = 0;
    do {
        if (n == 0) {
            int i = 0;
            while (data.cFileName[i] && i < 259) {
                first[i] = data.cFileName[i];
                i++;
            }
            first[i] = 0;
        }
        n++;
    } while (FindNextFileA(h, &data));
    FindClose(h);
    return n;
}

/* Opens path for reading and leaves it open: the handle, or -(GetLastError()). */
EXPORT int __cdecl open_for_reading(const char* path) {
    HANDLE h = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, 0, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, 0);
    return h == INVALID_HANDLE_VALUE ? -(int)GetLastError() : (int)(INT_PTR)h;
}

/* The next byte of an open handle, or -1 at its end. */
EXPORT int __cdecl next_byte(int handle) {
    unsigned char b = 0;
    DWORD got = 0;
    if (!ReadFile((HANDLE)(INT_PTR)handle, &b, 1, &got, 0) || got != 1) return -1;
    return b;
}
