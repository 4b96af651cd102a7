// Machine::snapshot and Machine::restore: the guest's state copied, and put back.
#include <cstring>
#include <unistd.h>

#include "machine_impl.hpp"

namespace refcheck::emu {

struct Snapshot::Data {
    struct Region {
        uint64_t begin = 0, end = 0;
        std::vector<uint8_t> bytes;
    };
    struct File { // a guest file's place: kernel32 handle or msvcrt FILE address -> offset
        off_t offset = 0;
        bool eof = false, error = false;
    };
    std::vector<Region> regions; // by begin, as the machine's host regions
    uc_context* context = nullptr;
    GuestHeap::State heap;
    uint32_t last_error = 0, next_handle = 0, tick_count = 0;
    uint64_t performance_counter = 0, tls_slots_used = 0;
    std::map<uint32_t, File> kernel32_files, crt_files;
    std::map<uint32_t, win32::FindSearch> searches;
    std::vector<uint32_t> exit_callbacks;
    Address call_top = 0;

    Data() = default;
    Data(const Data&) = delete;
    Data& operator=(const Data&) = delete;
    ~Data() {
        if (context) uc_context_free(context);
    }
};

Snapshot::Snapshot(std::unique_ptr<Data> d) : d_(std::move(d)) {}
Snapshot::Snapshot(Snapshot&&) noexcept = default;
Snapshot& Snapshot::operator=(Snapshot&&) noexcept = default;
Snapshot::~Snapshot() = default;

size_t Snapshot::bytes() const {
    size_t n = 0;
    for (const auto& r : d_->regions) n += r.bytes.size();
    return n;
}

namespace {
constexpr uint64_t page = 0x1000;

off_t offset_of(int fd) {
    const off_t at = ::lseek(fd, 0, SEEK_CUR);
    if (at < 0)
        throw EmuError("snapshot: cannot read a guest file's offset (host descriptor " + std::to_string(fd) +
                       ")");
    return at;
}
} // namespace

Snapshot Machine::snapshot() const {
    Impl& m = *impl_;
    if (m.running) throw EmuError("a snapshot cannot be taken during a call");
    auto d = std::make_unique<Snapshot::Data>();
    for (const Impl::HostRegion& r : m.host_regions)
        d->regions.push_back({r.begin, r.end, std::vector<uint8_t>(r.host, r.host + (r.end - r.begin))});
    if (uc_context_alloc(m.uc, &d->context) != UC_ERR_OK || uc_context_save(m.uc, d->context) != UC_ERR_OK)
        throw EmuError("snapshot: uc_context_save failed");
    d->heap = m.heap.state();
    d->last_error = m.kernel32.last_error;
    d->next_handle = m.kernel32.next_handle;
    d->tick_count = m.kernel32.tick_count;
    d->performance_counter = m.kernel32.performance_counter;
    d->tls_slots_used = m.kernel32.tls_slots_used;
    for (const auto& [handle, file] : m.kernel32.files)
        d->kernel32_files[handle] = {offset_of(file.fd), false, false};
    for (const auto& [address, file] : m.msvcrt.files)
        d->crt_files[address] = {offset_of(file.fd), file.eof, file.error};
    d->searches = m.kernel32.searches;
    d->exit_callbacks = m.msvcrt.exit_callbacks;
    d->call_top = m.call_top;
    return Snapshot(std::move(d));
}

RestoreStats Machine::restore(const Snapshot& s) {
    Impl& m = *impl_;
    const Snapshot::Data& d = *s.d_;
    if (m.running) throw EmuError("a snapshot cannot be restored during a call");
    // Everything that could refuse is checked before anything changes.
    auto region_now = [&](const Snapshot::Data::Region& r) -> const Impl::HostRegion* {
        for (const Impl::HostRegion& h : m.host_regions)
            if (h.begin == r.begin && h.end == r.end) return &h;
        return nullptr;
    };
    for (const auto& r : d.regions)
        if (!region_now(r))
            throw EmuError("restore: guest memory " + hex(static_cast<Address>(r.begin)) + "-" +
                           hex(static_cast<Address>(r.end - 1)) +
                           " was unmapped or remapped since the snapshot");
    for (const auto& [handle, file] : d.kernel32_files)
        if (!m.kernel32.files.contains(handle))
            throw EmuError("restore: guest file handle " + hex(handle) + " was closed since the snapshot");
    for (const auto& [address, file] : d.crt_files)
        if (!m.msvcrt.files.contains(address))
            throw EmuError("restore: guest FILE at " + hex(address) + " was closed since the snapshot");

    RestoreStats stats;
    // Memory: the pages that differ, written back in runs of consecutive pages.
    for (const auto& r : d.regions) {
        const uint8_t* now = region_now(r)->host;
        const uint64_t size = r.end - r.begin;
        uint64_t run = size; // start of the current run of differing pages (size: none)
        for (uint64_t at = 0; at <= size; at += page) {
            const bool differs = at < size && std::memcmp(now + at, r.bytes.data() + at, page) != 0;
            if (differs) {
                ++stats.pages_written;
                if (run == size) run = at;
            } else if (run != size) {
                if (uc_mem_write(m.uc, r.begin + run, r.bytes.data() + run, at - run) != UC_ERR_OK)
                    throw EmuError("restore: uc_mem_write failed at " +
                                   hex(static_cast<Address>(r.begin + run)));
                // Code written back (a patch made since): its translations are of other bytes.
                m.remove_cache({static_cast<Address>(r.begin + run), static_cast<Address>(r.begin + at)});
                run = size;
            }
        }
    }
    // Regions mapped since (the heap's growth): gone again, as the heap's bookkeeping says.
    std::vector<std::pair<uint64_t, uint64_t>> extra;
    for (const Impl::HostRegion& h : m.host_regions) {
        const bool known = std::any_of(d.regions.begin(), d.regions.end(),
                                       [&](const auto& r) { return r.begin == h.begin && r.end == h.end; });
        if (!known) extra.emplace_back(h.begin, h.end - h.begin);
    }
    for (const auto& [begin, size] : extra) m.unmap(begin, size);
    stats.regions_unmapped = extra.size();
    if (!extra.empty()) m.flush_all_translations();
    m.heap.set_state(d.heap);

    if (uc_context_restore(m.uc, d.context) != UC_ERR_OK)
        throw EmuError("restore: uc_context_restore failed");

    // Files: those opened since are closed; the others go back to their offsets.
    const auto put_back = [&](auto& files, const std::map<uint32_t, Snapshot::Data::File>& saved,
                              auto&& flags) {
        for (auto it = files.begin(); it != files.end();) {
            const auto s = saved.find(it->first);
            if (s == saved.end()) {
                ::close(it->second.fd);
                it = files.erase(it);
                ++stats.files_closed;
                continue;
            }
            ::lseek(it->second.fd, s->second.offset, SEEK_SET);
            flags(it->second, s->second);
            ++it;
        }
    };
    put_back(m.kernel32.files, d.kernel32_files, [](win32::OpenFile&, const Snapshot::Data::File&) {});
    put_back(m.msvcrt.files, d.crt_files, [](win32::CrtFile& f, const Snapshot::Data::File& s) {
        f.eof = s.eof;
        f.error = s.error;
    });
    m.kernel32.searches = d.searches;
    m.kernel32.last_error = d.last_error;
    m.kernel32.next_handle = d.next_handle;
    m.kernel32.tick_count = d.tick_count;
    m.kernel32.performance_counter = d.performance_counter;
    m.kernel32.tls_slots_used = d.tls_slots_used;
    m.msvcrt.exit_callbacks = d.exit_callbacks;
    m.call_top = d.call_top;
    return stats;
}

} // namespace refcheck::emu
