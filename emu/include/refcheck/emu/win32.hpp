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
    std::string_view dll; // lower case, e.g. "kernel32.dll"
    std::string_view name;
    ShimFn function;
    Convention convention; // stdcall for every kernel32 export
    uint8_t arg_count;
};

std::span<const Shim> shim_table();

// An import of a variable (msvcrt's _iob, __initenv, _acmdln...): its IAT slot is bound to a
// cell in the system region, not to a thunk.
struct DataImport {
    std::string_view dll;
    std::string_view name;
    Address address;
};
const DataImport* find_data_import(std::string_view dll, std::string_view name);
// Case-insensitive on the DLL name, exact on the function name.
const Shim* find_shim(std::string_view dll, std::string_view name);

inline constexpr uint32_t process_heap_handle = 0x000a0000;
inline constexpr uint32_t invalid_handle_value = 0xffffffff;

struct OpenFile {
    int fd = -1;
    size_t access_index = 0; // into DataRoot::accesses()
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
    uint32_t tick_count = 1000;             // GetTickCount: +16 per call
    uint64_t performance_counter = 1000000; // QueryPerformanceCounter: +1000 per call
    uint64_t tls_slots_used = 0;            // TlsAlloc: bit i, slot i of the TEB's 64
};

// msvcrt's state inside one machine: FILE objects (guest addresses in the system region, each
// backed by a host descriptor opened through the data root), errno, exit callbacks registered.
struct CrtFile {
    int fd = -1;
    size_t access_index = 0; // into DataRoot::accesses()
    bool can_read = false, can_write = false, eof = false, error = false;
};

struct MsvcrtState {
    MsvcrtState() = default;
    MsvcrtState(const MsvcrtState&) = delete;
    MsvcrtState& operator=(const MsvcrtState&) = delete;
    ~MsvcrtState();

    std::map<uint32_t, CrtFile> files;    // by the guest address of the FILE object
    std::vector<uint32_t> exit_callbacks; // atexit/_onexit: recorded, never run
};

// Each shim keeps the name of the export it stands in for (CreateFileA, __getmainargs), so the
// naming and reserved-identifier checks stand aside here (.clang-tidy).
// NOLINTBEGIN(readability-identifier-naming,bugprone-reserved-identifier)
// kernel32: files
// In a child after fork(): the guest's open files (kernel32 handles, msvcrt FILEs) reopened at the
// same offsets as this process's own file descriptions (Machine::after_fork).
void own_open_files(Machine& m);
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
// kernel32: process start-up
uint32_t SetUnhandledExceptionFilter(Machine& m, const Args& a);
uint32_t GetStartupInfoA(Machine& m, const Args& a);
uint32_t GetModuleHandleA(Machine& m, const Args& a);
uint32_t LoadLibraryA(Machine& m, const Args& a);
uint32_t FreeLibrary(Machine& m, const Args& a);
uint32_t GetProcAddress(Machine& m, const Args& a);
uint32_t Sleep(Machine& m, const Args& a);
uint32_t InitializeCriticalSection(Machine& m, const Args& a);
uint32_t EnterCriticalSection(Machine& m, const Args& a);
uint32_t LeaveCriticalSection(Machine& m, const Args& a);
uint32_t DeleteCriticalSection(Machine& m, const Args& a);
// kernel32: a statically linked C runtime's start-up (Watcom's; src/kernel32_startup.cpp)
uint32_t GetCommandLineA(Machine& m, const Args& a);
uint32_t GetCommandLineW(Machine& m, const Args& a);
uint32_t GetEnvironmentStrings(Machine& m, const Args& a);
uint32_t GetEnvironmentStringsA(Machine& m, const Args& a);
uint32_t FreeEnvironmentStrings(Machine& m, const Args& a);
uint32_t FreeEnvironmentStringsA(Machine& m, const Args& a);
uint32_t GetModuleFileNameA(Machine& m, const Args& a);
uint32_t GetModuleFileNameW(Machine& m, const Args& a);
uint32_t GetVersion(Machine& m, const Args& a);
uint32_t GetStdHandle(Machine& m, const Args& a);
uint32_t GetFileType(Machine& m, const Args& a);
uint32_t SetHandleCount(Machine& m, const Args& a);
uint32_t SetErrorMode(Machine& m, const Args& a);
uint32_t SetConsoleCtrlHandler(Machine& m, const Args& a);
uint32_t GetCurrentThreadId(Machine& m, const Args& a);
uint32_t GetCurrentProcessId(Machine& m, const Args& a);
uint32_t GetCurrentProcess(Machine& m, const Args& a);
uint32_t GetCurrentThread(Machine& m, const Args& a);
uint32_t VirtualQuery(Machine& m, const Args& a);
uint32_t TlsAlloc(Machine& m, const Args& a);
uint32_t TlsGetValue(Machine& m, const Args& a);
uint32_t TlsSetValue(Machine& m, const Args& a);
uint32_t TlsFree(Machine& m, const Args& a);
uint32_t GetACP(Machine& m, const Args& a);
uint32_t GetOEMCP(Machine& m, const Args& a);
uint32_t GetCPInfo(Machine& m, const Args& a);
uint32_t MultiByteToWideChar(Machine& m, const Args& a);
uint32_t GetLocalTime(Machine& m, const Args& a);
uint32_t GetSystemTime(Machine& m, const Args& a);

// msvcrt (cdecl; named after the C function, in namespace msvcrt: src/msvcrt_*.cpp)
namespace msvcrt {
// memory, through the deterministic GuestHeap (AllocationKind::crt)
uint32_t malloc(Machine& m, const Args& a);
uint32_t calloc(Machine& m, const Args& a);
uint32_t realloc(Machine& m, const Args& a);
uint32_t free(Machine& m, const Args& a);
uint32_t _msize(Machine& m, const Args& a);
// memory and strings
uint32_t memcpy(Machine& m, const Args& a);
uint32_t memmove(Machine& m, const Args& a);
uint32_t memset(Machine& m, const Args& a);
uint32_t memcmp(Machine& m, const Args& a);
uint32_t strlen(Machine& m, const Args& a);
uint32_t strcmp(Machine& m, const Args& a);
uint32_t strncmp(Machine& m, const Args& a);
uint32_t _stricmp(Machine& m, const Args& a);
uint32_t strcpy(Machine& m, const Args& a);
uint32_t strncpy(Machine& m, const Args& a);
uint32_t strcat(Machine& m, const Args& a);
uint32_t strchr(Machine& m, const Args& a);
uint32_t strrchr(Machine& m, const Args& a);
// files, confined to the data root and recorded like kernel32's
uint32_t fopen(Machine& m, const Args& a);
uint32_t fclose(Machine& m, const Args& a);
uint32_t fread(Machine& m, const Args& a);
uint32_t fwrite(Machine& m, const Args& a);
uint32_t fseek(Machine& m, const Args& a);
uint32_t ftell(Machine& m, const Args& a);
uint32_t feof(Machine& m, const Args& a);
uint32_t fgetc(Machine& m, const Args& a);
// start-up and process
uint32_t _initterm(Machine& m, const Args& a);
uint32_t __getmainargs(Machine& m, const Args& a);
uint32_t __set_app_type(Machine& m, const Args& a);
uint32_t __p__fmode(Machine& m, const Args& a);
uint32_t __p__commode(Machine& m, const Args& a);
uint32_t __p__acmdln(Machine& m, const Args& a);
uint32_t __setusermatherr(Machine& m, const Args& a);
uint32_t _controlfp(Machine& m, const Args& a);
uint32_t _errno(Machine& m, const Args& a);
uint32_t atexit(Machine& m, const Args& a);
uint32_t _onexit(Machine& m, const Args& a);
uint32_t __dllonexit(Machine& m, const Args& a);
uint32_t _lock(Machine& m, const Args& a);
uint32_t _unlock(Machine& m, const Args& a);
uint32_t signal(Machine& m, const Args& a);
uint32_t _cexit(Machine& m, const Args& a);
uint32_t exit(Machine& m, const Args& a);
uint32_t _exit(Machine& m, const Args& a);
uint32_t _amsg_exit(Machine& m, const Args& a);
uint32_t abort(Machine& m, const Args& a);
} // namespace msvcrt
// NOLINTEND(readability-identifier-naming,bugprone-reserved-identifier)

} // namespace win32
} // namespace refcheck::emu
