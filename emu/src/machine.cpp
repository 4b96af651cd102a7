// Machine: construction, the always-present callbacks (faults, interrupts, the shim page),
// guest memory and registers, and the services it owns.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <sys/mman.h>

#include "machine_impl.hpp"

namespace refcheck::emu {

namespace {

int unicorn_register(Reg r) {
    switch (r) {
        case Reg::eax: return UC_X86_REG_EAX;
        case Reg::ebx: return UC_X86_REG_EBX;
        case Reg::ecx: return UC_X86_REG_ECX;
        case Reg::edx: return UC_X86_REG_EDX;
        case Reg::esi: return UC_X86_REG_ESI;
        case Reg::edi: return UC_X86_REG_EDI;
        case Reg::ebp: return UC_X86_REG_EBP;
        case Reg::esp: return UC_X86_REG_ESP;
        case Reg::eip: return UC_X86_REG_EIP;
        case Reg::eflags: return UC_X86_REG_EFLAGS;
    }
    return UC_X86_REG_INVALID;
}

// The address of the call instruction that returns to `ret`, if one is recognisable.
std::optional<Address> call_site(const Machine& m, Address ret) {
    uint8_t b[7] = {};
    if (ret < 7 || !m.is_mapped(ret - 7)) return std::nullopt;
    m.read(ret - 7, b);
    if (b[2] == 0xe8) return ret - 5;                          // call rel32
    if (b[1] == 0xff && (b[2] & 0x38) == 0x10) return ret - 6; // call [disp32] / [reg+disp32]
    if (b[4] == 0xff && (b[5] & 0x38) == 0x10 && (b[5] & 0xc0) == 0x40) return ret - 3; // call [reg+disp8]
    if (b[5] == 0xff && (b[6] & 0x38) == 0x10 && ((b[6] & 0xc0) == 0xc0 || (b[6] & 0xc0) == 0))
        return ret - 2; // call reg / call [reg]
    return std::nullopt;
}

const char* memory_verb(uc_mem_type t) {
    switch (t) {
        case UC_MEM_READ_UNMAPPED: return "read of unmapped memory";
        case UC_MEM_WRITE_UNMAPPED: return "write to unmapped memory";
        case UC_MEM_FETCH_UNMAPPED: return "instruction fetch from unmapped memory";
        case UC_MEM_READ_PROT: return "read of read-protected memory";
        case UC_MEM_WRITE_PROT: return "write to write-protected memory";
        case UC_MEM_FETCH_PROT: return "instruction fetch from non-executable memory";
        default: return "invalid memory access";
    }
}

FaultKind memory_fault(uc_mem_type t) {
    switch (t) {
        case UC_MEM_READ_UNMAPPED: return FaultKind::read_unmapped;
        case UC_MEM_WRITE_UNMAPPED: return FaultKind::write_unmapped;
        case UC_MEM_FETCH_UNMAPPED: return FaultKind::fetch_unmapped;
        case UC_MEM_READ_PROT: return FaultKind::read_protected;
        case UC_MEM_WRITE_PROT: return FaultKind::write_protected;
        case UC_MEM_FETCH_PROT: return FaultKind::fetch_protected;
        default: return FaultKind::host_error;
    }
}

bool on_invalid_memory(uc_engine*, uc_mem_type type, uint64_t address, int size, int64_t, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    FaultKind kind = memory_fault(type);
    Address a = static_cast<Address>(address);
    std::string message =
        std::string(memory_verb(type)) + " at " + hex(a) + " (" + std::to_string(size) + " bytes)";
    bool fetch = kind == FaultKind::fetch_unmapped || kind == FaultKind::fetch_protected;
    if (impl.trial) {
        // The first fault wins, as in record_stop: a store split across pages (an unaligned store
        // whose tail is on a read-only page) faults once per byte in Unicorn.
        if (!impl.trial_stop.set) impl.trial_stop = {true, kind, std::move(message), a, std::nullopt};
        return false;
    }
    impl.record_stop(kind, std::move(message), a, fetch ? std::optional<Address>(a) : std::nullopt);
    return false;
}

void on_interrupt(uc_engine* uc, uint32_t number, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    uint32_t eip = impl.self.reg(Reg::eip);
    PendingStop stop;
    stop.set = true;
    if (number == 0) {
        stop = {true, FaultKind::division_error, "division error (#DE)", std::nullopt, eip};
    } else if (number == 3) {
        stop = {true, FaultKind::breakpoint, "breakpoint (int3)", std::nullopt, eip - 1};
    } else {
        // A software "int N" reports EIP after its two bytes; an exception reports the instruction.
        bool software = eip >= 2 && impl.self.is_mapped(eip - 2) && impl.self.read_u8(eip - 2) == 0xcd &&
                        impl.self.read_u8(eip - 1) == number;
        char buf[64];
        std::snprintf(buf, sizeof buf, "interrupt 0x%02x", number);
        stop = {true, FaultKind::interrupt, buf, std::nullopt, software ? eip - 2 : eip};
    }
    if (impl.trial)
        impl.trial_stop = stop;
    else
        impl.record_stop(stop.kind, stop.message, std::nullopt, stop.eip);
    uc_emu_stop(uc);
}

void on_shim_page(uc_engine* uc, uint64_t address, uint32_t, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    if (impl.trial) {
        uc_emu_stop(uc);
        return;
    }
    note_eip(address);
    size_t index = (static_cast<Address>(address) - Machine::shim_base) / Machine::thunk_size;
    if (index >= impl.thunks.size() || address % Machine::thunk_size != 0)
        return; // not a thunk: the hlt filler stops the run as a halt
    const Thunk& thunk = impl.thunks[index];
    if (thunk.replaced != 0) return; // a replace() hook on this thunk runs instead
    guarded(impl, [&] {
        if (thunk.shim == nullptr) {
            Address ret = impl.self.read_u32(impl.self.reg(Reg::esp));
            auto site = call_site(impl.self, ret);
            impl.self.stop(FaultKind::unimplemented_import,
                           "call to unimplemented import " + thunk.dll + "!" + thunk.function + " from " +
                               (site ? hex(*site) : "the instruction before " + hex(ret)) + " (" +
                               impl.symbols.describe(site.value_or(ret)) + ")");
            return;
        }
        Args args(impl.self, thunk.shim->convention, thunk.shim->arg_count);
        uint32_t eax = 0;
        try {
            eax = thunk.shim->function(impl.self, args);
        } catch (const GuestMemoryFault& f) {
            // The access the guest asked the shim to make faults as the guest's own would: a memory
            // fault at the data address, EIP on the thunk (make_fault shows the call site).
            impl.record_stop(f.kind(), std::string(f.what()) + " by " + thunk.dll + "!" + thunk.function,
                             f.address(), static_cast<Address>(address));
            uc_emu_stop(uc);
            return;
        }
        if (!impl.pending.set) impl.self.set_reg(Reg::eax, eax);
    });
}

} // namespace

std::optional<Address> find_call_site(const Machine& m, Address ret) { return call_site(m, ret); }

Machine::Impl::Impl(Machine& machine, MachineOptions opts)
    : self(machine), options(std::move(opts)), heap([this](Address begin, uint32_t size) {
          if (map(begin, size, UC_PROT_READ | UC_PROT_WRITE) != UC_ERR_OK)
              throw EmuError("cannot map guest heap at " + hex(begin));
      }) {
    if (uc_open(UC_ARCH_X86, UC_MODE_32, &uc) != UC_ERR_OK)
        throw EmuError("Unicorn: cannot open an x86-32 engine");
    // 64 MiB of translated code is far more than an image needs; Unicorn's default (1 GiB) makes its
    // own full translation flushes (e.g. after a run with a `count`) cost seconds.
    uc_ctl_set_tcg_buffer_size(uc, uint32_t{64} << 20);
    map(stack.begin, stack.size(), UC_PROT_READ | UC_PROT_WRITE); // moved by place_around
    map_system();
    map(shim_base, shim_size, UC_PROT_READ | UC_PROT_EXEC);
    std::vector<uint8_t> filler(shim_size, 0xf4); // hlt everywhere but the thunks
    uc_mem_write(uc, shim_base, filler.data(), filler.size());
    uc_hook_add(uc, &invalid_hook, UC_HOOK_MEM_UNMAPPED | UC_HOOK_MEM_PROT,
                reinterpret_cast<void*>(on_invalid_memory), this, 1, 0);
    uc_hook_add(uc, &interrupt_hook, UC_HOOK_INTR, reinterpret_cast<void*>(on_interrupt), this, 1, 0);
    // ONE ranged code hook over the shim page: it fires only when guest code executes there.
    uc_hook_add(uc, &shim_hook, UC_HOOK_CODE, reinterpret_cast<void*>(on_shim_page), this, shim_base,
                shim_base + shim_size - 1);
    watchdog = std::make_unique<Watchdog>(uc);
    if (!options.data_root.empty())
        data_root.emplace(options.data_root, options.mount, options.writable_data_root);
}

Machine::Impl::~Impl() {
    watchdog.reset(); // join the thread before the engine goes
    if (uc) uc_close(uc);
    for (const HostRegion& r : host_regions) munmap(r.host, r.end - r.begin); // after the engine
}

uc_err Machine::Impl::map(uint64_t begin, size_t size, uint32_t prot) {
    void* host = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (host == MAP_FAILED) return UC_ERR_NOMEM;
    const uc_err err = uc_mem_map_ptr(uc, begin, size, prot, host);
    if (err != UC_ERR_OK) {
        munmap(host, size);
        return err;
    }
    const HostRegion region{begin, begin + size, static_cast<uint8_t*>(host)};
    host_regions.insert(
        std::upper_bound(host_regions.begin(), host_regions.end(), region,
                         [](const HostRegion& a, const HostRegion& b) { return a.begin < b.begin; }),
        region);
    last_region = 0;
    protections_stale = true;
    return UC_ERR_OK;
}

void Machine::Impl::unmap(uint64_t begin, size_t size) {
    uc_mem_unmap(uc, begin, size);
    for (auto it = host_regions.begin(); it != host_regions.end(); ++it)
        if (it->begin == begin && it->end == begin + size) {
            munmap(it->host, size);
            host_regions.erase(it);
            break;
        }
    last_region = 0;
    protections_stale = true;
}

void Machine::Impl::protect(uint64_t begin, size_t size, uint32_t prot) {
    uc_mem_protect(uc, begin, size, prot);
    protections_stale = true;
}

std::optional<std::pair<Address, FaultKind>> Machine::Impl::refusal(uint64_t a, uint64_t n,
                                                                    uint32_t perm) const {
    if (protections_stale) {
        uc_mem_region* regions = nullptr;
        uint32_t count = 0;
        if (uc_mem_regions(uc, &regions, &count) != UC_ERR_OK)
            throw EmuError("Unicorn: cannot list the mapped regions");
        protections.assign(regions, regions + count);
        uc_free(regions);
        std::sort(protections.begin(), protections.end(),
                  [](const uc_mem_region& x, const uc_mem_region& y) { return x.begin < y.begin; });
        protections_stale = false;
    }
    const bool write = perm == UC_PROT_WRITE;
    for (uint64_t at = a, end = a + n; at < end;) {
        auto it = std::upper_bound(protections.begin(), protections.end(), at,
                                   [](uint64_t x, const uc_mem_region& r) { return x < r.begin; });
        if (at > 0xffffffffu || it == protections.begin() || (it - 1)->end < at) // end is inclusive
            return std::make_pair(static_cast<Address>(at),
                                  write ? FaultKind::write_unmapped : FaultKind::read_unmapped);
        --it;
        if ((it->perms & perm) == 0)
            return std::make_pair(static_cast<Address>(at),
                                  write ? FaultKind::write_protected : FaultKind::read_protected);
        at = it->end + 1;
    }
    return std::nullopt;
}

const uint8_t* Machine::Impl::host_slow(uint64_t a, size_t n) const {
    auto it = std::upper_bound(host_regions.begin(), host_regions.end(), a,
                               [](uint64_t x, const HostRegion& r) { return x < r.begin; });
    if (it == host_regions.begin()) return nullptr;
    --it;
    if (a + n > it->end) return nullptr;
    last_region = static_cast<size_t>(it - host_regions.begin());
    return it->host + (a - it->begin);
}

void Machine::Impl::record_stop(FaultKind kind, std::string message, std::optional<Address> data,
                                std::optional<Address> eip) {
    if (pending.set) return; // the first reason wins
    pending = {true, kind, std::move(message), data, eip};
}

// Removes the translations of `r`. Guest code can only run from the image's executable sections
// and the shim page (nothing else is mapped executable), so only those parts of `r` are passed on:
// Unicorn translates the start of the range as a code fetch and silently does nothing when that
// page is not executable. uc_ctl reads its arguments as uint64_t varargs: pass exactly that type.
void Machine::Impl::remove_cache(Range r) {
    auto clear = [&](Range code) {
        uint64_t begin = std::max(r.begin, code.begin), end = std::min(r.end, code.end);
        if (begin < end) uc_ctl_remove_cache(uc, begin, end);
    };
    if (image)
        for (const ImageSection& s : image->sections)
            if (s.executable) clear(s.range);
    clear({shim_base, shim_base + shim_size});
}

// Drops every translated block. Far cheaper than uc_ctl_flush_tb, which costs 15 ms to seconds on
// Unicorn 2.1 (it resets the whole code buffer).
void Machine::Impl::flush_all_translations() {
    remove_cache({0, 0xffffffff});
    uc_ctl_flush_tlb(uc);
    ++invalidations;
}

// Unicorn 2.1.1 crashes (SIGSEGV in tb_set_jmp_target, from cpu_exec) when its translation buffer
// fills up during a run. Removing translations (uc_ctl_remove_cache) does not give their space back:
// only a full flush does. So every invalidation of everything (a fault located, a watch or budget
// hook added or removed) makes the next run translate its code anew into fresh space, and thousands
// of faulting calls fill the buffer. Before it can fill, the space is reclaimed here, between runs,
// where no translated block is executing.
//
// A memory watch's flush is reclaimed before the very next run. Blocks translated while a watch
// existed (Unicorn's slow memory path) and dropped with uc_ctl_remove_cache left the runs after them
// slow and their speed erratic: the scenes case took 6.2 to 10.7 s at --jobs 1 with the space
// reclaimed every 32 invalidations, 4.4 s every time with a reclaim after each watch's flush. A
// reclaim costs about 1 ms, so the other invalidations (a located fault flushes twice) still wait
// for 32: reclaimed after each, 100,000 faulting calls took 111 s instead of 11.
void Machine::Impl::reclaim_translations() {
    if (invalidations < reclaim_after && !watch_flushed) return;
    uc_ctl_flush_tb(uc);
    invalidations = 0;
    watch_flushed = false;
    ++reclaims;
}

uint64_t Machine::translation_reclaims() const { return impl_->reclaims; }

Machine::Machine(MachineOptions options) : impl_(std::make_unique<Impl>(*this, std::move(options))) {}
Machine::~Machine() = default;

const Image& Machine::load(const std::filesystem::path& pe, std::optional<Address> base) {
    impl_->map_image(pe, base);
    return *impl_->image;
}

const Image& Machine::image() const {
    if (!impl_->image) throw EmuError("no image loaded");
    return *impl_->image;
}

const std::string& Machine::current_routine() const { return impl_->routine; }

void Machine::stop(FaultKind kind, std::string message) {
    impl_->record_stop(kind, std::move(message));
    uc_emu_stop(impl_->uc);
}

void Machine::read(Address a, std::span<uint8_t> out) const {
    if (const uint8_t* host = impl_->host(a, out.size())) {
        if (!out.empty()) std::memcpy(out.data(), host, out.size());
        return;
    }
    if (uc_mem_read(impl_->uc, a, out.data(), out.size()) != UC_ERR_OK)
        throw EmuError("cannot read " + std::to_string(out.size()) + " bytes at " + hex(a) + ": not mapped");
}

uint8_t Machine::read_u8(Address a) const {
    uint8_t v;
    read(a, {&v, 1});
    return v;
}

uint16_t Machine::read_u16(Address a) const {
    uint8_t b[2];
    read(a, b);
    return static_cast<uint16_t>(b[0] | b[1] << 8);
}

uint32_t Machine::read_u32(Address a) const {
    uint8_t b[4];
    read(a, b);
    return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

std::vector<uint8_t> Machine::read_bytes(Address a, size_t n) const {
    std::vector<uint8_t> out(n);
    read(a, out);
    return out;
}

std::string Machine::read_cstring(Address a, size_t max) const {
    std::string out;
    while (out.size() < max) {
        char c = static_cast<char>(read_u8(a + static_cast<Address>(out.size())));
        if (c == '\0') break;
        out += c;
    }
    return out;
}

void Machine::write(Address a, std::span<const uint8_t> bytes) {
    if (uc_mem_write(impl_->uc, a, bytes.data(), bytes.size()) != UC_ERR_OK)
        throw EmuError("cannot write " + std::to_string(bytes.size()) + " bytes at " + hex(a) +
                       ": not mapped");
    impl_->remove_cache({a, a + static_cast<Address>(bytes.size())}); // no call unless it is code
}

void Machine::after_fork() {
    (void)impl_->watchdog.release(); // never notified, joined or freed in this process
    impl_->watchdog = std::make_unique<Watchdog>(impl_->uc);
    win32::own_open_files(*this);
}

namespace {
// A value's little-endian bytes, as the guest stores it.
std::array<uint8_t, 2> le16(uint16_t v) { return {uint8_t(v), uint8_t(v >> 8)}; }
std::array<uint8_t, 4> le32(uint32_t v) {
    return {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
}
} // namespace

void Machine::write_u8(Address a, uint8_t v) { write(a, {&v, 1}); }
void Machine::write_u16(Address a, uint16_t v) { write(a, le16(v)); }
void Machine::write_u32(Address a, uint32_t v) { write(a, le32(v)); }

namespace {
[[noreturn]] void refuse_guest_access(std::pair<Address, FaultKind> refused, size_t size) {
    const auto [at, kind] = refused;
    const char* verb = kind == FaultKind::read_unmapped    ? "read of unmapped memory"
                       : kind == FaultKind::write_unmapped ? "write to unmapped memory"
                       : kind == FaultKind::read_protected ? "read of read-protected memory"
                                                           : "write to write-protected memory";
    throw GuestMemoryFault(kind, at,
                           std::string(verb) + " at " + hex(at) + " (" + std::to_string(size) + " bytes)");
}
} // namespace

void Machine::guest_read(Address a, std::span<uint8_t> out) const {
    if (auto refused = impl_->refusal(a, out.size(), UC_PROT_READ)) refuse_guest_access(*refused, out.size());
    read(a, out);
}

std::vector<uint8_t> Machine::guest_read_bytes(Address a, size_t n) const {
    if (auto refused = impl_->refusal(a, n, UC_PROT_READ)) refuse_guest_access(*refused, n);
    return read_bytes(a, n);
}

uint32_t Machine::guest_read_u32(Address a) const {
    uint8_t b[4];
    guest_read(a, b);
    return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

void Machine::guest_write(Address a, std::span<const uint8_t> bytes) {
    if (auto refused = impl_->refusal(a, bytes.size(), UC_PROT_WRITE))
        refuse_guest_access(*refused, bytes.size());
    write(a, bytes);
}

void Machine::guest_write_u16(Address a, uint16_t v) { guest_write(a, le16(v)); }
void Machine::guest_write_u32(Address a, uint32_t v) { guest_write(a, le32(v)); }

std::optional<std::string> Machine::guest_cstring(Address a, size_t max) const {
    std::string out;
    uint8_t chunk[256];
    while (out.size() < max) {
        // Up to the next 256-byte boundary: a string ending just before unmapped memory reads.
        const uint64_t at = uint64_t{a} + out.size();
        const size_t n = std::min<size_t>({sizeof chunk, 256 - at % 256, max - out.size()});
        guest_read(static_cast<Address>(at), {chunk, n});
        const auto end = std::find(chunk, chunk + n, uint8_t{0});
        out.append(reinterpret_cast<const char*>(chunk), static_cast<size_t>(end - chunk));
        if (end != chunk + n) return out;
    }
    return std::nullopt;
}

std::optional<Address> Machine::guest_refuses(Address a, uint64_t n, Access kind) const {
    std::optional<std::pair<Address, FaultKind>> refused;
    if (has(kind, Access::read)) refused = impl_->refusal(a, n, UC_PROT_READ);
    if (!refused && has(kind, Access::write)) refused = impl_->refusal(a, n, UC_PROT_WRITE);
    if (!refused) return std::nullopt;
    return refused->first;
}

bool Machine::is_mapped(Address a) const {
    uint8_t v;
    return uc_mem_read(impl_->uc, a, &v, 1) == UC_ERR_OK;
}

uint32_t Machine::reg(Reg r) const {
    uint32_t v = 0;
    uc_reg_read(impl_->uc, unicorn_register(r), &v);
    return v;
}

void Machine::set_reg(Reg r, uint32_t v) { uc_reg_write(impl_->uc, unicorn_register(r), &v); }

Registers Machine::registers() const {
    int ids[] = {UC_X86_REG_EAX, UC_X86_REG_EBX, UC_X86_REG_ECX, UC_X86_REG_EDX, UC_X86_REG_ESI,
                 UC_X86_REG_EDI, UC_X86_REG_EBP, UC_X86_REG_ESP, UC_X86_REG_EIP, UC_X86_REG_EFLAGS};
    Registers r;
    uint32_t* fields[] = {&r.eax, &r.ebx, &r.ecx, &r.edx, &r.esi, &r.edi, &r.ebp, &r.esp, &r.eip, &r.eflags};
    void* ptrs[10];
    for (int i = 0; i < 10; ++i) ptrs[i] = fields[i];
    uc_reg_read_batch(impl_->uc, ids, ptrs, 10);
    return r;
}

GuestHeap& Machine::heap() { return impl_->heap; }
DataRoot* Machine::data_root() { return impl_->data_root ? &*impl_->data_root : nullptr; }
win32::Kernel32State& Machine::kernel32() { return impl_->kernel32; }
win32::MsvcrtState& Machine::msvcrt() { return impl_->msvcrt; }
Range Machine::stack() const { return impl_->stack; }
Address Machine::call_stack_top() const { return impl_->call_top ? impl_->call_top : impl_->stack.end; }

std::optional<Address> Machine::import_thunk(std::string_view dll, std::string_view function) const {
    auto lower = [](std::string_view s) {
        std::string out(s);
        for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return out;
    };
    for (size_t i = 0; i < impl_->thunks.size(); ++i)
        if (impl_->thunks[i].function == function && lower(impl_->thunks[i].dll) == lower(dll))
            return shim_base + static_cast<Address>(i) * thunk_size;
    return std::nullopt;
}
SymbolTable& Machine::symbols() { return impl_->symbols; }
const SymbolTable& Machine::symbols() const { return impl_->symbols; }
Log& Machine::log() { return impl_->log; }
Coverage& Machine::coverage() { return impl_->coverage; }
const Coverage& Machine::coverage() const { return impl_->coverage; }
const Trace& Machine::trace() const { return impl_->trace; }
const std::vector<std::string>& Machine::heap_strays() const { return impl_->strays; }
uc_engine* Machine::engine() { return impl_->uc; }

std::string Machine::describe(Address a) const {
    std::string heap = impl_->heap.describe(a);
    if (!heap.empty()) return heap;
    if (impl_->image) {
        if (const ImageSection* s = impl_->image->section_at(a))
            return hex(a) + " is in section " + s->name + " of the image (" + impl_->symbols.describe(a) +
                   ")";
        if (impl_->image->range().contains(a)) return hex(a) + " is in the image headers";
    }
    const Range stack = impl_->stack;
    if (a >= stack.begin && a < stack.end)
        return hex(a) + " is in the stack, " + with_commas(stack.end - a) + " bytes below its top";
    if (a >= stack.begin - 0x1000 && a < stack.begin)
        return hex(a) + " is just below the stack (stack overflow)";
    if (a >= teb_address && a < teb_address + 0x1000)
        return hex(a) + " is in the TEB at offset " + hex(a - teb_address);
    if (a >= peb_address && a < peb_address + 0x1000)
        return hex(a) + " is in the PEB at offset " + hex(a - peb_address);
    if (a >= system_base && a < shim_base)
        return hex(a) + " is in the system region (GDT, runtime code, process data)";
    if (a >= shim_base && a < shim_base + shim_size)
        return hex(a) + " is on the shim page (" + impl_->symbols.describe(a, thunk_size) + ")";
    if (a < 0x10000) return hex(a) + " is unmapped (a null pointer plus " + with_commas(a) + ")";
    return hex(a) + (is_mapped(a) ? " is mapped memory" : " is unmapped");
}

std::vector<std::string> Machine::disassemble(Address a, size_t count) const {
    std::vector<std::string> out;
    uint8_t code[16 * 64];
    size_t n = std::min(sizeof code, count * 16);
    while (n > 0 && uc_mem_read(impl_->uc, a, code, n) != UC_ERR_OK) n /= 2;
    for (const Instruction& i : impl_->disassembler.decode({code, n}, a, count))
        out.push_back(hex(i.address) + " <" + impl_->symbols.describe(i.address) + ">: " + i.text);
    return out;
}

} // namespace refcheck::emu
