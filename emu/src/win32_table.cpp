// THE table of Win32 shims (kernel32 stdcall, msvcrt cdecl): an import whose DLL and name are here is bound to a thunk that runs
// the function; any other import is bound to the trap.
#include <cctype>

#include "refcheck/emu/win32.hpp"
#include "system_layout.hpp"

namespace refcheck::emu::win32 {

namespace {

#define KERNEL32(function, args)                                                                             \
    Shim { "kernel32.dll", #function, &function, Convention::stdcall, args }
#define MSVCRT(function, args)                                                                               \
    Shim { "msvcrt.dll", #function, &msvcrt::function, Convention::cdecl, args }

constexpr Shim table[] = {
    // files
    KERNEL32(CreateFileA, 7),
    KERNEL32(ReadFile, 5),
    KERNEL32(WriteFile, 5),
    KERNEL32(SetFilePointer, 4),
    KERNEL32(GetFileSize, 2),
    KERNEL32(CloseHandle, 1),
    KERNEL32(FindFirstFileA, 2),
    KERNEL32(FindNextFileA, 2),
    KERNEL32(FindClose, 1),
    // memory
    KERNEL32(GetProcessHeap, 0),
    KERNEL32(HeapAlloc, 3),
    KERNEL32(HeapFree, 3),
    KERNEL32(HeapReAlloc, 4),
    KERNEL32(HeapSize, 3),
    KERNEL32(GlobalAlloc, 2),
    KERNEL32(GlobalFree, 1),
    KERNEL32(LocalAlloc, 2),
    KERNEL32(LocalFree, 1),
    KERNEL32(VirtualAlloc, 4),
    KERNEL32(VirtualFree, 3),
    // errors, time, debugging, process
    KERNEL32(GetLastError, 0),
    KERNEL32(SetLastError, 1),
    KERNEL32(GetTickCount, 0),
    KERNEL32(QueryPerformanceCounter, 1),
    KERNEL32(QueryPerformanceFrequency, 1),
    KERNEL32(OutputDebugStringA, 1),
    KERNEL32(ExitProcess, 1),
    // process start-up
    KERNEL32(SetUnhandledExceptionFilter, 1),
    KERNEL32(GetStartupInfoA, 1),
    KERNEL32(GetModuleHandleA, 1),
    KERNEL32(LoadLibraryA, 1),
    KERNEL32(FreeLibrary, 1),
    KERNEL32(GetProcAddress, 2),
    KERNEL32(Sleep, 1),
    KERNEL32(InitializeCriticalSection, 1),
    KERNEL32(EnterCriticalSection, 1),
    KERNEL32(LeaveCriticalSection, 1),
    KERNEL32(DeleteCriticalSection, 1),
    // a statically linked runtime's start-up (Watcom's __NTMain, __NTInit)
    KERNEL32(GetCommandLineA, 0),
    KERNEL32(GetCommandLineW, 0),
    KERNEL32(GetEnvironmentStrings, 0),
    KERNEL32(GetEnvironmentStringsA, 0),
    KERNEL32(FreeEnvironmentStrings, 1),
    KERNEL32(FreeEnvironmentStringsA, 1),
    KERNEL32(GetModuleFileNameA, 3),
    KERNEL32(GetModuleFileNameW, 3),
    KERNEL32(GetVersion, 0),
    KERNEL32(GetStdHandle, 1),
    KERNEL32(GetFileType, 1),
    KERNEL32(SetHandleCount, 1),
    KERNEL32(SetErrorMode, 1),
    KERNEL32(SetConsoleCtrlHandler, 2),
    KERNEL32(GetCurrentThreadId, 0),
    KERNEL32(GetCurrentProcessId, 0),
    KERNEL32(GetCurrentProcess, 0),
    KERNEL32(GetCurrentThread, 0),
    KERNEL32(VirtualQuery, 3),
    KERNEL32(TlsAlloc, 0),
    KERNEL32(TlsGetValue, 1),
    KERNEL32(TlsSetValue, 2),
    KERNEL32(TlsFree, 1),
    KERNEL32(GetACP, 0),
    KERNEL32(GetOEMCP, 0),
    KERNEL32(GetCPInfo, 2),
    KERNEL32(MultiByteToWideChar, 6),
    KERNEL32(GetLocalTime, 1),
    KERNEL32(GetSystemTime, 1),
    // msvcrt: memory (the guest heap)
    MSVCRT(malloc, 1),
    MSVCRT(calloc, 2),
    MSVCRT(realloc, 2),
    MSVCRT(free, 1),
    MSVCRT(_msize, 1),
    // msvcrt: memory and strings
    MSVCRT(memcpy, 3),
    MSVCRT(memmove, 3),
    MSVCRT(memset, 3),
    MSVCRT(memcmp, 3),
    MSVCRT(strlen, 1),
    MSVCRT(strcmp, 2),
    MSVCRT(strncmp, 3),
    MSVCRT(_stricmp, 2),
    MSVCRT(strcpy, 2),
    MSVCRT(strncpy, 3),
    MSVCRT(strcat, 2),
    MSVCRT(strchr, 2),
    MSVCRT(strrchr, 2),
    // msvcrt: files (the data root)
    MSVCRT(fopen, 2),
    MSVCRT(fclose, 1),
    MSVCRT(fread, 4),
    MSVCRT(fwrite, 4),
    MSVCRT(fseek, 3),
    MSVCRT(ftell, 1),
    MSVCRT(feof, 1),
    MSVCRT(fgetc, 1),
    // msvcrt: start-up and process
    MSVCRT(__p__acmdln, 0),
    MSVCRT(_initterm, 2),
    MSVCRT(__getmainargs, 5),
    MSVCRT(__set_app_type, 1),
    MSVCRT(__p__fmode, 0),
    MSVCRT(__p__commode, 0),
    MSVCRT(__setusermatherr, 1),
    MSVCRT(_controlfp, 2),
    MSVCRT(_errno, 0),
    MSVCRT(atexit, 1),
    MSVCRT(_onexit, 1),
    MSVCRT(__dllonexit, 3),
    MSVCRT(_lock, 1),
    MSVCRT(_unlock, 1),
    MSVCRT(signal, 2),
    MSVCRT(_cexit, 0),
    MSVCRT(exit, 1),
    MSVCRT(_exit, 1),
    MSVCRT(_amsg_exit, 1),
    MSVCRT(abort, 0),
};

#undef MSVCRT
#undef KERNEL32

bool same_dll(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

} // namespace

constexpr DataImport data_table[] = {
    {"msvcrt.dll", "_iob", sys::iob},
    {"msvcrt.dll", "__initenv", sys::initenv_cell},
    {"msvcrt.dll", "_acmdln", sys::acmdln_cell},
    {"msvcrt.dll", "__argc", sys::argc_cell},
    {"msvcrt.dll", "__argv", sys::argv_cell},
    {"msvcrt.dll", "_environ", sys::environ_cell},
    {"msvcrt.dll", "_fmode", sys::fmode_cell},
    {"msvcrt.dll", "_commode", sys::commode_cell},
};

std::span<const Shim> shim_table() { return table; }

const DataImport* find_data_import(std::string_view dll, std::string_view name) {
    for (const DataImport& d : data_table)
        if (d.name == name && same_dll(d.dll, dll)) return &d;
    return nullptr;
}

const Shim* find_shim(std::string_view dll, std::string_view name) {
    for (const Shim& s : table)
        if (s.name == name && same_dll(s.dll, dll)) return &s;
    return nullptr;
}

} // namespace refcheck::emu::win32
