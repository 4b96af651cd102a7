#include "refcheck/emu/heap.hpp"

namespace refcheck::emu {

std::string_view to_string(AllocationKind k) {
    switch (k) {
        case AllocationKind::heap: return "HeapAlloc";
        case AllocationKind::global: return "GlobalAlloc";
        case AllocationKind::local: return "LocalAlloc";
        case AllocationKind::virtual_memory: return "VirtualAlloc";
        case AllocationKind::crt: return "malloc";
    }
    return "?";
}

namespace {
Address align_up(uint64_t v, uint32_t align) { return static_cast<Address>((v + align - 1) / align * align); }
} // namespace

void GuestHeap::place(Range region) {
    if (!allocations_.empty() || mapped_end_ != base_)
        throw EmuError("the guest heap cannot move after its first allocation (at " + hex(base_) + ")");
    if (region.end <= region.begin || region.begin % chunk != 0)
        throw EmuError("guest heap region " + hex(region.begin) + "-" + hex(region.end) +
                       " is empty or unaligned");
    base_ = next_ = mapped_end_ = region.begin;
    limit_ = region.end;
}

Address GuestHeap::allocate(uint32_t size, std::string_view routine, AllocationKind kind, uint32_t align) {
    uint64_t start = align_up(next_, align);
    uint64_t end = start + size;
    uint64_t next = end + guard_gap;
    if (next > limit_) {
        if (!refused_ && align_up(base_, align) + uint64_t{size} + guard_gap <= limit_)
            refused_ = SpaceRefusal{size, std::string(routine), next_ - base_};
        return 0;
    }
    if (next > mapped_end_) {
        Address new_end = align_up(next, chunk);
        map_(mapped_end_, new_end - mapped_end_);
        mapped_end_ = new_end;
    }
    Allocation a;
    a.index = static_cast<uint32_t>(allocations_.size() + 1);
    a.address = static_cast<Address>(start);
    a.size = size;
    a.routine = std::string(routine);
    a.kind = kind;
    by_address_[a.address] = static_cast<uint32_t>(allocations_.size());
    allocations_.push_back(std::move(a));
    next_ = static_cast<Address>(next);
    return static_cast<Address>(start);
}

void GuestHeap::set_state(State s) {
    allocations_ = std::move(s.allocations);
    by_address_ = std::move(s.by_address);
    base_ = s.base;
    limit_ = s.limit;
    next_ = s.next;
    mapped_end_ = s.mapped_end;
}

bool GuestHeap::release(Address address) {
    auto it = by_address_.find(address);
    if (it == by_address_.end() || allocations_[it->second].freed) return false;
    allocations_[it->second].freed = true;
    return true;
}

const Allocation* GuestHeap::live_at(Address address) const {
    auto it = by_address_.find(address);
    if (it == by_address_.end() || allocations_[it->second].freed) return nullptr;
    return &allocations_[it->second];
}

const Allocation* GuestHeap::at_or_below(Address address) const {
    auto it = by_address_.upper_bound(address);
    if (it == by_address_.begin()) return nullptr;
    return &allocations_[std::prev(it)->second];
}

const Allocation* GuestHeap::containing(Address address) const {
    const Allocation* a = at_or_below(address);
    if (a == nullptr || address >= a->end()) return nullptr;
    return a;
}

bool GuestHeap::in_gap(Address address) const {
    return address >= base_ && address < mapped_end_ && containing(address) == nullptr;
}

std::string GuestHeap::describe(Address address) const {
    if (address < base_ || address >= limit_) return {};
    const Allocation* a = at_or_below(address);
    std::string where = hex(address);
    if (a == nullptr) return where + " is in the heap before the first allocation";
    std::string what = "allocation #" + std::to_string(a->index) + " (" + with_commas(a->size) + " bytes, " +
                       (a->kind == AllocationKind::heap ? "" : std::string(to_string(a->kind)) + ", ") +
                       "made by " + a->routine + (a->freed ? ", freed" : "") + ")";
    if (address < a->end())
        return where + " is at offset " + with_commas(address - a->address) + " in " + what;
    if (address >= mapped_end_)
        return where + " is " + with_commas(address - a->end()) + " bytes past " + what +
               ", beyond the mapped heap";
    return where + " is " + with_commas(address - a->end()) + " bytes past " + what;
}

} // namespace refcheck::emu
