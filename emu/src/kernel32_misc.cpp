// kernel32 errors, deterministic time, debugging output and process exit.
#include <vector>

#include "win32_util.hpp"

namespace refcheck::emu::win32 {

// DWORD GetLastError(void);
uint32_t GetLastError(Machine& m, const Args&) { return m.kernel32().last_error; }

// void SetLastError(DWORD dwErrCode);
uint32_t SetLastError(Machine& m, const Args& a) {
    m.kernel32().last_error = a.u32(0);
    return 0;
}

// DWORD GetTickCount(void);  -- deterministic: 1000, then +16 per call
uint32_t GetTickCount(Machine& m, const Args&) {
    uint32_t now = m.kernel32().tick_count;
    m.kernel32().tick_count += 16;
    return now;
}

// BOOL QueryPerformanceCounter(LARGE_INTEGER* lpPerformanceCount);  -- deterministic: +1000 per call
uint32_t QueryPerformanceCounter(Machine& m, const Args& a) {
    uint64_t now = m.kernel32().performance_counter;
    m.kernel32().performance_counter += 1000;
    m.guest_write_u32(a.ptr(0), static_cast<uint32_t>(now));
    m.guest_write_u32(a.ptr(0) + 4, static_cast<uint32_t>(now >> 32));
    return TRUE_;
}

// BOOL QueryPerformanceFrequency(LARGE_INTEGER* lpFrequency);  -- 1 MHz
uint32_t QueryPerformanceFrequency(Machine& m, const Args& a) {
    m.guest_write_u32(a.ptr(0), 1000000);
    m.guest_write_u32(a.ptr(0) + 4, 0);
    return TRUE_;
}

// void OutputDebugStringA(LPCSTR lpOutputString);
uint32_t OutputDebugStringA(Machine& m, const Args& a) {
    m.log().write("OutputDebugStringA: " + guest_text(m, a.ptr(0), 4096));
    return 0;
}

// void ExitProcess(UINT uExitCode);  -- ends the run with a process_exit fault
uint32_t ExitProcess(Machine& m, const Args& a) {
    m.stop(FaultKind::process_exit, "ExitProcess(" + std::to_string(a.u32(0)) + ") called");
    return 0;
}

} // namespace refcheck::emu::win32

// --- process start-up (what a C runtime's entry calls before main) ---------------------------

namespace refcheck::emu::win32 {

namespace {
constexpr uint32_t error_mod_not_found = 126, error_proc_not_found = 127;
}

// LPTOP_LEVEL_EXCEPTION_FILTER SetUnhandledExceptionFilter(LPTOP_LEVEL_EXCEPTION_FILTER filter);
// -- recorded nowhere: a guest exception is a fault of the run, never dispatched to it
uint32_t SetUnhandledExceptionFilter(Machine&, const Args&) { return 0; }

// void GetStartupInfoA(LPSTARTUPINFOA info);  -- all zero but cb (68)
uint32_t GetStartupInfoA(Machine& m, const Args& a) {
    std::vector<uint8_t> info(68, 0);
    info[0] = 68;
    m.guest_write(a.ptr(0), info);
    return 0;
}

// HMODULE GetModuleHandleA(LPCSTR name);  -- NULL: the image; any other module is not loaded
uint32_t GetModuleHandleA(Machine& m, const Args& a) {
    if (a.ptr(0) == 0) return m.image().base;
    m.log().write("GetModuleHandleA(\"" + guest_text(m, a.ptr(0), max_path) +
                  "\"): no such module in the machine");
    return fail(m, error_mod_not_found, 0);
}

// HMODULE LoadLibraryA(LPCSTR name);  -- nothing else is ever loaded
uint32_t LoadLibraryA(Machine& m, const Args& a) {
    m.log().write("LoadLibraryA(\"" + guest_text(m, a.ptr(0), max_path) +
                  "\") refused: the machine loads one image");
    return fail(m, error_mod_not_found, 0);
}

// BOOL FreeLibrary(HMODULE module);
uint32_t FreeLibrary(Machine&, const Args&) { return TRUE_; }

// FARPROC GetProcAddress(HMODULE module, LPCSTR name);  -- no dynamic imports
uint32_t GetProcAddress(Machine& m, const Args& a) {
    std::string name =
        a.ptr(1) < 0x10000 ? "#" + std::to_string(a.ptr(1)) : guest_text(m, a.ptr(1), max_path);
    m.log().write("GetProcAddress(" + hex(a.ptr(0)) + ", \"" + name + "\"): not available");
    return fail(m, error_proc_not_found, 0);
}

// void Sleep(DWORD ms);  -- no time passes
uint32_t Sleep(Machine&, const Args&) { return 0; }

// void InitializeCriticalSection / EnterCriticalSection / LeaveCriticalSection /
//      DeleteCriticalSection(LPCRITICAL_SECTION cs);  -- one thread: nothing to do
uint32_t InitializeCriticalSection(Machine&, const Args&) { return 0; }
uint32_t EnterCriticalSection(Machine&, const Args&) { return 0; }
uint32_t LeaveCriticalSection(Machine&, const Args&) { return 0; }
uint32_t DeleteCriticalSection(Machine&, const Args&) { return 0; }

} // namespace refcheck::emu::win32
