// msvcrt start-up and process functions: what a CRT's entry (mainCRTStartup) calls before main.
// _initterm hands over to guest code in the system region (the loop calls the image's own
// initialisers); argv is the image's file name under the mount; exit callbacks are recorded and
// never run; exit, _exit, _amsg_exit and abort end the run as ExitProcess does.
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "system_layout.hpp"
#include "win32_util.hpp"

namespace refcheck::emu::win32 {

void set_errno(Machine& m, uint32_t e) { m.write_u32(sys::errno_cell, e); }

void copy_guest(Machine& m, Address dst, Address src, uint32_t n) {
    // Backwards when the destination starts inside the source, so that each block is read before
    // it is written over.
    const bool backwards = dst > src && dst - src < n;
    for (uint32_t done = 0; done < n;) {
        const uint32_t k = std::min(kShimBlock, n - done);
        const uint32_t at = backwards ? n - done - k : done;
        m.guest_write(dst + at, m.guest_read_bytes(src + at, k));
        done += k;
    }
}

void fill_guest(Machine& m, Address dst, uint8_t byte, uint32_t n) {
    const std::vector<uint8_t> block(std::min(kShimBlock, n), byte);
    for (uint32_t done = 0; done < n;) {
        const uint32_t k = std::min(kShimBlock, n - done);
        m.guest_write(dst + done, std::span<const uint8_t>(block.data(), k));
        done += k;
    }
}

std::optional<std::string> guest_path(Machine& m, Address a, std::string& shown) {
    std::optional<std::string> path = m.guest_cstring(a, max_path);
    if (path) {
        shown = *path;
    } else {
        const std::vector<uint8_t> head = m.guest_read_bytes(a, max_path - 1);
        shown = std::string(head.begin(), head.end()) + "...";
    }
    return path;
}

std::string guest_text(Machine& m, Address a, size_t max) {
    if (std::optional<std::string> text = m.guest_cstring(a, max + 1)) return *text;
    const std::vector<uint8_t> head = m.guest_read_bytes(a, max);
    return std::string(head.begin(), head.end()) + "... (cut at " + std::to_string(max) + " characters)";
}

MsvcrtState::~MsvcrtState() {
    for (auto& [address, file] : files) ::close(file.fd);
}

namespace msvcrt {

// void _initterm(_PVFV* begin, _PVFV* end);  -- guest code: the loop on the runtime code page
uint32_t _initterm(Machine& m, const Args&) {
    m.set_reg(Reg::eip, sys::initterm_code); // [ESP] is still the caller's return address
    return 0;
}

// int __getmainargs(int* argc, char*** argv, char*** envp, int expand, _startupinfo* info);
uint32_t __getmainargs(Machine& m, const Args& a) {
    if (a.ptr(0)) m.guest_write_u32(a.ptr(0), 1);
    if (a.ptr(1)) m.guest_write_u32(a.ptr(1), sys::argv_array);
    if (a.ptr(2)) m.guest_write_u32(a.ptr(2), sys::envp_array);
    return 0;
}

// void __set_app_type(int type);
uint32_t __set_app_type(Machine&, const Args&) { return 0; }

// int* __p__fmode(void);
uint32_t __p__fmode(Machine&, const Args&) { return sys::fmode_cell; }

// int* __p__commode(void);
uint32_t __p__commode(Machine&, const Args&) { return sys::commode_cell; }

// char** __p__acmdln(void);
uint32_t __p__acmdln(Machine&, const Args&) { return sys::acmdln_cell; }

// void __setusermatherr(int (*handler)(struct _exception*));
uint32_t __setusermatherr(Machine&, const Args&) { return 0; }

// unsigned _controlfp(unsigned new_value, unsigned mask);  -- the x87 state is not changed
uint32_t _controlfp(Machine&, const Args&) { return 0x0009001f; }

// int* _errno(void);
uint32_t _errno(Machine&, const Args&) { return sys::errno_cell; }

// int atexit(void (*fn)(void));
uint32_t atexit(Machine& m, const Args& a) {
    m.msvcrt().exit_callbacks.push_back(a.ptr(0));
    return 0;
}

// _onexit_t _onexit(_onexit_t fn);
uint32_t _onexit(Machine& m, const Args& a) {
    m.msvcrt().exit_callbacks.push_back(a.ptr(0));
    return a.ptr(0);
}

// _onexit_t __dllonexit(_onexit_t fn, _PVFV** begin, _PVFV** end);
uint32_t __dllonexit(Machine& m, const Args& a) {
    m.msvcrt().exit_callbacks.push_back(a.ptr(0));
    return a.ptr(0);
}

// void _lock(int locknum); void _unlock(int locknum);  -- one thread
uint32_t _lock(Machine&, const Args&) { return 0; }
uint32_t _unlock(Machine&, const Args&) { return 0; }

// void (*signal(int sig, void (*handler)(int)))(int);  -- recorded nowhere; returns SIG_DFL
uint32_t signal(Machine&, const Args&) { return 0; }

// void _cexit(void);  -- exit callbacks are not run
uint32_t _cexit(Machine&, const Args&) { return 0; }

// void exit(int code);
uint32_t exit(Machine& m, const Args& a) {
    m.stop(FaultKind::process_exit, "exit(" + std::to_string(a.i32(0)) + ") called");
    return 0;
}

// void _exit(int code);
uint32_t _exit(Machine& m, const Args& a) {
    m.stop(FaultKind::process_exit, "_exit(" + std::to_string(a.i32(0)) + ") called");
    return 0;
}

// void _amsg_exit(int message);  -- the CRT's fatal run-time error
uint32_t _amsg_exit(Machine& m, const Args& a) {
    m.stop(FaultKind::process_exit,
           "_amsg_exit(" + std::to_string(a.i32(0)) + "): a C run-time error ended the process");
    return 0;
}

// void abort(void);
uint32_t abort(Machine& m, const Args&) {
    m.stop(FaultKind::process_exit, "abort() called");
    return 0;
}

} // namespace msvcrt
} // namespace refcheck::emu::win32
