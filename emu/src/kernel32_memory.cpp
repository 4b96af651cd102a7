// kernel32 memory: every allocator draws from the deterministic GuestHeap and records the
// routine that asked. Protections and MEM_RESERVE/MEM_COMMIT distinctions are not modelled:
// VirtualAlloc memory is readable and writable at once. A GMEM_MOVEABLE/LMEM_MOVEABLE "handle"
// is the pointer itself.
#include <vector>

#include "win32_util.hpp"

namespace refcheck::emu::win32 {

namespace {

constexpr uint32_t heap_zero_memory = 0x8, heap_realloc_in_place_only = 0x10;
constexpr uint32_t gmem_zeroinit = 0x40; // LMEM_ZEROINIT too
constexpr uint32_t mem_release = 0x8000;
constexpr uint32_t error_invalid_address = 487;

void zero(Machine& m, Address at, uint32_t size) { fill_guest(m, at, 0, size); }

uint32_t allocate(Machine& m, uint32_t size, AllocationKind kind, bool zeroed,
                  uint32_t align = GuestHeap::alignment) {
    Address at = m.heap().allocate(size, m.current_routine(), kind, align);
    if (at == 0) {
        m.log().write(std::string(to_string(kind)) + " of " + with_commas(size) +
                      " bytes failed: the guest heap is exhausted");
        return fail(m, win32_error::not_enough_memory, 0);
    }
    if (zeroed) zero(m, at, size); // fresh heap memory is zero already; stray writes may have touched it
    return at;
}

// VirtualFree's release: a region that is not live fails, as the kernel fails it.
bool release(Machine& m, Address at, const char* function) {
    if (m.heap().release(at)) return true;
    m.log().write(std::string(function) + "(" + hex(at) +
                  ") of something that is not a live allocation: " + m.describe(at));
    return false;
}

} // namespace

void heap_misuse(Machine& m, Address at, const char* function) {
    throw GuestMemoryFault(FaultKind::heap_misuse, at,
                           std::string(function) + "(" + hex(at) +
                               ") of something that is not a live allocation: " + m.describe(at));
}

// HANDLE GetProcessHeap(void);
uint32_t GetProcessHeap(Machine&, const Args&) { return process_heap_handle; }

// LPVOID HeapAlloc(HANDLE hHeap, DWORD dwFlags, SIZE_T dwBytes);
uint32_t HeapAlloc(Machine& m, const Args& a) {
    return allocate(m, a.u32(2), AllocationKind::heap, (a.u32(1) & heap_zero_memory) != 0);
}

// BOOL HeapFree(HANDLE hHeap, DWORD dwFlags, LPVOID lpMem);
uint32_t HeapFree(Machine& m, const Args& a) {
    if (a.ptr(2) != 0 && !m.heap().release(a.ptr(2))) heap_misuse(m, a.ptr(2), "HeapFree");
    return TRUE_;
}

// LPVOID HeapReAlloc(HANDLE hHeap, DWORD dwFlags, LPVOID lpMem, SIZE_T dwBytes);
uint32_t HeapReAlloc(Machine& m, const Args& a) {
    uint32_t flags = a.u32(1), size = a.u32(3);
    const Allocation* old = m.heap().live_at(a.ptr(2));
    if (old == nullptr) heap_misuse(m, a.ptr(2), "HeapReAlloc");
    if (size == old->size) return old->address;
    if (flags & heap_realloc_in_place_only) return fail(m, win32_error::not_enough_memory, 0);
    Address from = old->address;
    uint32_t keep = std::min(size, old->size);
    uint32_t to = allocate(m, size, AllocationKind::heap, (flags & heap_zero_memory) != 0);
    if (to == 0) return 0;
    copy_guest(m, to, from, keep);
    m.heap().release(from);
    return to;
}

// SIZE_T HeapSize(HANDLE hHeap, DWORD dwFlags, LPCVOID lpMem);
uint32_t HeapSize(Machine& m, const Args& a) {
    const Allocation* live = m.heap().live_at(a.ptr(2));
    return live ? live->size : fail(m, win32_error::invalid_parameter, 0xffffffff);
}

// HGLOBAL GlobalAlloc(UINT uFlags, SIZE_T dwBytes);
uint32_t GlobalAlloc(Machine& m, const Args& a) {
    return allocate(m, a.u32(1), AllocationKind::global, (a.u32(0) & gmem_zeroinit) != 0);
}

// HGLOBAL GlobalFree(HGLOBAL hMem);
uint32_t GlobalFree(Machine& m, const Args& a) {
    if (a.ptr(0) != 0 && !m.heap().release(a.ptr(0))) heap_misuse(m, a.ptr(0), "GlobalFree");
    return 0;
}

// HLOCAL LocalAlloc(UINT uFlags, SIZE_T uBytes);
uint32_t LocalAlloc(Machine& m, const Args& a) {
    return allocate(m, a.u32(1), AllocationKind::local, (a.u32(0) & gmem_zeroinit) != 0);
}

// HLOCAL LocalFree(HLOCAL hMem);
uint32_t LocalFree(Machine& m, const Args& a) {
    if (a.ptr(0) != 0 && !m.heap().release(a.ptr(0))) heap_misuse(m, a.ptr(0), "LocalFree");
    return 0;
}

// LPVOID VirtualAlloc(LPVOID lpAddress, SIZE_T dwSize, DWORD flAllocationType, DWORD flProtect);
uint32_t VirtualAlloc(Machine& m, const Args& a) {
    Address wanted = a.ptr(0);
    // Rounded up to pages in 64 bits: in 32, 0xfffff001 wrapped to a 0-byte "success".
    const uint64_t size = (uint64_t{a.u32(1)} + 0xfff) & ~uint64_t{0xfff};
    if (size > 0xffffffffu) return fail(m, win32_error::not_enough_memory, 0);
    if (wanted != 0) {
        // Committing inside an existing reservation: it is already usable.
        const Allocation* in = m.heap().containing(wanted);
        if (in && !in->freed && in->kind == AllocationKind::virtual_memory &&
            uint64_t{wanted} + a.u32(1) <= uint64_t{in->end()})
            return wanted & ~0xfffu;
        return fail(m, error_invalid_address, 0);
    }
    return allocate(m, static_cast<uint32_t>(size), AllocationKind::virtual_memory, false, 0x1000);
}

// BOOL VirtualFree(LPVOID lpAddress, SIZE_T dwSize, DWORD dwFreeType);
uint32_t VirtualFree(Machine& m, const Args& a) {
    if ((a.u32(2) & mem_release) == 0)
        return TRUE_; // MEM_DECOMMIT: the pages stay, as they would read after a recommit
    if (a.u32(1) != 0) return fail(m, win32_error::invalid_parameter, FALSE_);
    return release(m, a.ptr(0), "VirtualFree") ? TRUE_ : fail(m, win32_error::invalid_parameter, FALSE_);
}

} // namespace refcheck::emu::win32
