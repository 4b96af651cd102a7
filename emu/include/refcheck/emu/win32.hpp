// Win32 shims: ONE table (dll, name, function, convention, argument count), and one free
// function per Win32 function, named after it, with its Win32 prototype in a comment where it is
// defined (src/kernel32_*.cpp). An import found in the table is bound to a thunk on the shim page;
// any other import is bound to the trap (see Machine).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "refcheck/emu/convention.hpp"
#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

class Machine;

namespace win32 {

using ShimFn = uint32_t (*)(Machine&, const Args&);

struct Shim {
    std::string_view dll;       // lower case, e.g. "kernel32.dll"
    std::string_view name;
    ShimFn function;
    Convention convention;      // stdcall for every kernel32 export
    uint8_t arg_count;
};

std::span<const Shim> shim_table();
// Case-insensitive on the DLL name, exact on the function name.
const Shim* find_shim(std::string_view dll, std::string_view name);

inline constexpr uint32_t process_heap_handle = 0x000a0000;
inline constexpr uint32_t invalid_handle_value = 0xffffffff;

struct OpenFile {
    int fd = -1;
    size_t access_index = 0;  // into DataRoot::accesses()
    bool can_read = false, can_write = false;
};

struct FoundFile {
    std::string name;
    uint64_t size = 0;
    bool directory = false;
};

struct FindSearch {
    std::vector<FoundFile> matches;
    size_t next = 0;
};

// kernel32's state inside one machine: last error, handles, deterministic clocks.
struct Kernel32State {
    Kernel32State() = default;
    Kernel32State(const Kernel32State&) = delete;
    Kernel32State& operator=(const Kernel32State&) = delete;
    ~Kernel32State();

    uint32_t last_error = 0;
    uint32_t next_handle = 0x100;
    std::map<uint32_t, OpenFile> files;
    std::map<uint32_t, FindSearch> searches;
    uint32_t tick_count = 1000;          // GetTickCount: +16 per call
    uint64_t performance_counter = 1000000;  // QueryPerformanceCounter: +1000 per call
};

// kernel32: files
uint32_t CreateFileA(Machine& m, const Args& a);
uint32_t ReadFile(Machine& m, const Args& a);
uint32_t WriteFile(Machine& m, const Args& a);
uint32_t SetFilePointer(Machine& m, const Args& a);
uint32_t GetFileSize(Machine& m, const Args& a);
uint32_t CloseHandle(Machine& m, const Args& a);
uint32_t FindFirstFileA(Machine& m, const Args& a);
uint32_t FindNextFileA(Machine& m, const Args& a);
uint32_t FindClose(Machine& m, const Args& a);
// kernel32: memory
uint32_t GetProcessHeap(Machine& m, const Args& a);
uint32_t HeapAlloc(Machine& m, const Args& a);
uint32_t HeapFree(Machine& m, const Args& a);
uint32_t HeapReAlloc(Machine& m, const Args& a);
uint32_t HeapSize(Machine& m, const Args& a);
uint32_t GlobalAlloc(Machine& m, const Args& a);
uint32_t GlobalFree(Machine& m, const Args& a);
uint32_t LocalAlloc(Machine& m, const Args& a);
uint32_t LocalFree(Machine& m, const Args& a);
uint32_t VirtualAlloc(Machine& m, const Args& a);
uint32_t VirtualFree(Machine& m, const Args& a);
// kernel32: process, errors, time, debugging
uint32_t GetLastError(Machine& m, const Args& a);
uint32_t SetLastError(Machine& m, const Args& a);
uint32_t GetTickCount(Machine& m, const Args& a);
uint32_t QueryPerformanceCounter(Machine& m, const Args& a);
uint32_t QueryPerformanceFrequency(Machine& m, const Args& a);
uint32_t OutputDebugStringA(Machine& m, const Args& a);
uint32_t ExitProcess(Machine& m, const Args& a);

}  // namespace win32
}  // namespace refcheck::emu
