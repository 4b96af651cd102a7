/* kernel32 as a statically linked C runtime's start-up calls it (Watcom's __NTMain/__NTInit): each
   export calls a group of those functions and returns what the test checks. */
#include <windows.h>
#include "guest.h"

EXPORT DWORD __cdecl st_version(void) { return GetVersion(); }

EXPORT int __cdecl st_module_name(char* buf, int cap) { return (int)GetModuleFileNameA(0, buf, (DWORD)cap); }

EXPORT int __cdecl st_module_name_w(WCHAR* buf, int cap) {
    return (int)GetModuleFileNameW(GetModuleHandleA(0), buf, (DWORD)cap);
}

EXPORT const char* __cdecl st_command_line(void) { return GetCommandLineA(); }

EXPORT const WCHAR* __cdecl st_command_line_w(void) { return GetCommandLineW(); }

/* 1 when the environment block is empty ("\0\0") and freeing it succeeds. */
EXPORT int __cdecl st_environment(void) {
    char* block = GetEnvironmentStrings();
    int empty = block && block[0] == 0 && block[1] == 0;
    return empty && FreeEnvironmentStringsA(block);
}

/* The standard output handle's file type * 16 + (the three handles differ and are valid). */
EXPORT int __cdecl st_std_handles(void) {
    HANDLE in = GetStdHandle(STD_INPUT_HANDLE), out = GetStdHandle(STD_OUTPUT_HANDLE),
           err = GetStdHandle(STD_ERROR_HANDLE);
    int valid = in != INVALID_HANDLE_VALUE && out != INVALID_HANDLE_VALUE && err != INVALID_HANDLE_VALUE &&
                in && out && err && in != out && out != err && in != err;
    return (int)GetFileType(out) * 16 + valid;
}

/* VirtualQuery of a local (the stack), of this code, of a VirtualAlloc block's middle and of the
   page at 0x1000, into four MEMORY_BASIC_INFORMATION; returns the sum of the sizes returned. */
EXPORT int __cdecl st_virtual_query(MEMORY_BASIC_INFORMATION* info, void** block) {
    volatile int local = 0;
    SIZE_T n = VirtualQuery((const void*)&local, &info[0], sizeof info[0]);
    n += VirtualQuery((const void*)&st_virtual_query, &info[1], sizeof info[1]);
    char* p = VirtualAlloc(0, 70000, MEM_COMMIT, PAGE_EXECUTE_READWRITE);
    *block = p;
    n += VirtualQuery(p + 5000, &info[2], sizeof info[2]);
    n += VirtualQuery((const void*)0x1000, &info[3], sizeof info[3]);
    return (int)n + local;
}

/* TlsAlloc, set, get, free, then get again: the value read back, or -1 when a step went wrong. */
EXPORT int __cdecl st_tls(void) {
    DWORD i = TlsAlloc();
    if (i == TLS_OUT_OF_INDEXES || !TlsSetValue(i, (void*)1234)) return -1;
    int v = (int)(INT_PTR)TlsGetValue(i);
    if (!TlsFree(i) || TlsGetValue(i) != 0 || GetLastError() != ERROR_INVALID_PARAMETER) return -1;
    return v;
}

/* The ANSI code page * 1000 + the OEM one's MaxCharSize * 100 + (GetOEMCP() == 437). */
EXPORT int __cdecl st_codepages(void) {
    CPINFO info;
    if (!GetCPInfo(CP_OEMCP, &info)) return -1;
    return (int)GetACP() * 1000 + (int)info.MaxCharSize * 100 + (GetOEMCP() == 437);
}

/* "ab" widened with its NUL into out; the count returned, * 100 + the count asked for with no buffer. */
EXPORT int __cdecl st_widen(WCHAR* out) {
    return MultiByteToWideChar(CP_OEMCP, 0, "ab", -1, out, 8) * 100 +
           MultiByteToWideChar(CP_ACP, 0, "abc", 3, 0, 0);
}

EXPORT int __cdecl st_local_time(SYSTEMTIME* t) {
    GetLocalTime(t);
    return t->wYear;
}

EXPORT DWORD __cdecl st_ids(void) { return GetCurrentThreadId() << 16 | GetCurrentProcessId(); }

/* SetErrorMode, SetHandleCount and SetConsoleCtrlHandler as the start-up calls them: 1 when each
   answers as Win32 does. */
EXPORT int __cdecl st_settings(void) {
    SetErrorMode(SEM_FAILCRITICALERRORS);
    return SetHandleCount(40) == 40 && SetConsoleCtrlHandler(0, TRUE) && GetCurrentProcess() == (HANDLE)-1;
}

EXPORT DWORD __cdecl st_tls_alloc(void) { return TlsAlloc(); }
