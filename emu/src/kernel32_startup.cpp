// kernel32's start-up functions of a statically linked C runtime (Watcom's __NTMain/__NTInit, which
// calls them before main or WinMain, where mingw's start-up goes through msvcrt instead): the
// command line, environment, module file name, version, standard handles, stack limits through
// VirtualQuery, thread ids, thread-local storage, code pages, the local time and console control.
// Every answer is fixed, so a boot runs the same on every machine.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "system_layout.hpp"
#include "win32_util.hpp"

namespace refcheck::emu::win32 {

namespace {
constexpr uint32_t std_input = 0xfffffff6, std_output = 0xfffffff5, std_error = 0xfffffff4;
constexpr uint32_t file_type_unknown = 0, file_type_disk = 1, file_type_char = 2;
constexpr uint32_t error_bad_length = 24;
constexpr uint32_t mem_commit = 0x1000, mem_free = 0x10000, mem_private = 0x20000, mem_image = 0x1000000;
constexpr uint32_t page_noaccess = 0x01, page_readonly = 0x02, page_readwrite = 0x04,
                   page_execute_read = 0x20, page_execute_readwrite = 0x40;
constexpr uint32_t tls_slots = 64, tls_out_of_indexes = 0xffffffff;

// The UTF-16 copy of a NUL-terminated ASCII string (anything else becomes '?'), NUL included.
std::vector<uint8_t> wide(const std::string& text) {
    std::vector<uint8_t> out;
    for (char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        out.push_back(c < 0x80 ? c : '?');
        out.push_back(0);
    }
    out.push_back(0);
    out.push_back(0);
    return out;
}

// Copies `text` (with its NUL) into a guest buffer of `capacity` characters of `unit` bytes, cut to
// fit as GetModuleFileName does; returns the characters written without the NUL.
uint32_t copy_name(Machine& m, Address buffer, uint32_t capacity, const std::string& text, bool utf16) {
    if (capacity == 0) return fail(m, win32_error::invalid_parameter, 0);
    const uint32_t n = std::min<uint32_t>(static_cast<uint32_t>(text.size()), capacity - 1);
    if (utf16) {
        std::vector<uint8_t> w = wide(text.substr(0, n));
        m.guest_write(buffer, w);
    } else {
        std::vector<uint8_t> bytes(text.begin(), text.begin() + n);
        bytes.push_back(0);
        m.guest_write(buffer, bytes);
    }
    return n;
}

bool is_standard(uint32_t handle) {
    return handle == sys::stdin_handle || handle == sys::stdout_handle || handle == sys::stderr_handle;
}
} // namespace

// LPSTR GetCommandLineA(void);  -- the program's path, as msvcrt's _acmdln
uint32_t GetCommandLineA(Machine& m, const Args&) { return m.read_u32(sys::acmdln_cell); }

// LPWSTR GetCommandLineW(void);  -- the same, in UTF-16 (rewritten from it at each call)
uint32_t GetCommandLineW(Machine& m, const Args&) {
    std::string text = m.read_cstring(m.read_u32(sys::acmdln_cell), sys::command_line_w_chars - 1);
    m.write(sys::command_line_w, wide(text));
    return sys::command_line_w;
}

// LPCH GetEnvironmentStrings(void) / GetEnvironmentStringsA(void);  -- an empty environment: "\0\0"
uint32_t GetEnvironmentStrings(Machine&, const Args&) { return sys::environment_block; }
uint32_t GetEnvironmentStringsA(Machine&, const Args&) { return sys::environment_block; }

// BOOL FreeEnvironmentStringsA(LPCH block);  -- the block is the system's own
uint32_t FreeEnvironmentStringsA(Machine&, const Args&) { return TRUE_; }
uint32_t FreeEnvironmentStrings(Machine&, const Args&) { return TRUE_; }

// DWORD GetModuleFileNameA(HMODULE module, LPSTR name, DWORD size);  -- NULL or the image: its path
uint32_t GetModuleFileNameA(Machine& m, const Args& a) {
    if (a.ptr(0) != 0 && a.ptr(0) != m.image().base) return fail(m, 126, 0); // ERROR_MOD_NOT_FOUND
    return copy_name(m, a.ptr(1), a.u32(2), m.read_cstring(sys::program_name, 256), false);
}

// DWORD GetModuleFileNameW(HMODULE module, LPWSTR name, DWORD size);
uint32_t GetModuleFileNameW(Machine& m, const Args& a) {
    if (a.ptr(0) != 0 && a.ptr(0) != m.image().base) return fail(m, 126, 0);
    return copy_name(m, a.ptr(1), a.u32(2), m.read_cstring(sys::program_name, 256), true);
}

// DWORD GetVersion(void);  -- Windows 95 (4.0, bit 31: not NT), the original's platform
uint32_t GetVersion(Machine&, const Args&) { return 0xc0000004; }

// HANDLE GetStdHandle(DWORD which);  -- fixed handles no file gets (writes to them are refused)
uint32_t GetStdHandle(Machine& m, const Args& a) {
    switch (a.u32(0)) {
        case std_input: return sys::stdin_handle;
        case std_output: return sys::stdout_handle;
        case std_error: return sys::stderr_handle;
        default: return fail(m, win32_error::invalid_handle, invalid_handle_value);
    }
}

// DWORD GetFileType(HANDLE file);  -- a standard handle is a character device, a file a disk file
uint32_t GetFileType(Machine& m, const Args& a) {
    if (is_standard(a.u32(0))) return file_type_char;
    if (m.kernel32().files.count(a.u32(0))) return file_type_disk;
    return fail(m, win32_error::invalid_handle, file_type_unknown);
}

// UINT SetHandleCount(UINT count);  -- Win32 ignores it and returns the count
uint32_t SetHandleCount(Machine&, const Args& a) { return a.u32(0); }

// UINT SetErrorMode(UINT mode);  -- the previous mode (0)
uint32_t SetErrorMode(Machine&, const Args&) { return 0; }

// BOOL SetConsoleCtrlHandler(PHANDLER_ROUTINE handler, BOOL add);  -- never called back
uint32_t SetConsoleCtrlHandler(Machine&, const Args&) { return TRUE_; }

// DWORD GetCurrentThreadId(void) / GetCurrentProcessId(void);  -- the TEB's ClientId
uint32_t GetCurrentThreadId(Machine&, const Args&) { return sys::thread_id; }
uint32_t GetCurrentProcessId(Machine&, const Args&) { return sys::process_id; }

// HANDLE GetCurrentProcess(void) / GetCurrentThread(void);  -- the pseudo-handles
uint32_t GetCurrentProcess(Machine&, const Args&) { return 0xffffffff; }
uint32_t GetCurrentThread(Machine&, const Args&) { return 0xfffffffe; }

// SIZE_T VirtualQuery(LPCVOID address, PMEMORY_BASIC_INFORMATION info, SIZE_T length);
// -- the stack, the image's sections, VirtualAlloc blocks and other mapped pages as Windows would
// describe them (Watcom's start-up reads its stack limits so); an unmapped page is MEM_FREE.
uint32_t VirtualQuery(Machine& m, const Args& a) {
    constexpr uint32_t size = 28; // MEMORY_BASIC_INFORMATION
    if (a.u32(2) < size) return fail(m, error_bad_length, 0);
    const Address at = a.ptr(0) & ~0xfffu;
    uint32_t base = at, allocation = at, protect = page_readwrite, end = at + 0x1000, state = mem_commit,
             type = mem_private, allocation_protect = page_readwrite;
    const Range stack = m.stack();
    const Image& image = m.image();
    const Allocation* block = m.heap().containing(at);
    if (at >= stack.begin && at < stack.end) {
        allocation = stack.begin;
        end = stack.end;
    } else if (at >= image.base && at < image.base + image.size) {
        allocation = image.base;
        type = mem_image;
        allocation_protect = page_execute_readwrite;
        protect = page_readonly;
        end = image.base + 0x1000; // the headers, unless a section holds it
        for (const ImageSection& s : image.sections)
            if (at >= s.range.begin && at < s.range.end) {
                end = s.range.end;
                protect = s.executable ? (s.writable ? page_execute_readwrite : page_execute_read)
                                       : (s.writable ? page_readwrite : page_readonly);
            }
    } else if (block && !block->freed && block->kind == AllocationKind::virtual_memory) {
        allocation = block->address;
        end = (block->end() + 0xfff) & ~0xfffu;
    } else if (!m.is_mapped(at)) {
        allocation = 0;
        state = mem_free;
        protect = page_noaccess;
        allocation_protect = 0;
        type = 0;
    }
    const uint32_t info[7] = {base, allocation, allocation_protect, end - base, state, protect, type};
    for (uint32_t i = 0; i < 7; ++i) m.guest_write_u32(a.ptr(1) + 4 * i, info[i]);
    return size;
}

// DWORD TlsAlloc(void);  -- the lowest free of the TEB's 64 slots, zeroed
uint32_t TlsAlloc(Machine& m, const Args&) {
    uint64_t& used = m.kernel32().tls_slots_used;
    for (uint32_t i = 0; i < tls_slots; ++i)
        if (!(used & (uint64_t{1} << i))) {
            used |= uint64_t{1} << i;
            m.write_u32(sys::tls_array + 4 * i, 0);
            return i;
        }
    return fail(m, win32_error::not_enough_memory, tls_out_of_indexes);
}

namespace {
bool tls_allocated(Machine& m, uint32_t index) {
    return index < tls_slots && (m.kernel32().tls_slots_used & (uint64_t{1} << index));
}
} // namespace

// LPVOID TlsGetValue(DWORD index);  -- 0 with ERROR_INVALID_PARAMETER for a slot not allocated
uint32_t TlsGetValue(Machine& m, const Args& a) {
    if (!tls_allocated(m, a.u32(0))) return fail(m, win32_error::invalid_parameter, 0);
    m.kernel32().last_error = win32_error::success;
    return m.read_u32(sys::tls_array + 4 * a.u32(0));
}

// BOOL TlsSetValue(DWORD index, LPVOID value);
uint32_t TlsSetValue(Machine& m, const Args& a) {
    if (!tls_allocated(m, a.u32(0))) return fail(m, win32_error::invalid_parameter, FALSE_);
    m.write_u32(sys::tls_array + 4 * a.u32(0), a.u32(1));
    return TRUE_;
}

// BOOL TlsFree(DWORD index);
uint32_t TlsFree(Machine& m, const Args& a) {
    if (!tls_allocated(m, a.u32(0))) return fail(m, win32_error::invalid_parameter, FALSE_);
    m.kernel32().tls_slots_used &= ~(uint64_t{1} << a.u32(0));
    return TRUE_;
}

// UINT GetACP(void) / GetOEMCP(void);  -- Windows-1252 and 437, single-byte
uint32_t GetACP(Machine&, const Args&) { return 1252; }
uint32_t GetOEMCP(Machine&, const Args&) { return 437; }

// BOOL GetCPInfo(UINT codepage, LPCPINFO info);  -- one byte per character, default '?', no lead bytes
uint32_t GetCPInfo(Machine& m, const Args& a) {
    std::vector<uint8_t> info(20, 0); // MaxCharSize, DefaultChar[2], LeadByte[12]
    info[0] = 1;
    info[4] = '?';
    m.guest_write(a.ptr(1), info);
    return TRUE_;
}

// int MultiByteToWideChar(UINT cp, DWORD flags, LPCSTR text, int bytes, LPWSTR out, int chars);
// -- ASCII widened (other bytes become '?'); bytes -1: up to and with the NUL; chars 0: the size
// One character per byte, so the size is known without a copy: the input is checked readable, then
// widened in blocks (a length of 0x7fffffff allocated 2 GB on the host); a string of -1 with no NUL
// within 1 MiB stops the run, as msvcrt's string functions do.
uint32_t MultiByteToWideChar(Machine& m, const Args& a) {
    const auto bytes = static_cast<int32_t>(a.u32(3)), chars = static_cast<int32_t>(a.u32(5));
    if (bytes == 0 || bytes < -1 || chars < 0) return fail(m, win32_error::invalid_parameter, 0);
    uint32_t needed = 0; // characters, with the NUL when the input's -1 counts one
    if (bytes == -1) {
        std::optional<std::string> text = m.guest_cstring(a.ptr(2), 1u << 20);
        if (!text) throw EmuError("MultiByteToWideChar: no terminator within 1 MiB of " + hex(a.ptr(2)));
        needed = static_cast<uint32_t>(text->size()) + 1;
    } else {
        needed = static_cast<uint32_t>(bytes);
        if (m.guest_refuses(a.ptr(2), needed, Access::read)) m.guest_read_bytes(a.ptr(2), needed); // faults
    }
    if (chars == 0) return needed;
    if (needed > static_cast<uint32_t>(chars)) return fail(m, 122, 0); // ERROR_INSUFFICIENT_BUFFER
    for (uint32_t done = 0; done < needed;) {
        const uint32_t k = std::min(kShimBlock, needed - done);
        std::vector<uint8_t> block = m.guest_read_bytes(a.ptr(2) + done, k); // the NUL, if counted, is 0
        std::vector<uint8_t> w = wide(std::string(block.begin(), block.end()));
        w.resize(w.size() - 2); // wide() adds a NUL
        m.guest_write(a.ptr(4) + 2 * done, w);
        done += k;
    }
    return needed;
}

// void GetLocalTime(LPSYSTEMTIME t) / GetSystemTime(LPSYSTEMTIME t);  -- always Thursday
// 15 January 1998, 12:00:00.000 (deterministic, the original's era)
uint32_t GetLocalTime(Machine& m, const Args& a) {
    const uint16_t t[8] = {1998, 1, 4, 15, 12, 0, 0, 0};
    for (uint32_t i = 0; i < 8; ++i) m.guest_write_u16(a.ptr(0) + 2 * i, t[i]);
    return 0;
}
uint32_t GetSystemTime(Machine& m, const Args& a) { return GetLocalTime(m, a); }

} // namespace refcheck::emu::win32
