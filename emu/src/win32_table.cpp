// THE table of Win32 shims: an import whose DLL and name are here is bound to a thunk that runs
// the function; any other import is bound to the trap.
#include <cctype>

#include "refcheck/emu/win32.hpp"

namespace refcheck::emu::win32 {

namespace {

#define KERNEL32(function, args) Shim{"kernel32.dll", #function, &function, Convention::stdcall, args}

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
};

#undef KERNEL32

bool same_dll(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

}  // namespace

std::span<const Shim> shim_table() { return table; }

const Shim* find_shim(std::string_view dll, std::string_view name)
{
    for (const Shim& s : table)
        if (s.name == name && same_dll(s.dll, dll))
            return &s;
    return nullptr;
}

}  // namespace refcheck::emu::win32
