// msvcrt memory and string functions. The allocators draw from the deterministic GuestHeap
// (AllocationKind::crt, "malloc"), so a CRT image's allocations are attributed and reproducible
// like kernel32's; the string functions work on guest memory from the host.
#include <algorithm>
#include <cctype>
#include <vector>

#include "system_layout.hpp"
#include "win32_util.hpp"

namespace refcheck::emu::win32::msvcrt {

namespace {

constexpr uint32_t enomem = 12;
constexpr size_t max_string = 1u << 20; // a guest string longer than 1 MiB is a fault

Address allocate(Machine& m, uint32_t size, const char* function) {
    Address at = m.heap().allocate(size, m.current_routine(), AllocationKind::crt);
    if (at == 0) {
        m.log().write(std::string(function) + " of " + with_commas(size) +
                      " bytes failed: the guest heap is exhausted");
        set_errno(m, enomem);
    }
    return at;
}

// The guest string at `a` (without its terminator), stopping the run when it has none.
std::string guest_string(Machine& m, Address a, const char* function) {
    std::string s;
    uint8_t chunk[256];
    for (;;) {
        size_t n = sizeof chunk;
        // Read up to the next 256-byte boundary so a string ending before unmapped memory reads.
        n = std::min<size_t>(n, 256 - (a + s.size()) % 256);
        m.guest_read(a + static_cast<Address>(s.size()), {chunk, n});
        auto end = std::find(chunk, chunk + n, uint8_t{0});
        s.append(reinterpret_cast<const char*>(chunk), static_cast<size_t>(end - chunk));
        if (end != chunk + n) return s;
        if (s.size() > max_string)
            throw EmuError(std::string(function) + ": no terminator within 1 MiB of " + hex(a));
    }
}

std::vector<uint8_t> bytes_of(const std::string& s, bool terminator = true) {
    std::vector<uint8_t> out(s.begin(), s.end());
    if (terminator) out.push_back(0);
    return out;
}

int sign(int v) { return v < 0 ? -1 : v > 0 ? 1 : 0; }

} // namespace

// void* malloc(size_t size);
uint32_t malloc(Machine& m, const Args& a) { return allocate(m, a.u32(0), "malloc"); }

// void* calloc(size_t count, size_t size);
uint32_t calloc(Machine& m, const Args& a) {
    uint64_t total = uint64_t{a.u32(0)} * a.u32(1);
    if (total > 0xffffffffu) {
        set_errno(m, enomem);
        return 0;
    }
    Address at = allocate(m, static_cast<uint32_t>(total), "calloc");
    if (at != 0) fill_guest(m, at, 0, static_cast<uint32_t>(total));
    return at;
}

// void* realloc(void* p, size_t size);
uint32_t realloc(Machine& m, const Args& a) {
    Address p = a.ptr(0);
    uint32_t size = a.u32(1);
    if (p == 0) return allocate(m, size, "realloc");
    const Allocation* old = m.heap().live_at(p);
    if (old == nullptr) heap_misuse(m, p, "realloc");
    if (size == 0) {
        m.heap().release(p);
        return 0;
    }
    uint32_t keep = std::min(size, old->size);
    Address to = allocate(m, size, "realloc");
    if (to == 0) return 0;
    copy_guest(m, to, p, keep);
    m.heap().release(p);
    return to;
}

// void free(void* p);
uint32_t free(Machine& m, const Args& a) {
    Address p = a.ptr(0);
    if (p != 0 && !m.heap().release(p)) heap_misuse(m, p, "free");
    return 0;
}

// size_t _msize(void* p);
uint32_t _msize(Machine& m, const Args& a) {
    const Allocation* live = m.heap().live_at(a.ptr(0));
    return live ? live->size : 0xffffffffu;
}

// The memory shims work in blocks (copy_guest, fill_guest: win32_util.hpp): a guest length is not a
// host allocation, and the first block the guest may not access (unmapped, or read-only for a
// destination) faults, as the guest's own loop would, partway.

// void* memcpy(void* dst, const void* src, size_t n);  (overlap copies as memmove does)
uint32_t memcpy(Machine& m, const Args& a) {
    copy_guest(m, a.ptr(0), a.ptr(1), a.u32(2));
    return a.ptr(0);
}

// void* memmove(void* dst, const void* src, size_t n);
uint32_t memmove(Machine& m, const Args& a) { return memcpy(m, a); }

// void* memset(void* dst, int c, size_t n);
uint32_t memset(Machine& m, const Args& a) {
    fill_guest(m, a.ptr(0), static_cast<uint8_t>(a.u32(1)), a.u32(2));
    return a.ptr(0);
}

// int memcmp(const void* a, const void* b, size_t n);
uint32_t memcmp(Machine& m, const Args& a) {
    const uint32_t n = a.u32(2);
    for (uint32_t done = 0; done < n;) {
        const uint32_t k = std::min(kShimBlock, n - done);
        const std::vector<uint8_t> x = m.guest_read_bytes(a.ptr(0) + done, k),
                                   y = m.guest_read_bytes(a.ptr(1) + done, k);
        for (size_t i = 0; i < k; ++i)
            if (x[i] != y[i]) return static_cast<uint32_t>(x[i] < y[i] ? -1 : 1);
        done += k;
    }
    return 0;
}

// size_t strlen(const char* s);
uint32_t strlen(Machine& m, const Args& a) {
    return static_cast<uint32_t>(guest_string(m, a.ptr(0), "strlen").size());
}

// int strcmp(const char* a, const char* b);
uint32_t strcmp(Machine& m, const Args& a) {
    std::string x = guest_string(m, a.ptr(0), "strcmp"), y = guest_string(m, a.ptr(1), "strcmp");
    return static_cast<uint32_t>(sign(x.compare(y))); // bytes compare as unsigned char
}

// int strncmp(const char* a, const char* b, size_t n);
uint32_t strncmp(Machine& m, const Args& a) {
    std::string x = guest_string(m, a.ptr(0), "strncmp"), y = guest_string(m, a.ptr(1), "strncmp");
    size_t n = a.u32(2);
    return static_cast<uint32_t>(
        sign(x.substr(0, std::min(n, x.size())).compare(y.substr(0, std::min(n, y.size())))));
}

// int _stricmp(const char* a, const char* b);  (ASCII case folding to lower, as msvcrt's C locale)
uint32_t _stricmp(Machine& m, const Args& a) {
    std::string x = guest_string(m, a.ptr(0), "_stricmp"), y = guest_string(m, a.ptr(1), "_stricmp");
    auto fold = [](std::string& s) {
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    fold(x);
    fold(y);
    return static_cast<uint32_t>(sign(x.compare(y)));
}

// char* strcpy(char* dst, const char* src);
uint32_t strcpy(Machine& m, const Args& a) {
    m.guest_write(a.ptr(0), bytes_of(guest_string(m, a.ptr(1), "strcpy")));
    return a.ptr(0);
}

// char* strncpy(char* dst, const char* src, size_t n);  (pads with zeros; no terminator when full)
// The copy, then the padding in blocks: n is never a host allocation (a length of 0x7fffffff made one
// of 2 GB); padding that runs into memory the guest may not write faults there.
uint32_t strncpy(Machine& m, const Args& a) {
    const uint32_t n = a.u32(2);
    const std::string s = guest_string(m, a.ptr(1), "strncpy");
    const auto copied = static_cast<uint32_t>(std::min<size_t>(n, s.size()));
    m.guest_write(a.ptr(0), bytes_of(s.substr(0, copied), false));
    fill_guest(m, a.ptr(0) + copied, 0, n - copied);
    return a.ptr(0);
}

// char* strcat(char* dst, const char* src);
uint32_t strcat(Machine& m, const Args& a) {
    size_t at = guest_string(m, a.ptr(0), "strcat").size();
    m.guest_write(a.ptr(0) + static_cast<Address>(at), bytes_of(guest_string(m, a.ptr(1), "strcat")));
    return a.ptr(0);
}

// char* strchr(const char* s, int c);  (c == 0 finds the terminator)
uint32_t strchr(Machine& m, const Args& a) {
    std::string s = guest_string(m, a.ptr(0), "strchr");
    char c = static_cast<char>(a.u32(1));
    if (c == '\0') return a.ptr(0) + static_cast<Address>(s.size());
    size_t at = s.find(c);
    return at == std::string::npos ? 0 : a.ptr(0) + static_cast<Address>(at);
}

// char* strrchr(const char* s, int c);
uint32_t strrchr(Machine& m, const Args& a) {
    std::string s = guest_string(m, a.ptr(0), "strrchr");
    char c = static_cast<char>(a.u32(1));
    if (c == '\0') return a.ptr(0) + static_cast<Address>(s.size());
    size_t at = s.rfind(c);
    return at == std::string::npos ? 0 : a.ptr(0) + static_cast<Address>(at);
}

} // namespace refcheck::emu::win32::msvcrt
