// kernel32 errors, deterministic time, debugging output and process exit.
#include "win32_util.hpp"

namespace refcheck::emu::win32 {

// DWORD GetLastError(void);
uint32_t GetLastError(Machine& m, const Args&) { return m.kernel32().last_error; }

// void SetLastError(DWORD dwErrCode);
uint32_t SetLastError(Machine& m, const Args& a)
{
    m.kernel32().last_error = a.u32(0);
    return 0;
}

// DWORD GetTickCount(void);  -- deterministic: 1000, then +16 per call
uint32_t GetTickCount(Machine& m, const Args&)
{
    uint32_t now = m.kernel32().tick_count;
    m.kernel32().tick_count += 16;
    return now;
}

// BOOL QueryPerformanceCounter(LARGE_INTEGER* lpPerformanceCount);  -- deterministic: +1000 per call
uint32_t QueryPerformanceCounter(Machine& m, const Args& a)
{
    uint64_t now = m.kernel32().performance_counter;
    m.kernel32().performance_counter += 1000;
    m.write_u32(a.ptr(0), static_cast<uint32_t>(now));
    m.write_u32(a.ptr(0) + 4, static_cast<uint32_t>(now >> 32));
    return TRUE_;
}

// BOOL QueryPerformanceFrequency(LARGE_INTEGER* lpFrequency);  -- 1 MHz
uint32_t QueryPerformanceFrequency(Machine& m, const Args& a)
{
    m.write_u32(a.ptr(0), 1000000);
    m.write_u32(a.ptr(0) + 4, 0);
    return TRUE_;
}

// void OutputDebugStringA(LPCSTR lpOutputString);
uint32_t OutputDebugStringA(Machine& m, const Args& a)
{
    m.log().write("OutputDebugStringA: " + a.cstring(0));
    return 0;
}

// void ExitProcess(UINT uExitCode);  -- ends the run with a process_exit fault
uint32_t ExitProcess(Machine& m, const Args& a)
{
    m.stop(FaultKind::process_exit, "ExitProcess(" + std::to_string(a.u32(0)) + ") called");
    return 0;
}

}  // namespace refcheck::emu::win32
