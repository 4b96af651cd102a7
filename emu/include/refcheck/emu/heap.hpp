// The deterministic guest heap.
//
// Decisions (see also describe()):
// - A region placed once, before the first allocation (default 0x10000000-0x2fffffff; the machine
//   moves it when the loaded image lies there: Machine's layout), bump allocation, 16-byte
//   alignment (page alignment for VirtualAlloc),
//   and a guard gap of at least 32 bytes after every allocation. The same sequence of requests
//   gives the same addresses on every run and in every machine.
// - Freed memory is never reused, so a stale pointer stays attributable ("inside freed allocation
//   #7"). The region is 512 MiB of guest address space (when moved: at most 512 MiB, at least
//   16 MiB), mapped in 1 MiB chunks as it fills; it is zero when first handed out, so
//   allocations are deterministic zero-filled.
// - Guard gaps are MAPPED: a stray read past an allocation does not fault (the original engine
//   really reads past a texture allocation and the run must go on). describe() attributes such an
//   address; Machine::watch_heap_strays() optionally reports every such access as it happens.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

enum class AllocationKind : uint8_t { heap, global, local, virtual_memory, crt };
std::string_view to_string(AllocationKind k);

struct Allocation {
    uint32_t index = 0; // #1, #2, ... in order of allocation
    Address address = 0;
    uint32_t size = 0;   // bytes requested
    std::string routine; // the routine being called when it was made
    AllocationKind kind = AllocationKind::heap;
    bool freed = false;
    Address end() const { return address + size; }
};

class GuestHeap {
public:
    // Where the region is unless the machine places it elsewhere (an image there).
    static constexpr Address default_base = 0x10000000;
    static constexpr Address default_limit = 0x30000000;
    static constexpr uint32_t guard_gap = 32;
    static constexpr uint32_t alignment = 16;
    static constexpr uint32_t chunk = 0x100000;

    // map(begin, size) maps fresh read/write guest memory; called as the heap grows.
    explicit GuestHeap(std::function<void(Address, uint32_t)> map) : map_(std::move(map)) {}

    // Moves the region; only before the first allocation (EmuError otherwise).
    void place(Range region);
    Range region() const { return {base_, limit_}; }

    // Returns 0 when the region is exhausted (size 0 gives a distinct, valid address).
    Address allocate(uint32_t size, std::string_view routine, AllocationKind kind,
                     uint32_t align = alignment);
    // Marks the allocation starting at `address` freed; false if there is none live there.
    bool release(Address address);
    // The live allocation starting exactly at `address`.
    const Allocation* live_at(Address address) const;
    // The allocation whose bytes contain `address`, if any (live or freed).
    const Allocation* containing(Address address) const;
    // True when `address` is in the heap but in no allocation (a guard gap or unused tail).
    bool in_gap(Address address) const;
    // "0x10001010 is 16 bytes past allocation #12 (4,108 bytes, made by initialise_3d_objects_)";
    // empty when `address` is not in the heap region.
    std::string describe(Address address) const;

    // The first request the region refused that it would have served empty: refused only because
    // freed blocks are never reused (the bookkeeping keeps every block for attribution). A real
    // heap might have served it, so what the original did next is not the original's own doing.
    // Kept across set_state (a restore does not undo the refusal).
    struct SpaceRefusal {
        uint32_t size = 0;
        std::string routine;
        uint32_t in_use = 0; // bytes of the region used when it was refused
    };
    const std::optional<SpaceRefusal>& refused_for_space() const { return refused_; }

    const std::vector<Allocation>& allocations() const { return allocations_; }
    Range used() const { return {base_, next_}; }
    Range mapped() const { return {base_, mapped_end_}; }

    // The bookkeeping as it stands, and putting it back (Machine::snapshot and Machine::restore,
    // which also unmap what was mapped after it).
    struct State {
        std::vector<Allocation> allocations;
        std::map<Address, uint32_t> by_address;
        Address base = 0, limit = 0, next = 0, mapped_end = 0;
    };
    State state() const { return {allocations_, by_address_, base_, limit_, next_, mapped_end_}; }
    void set_state(State s);

private:
    const Allocation* at_or_below(Address address) const;

    std::function<void(Address, uint32_t)> map_;
    std::vector<Allocation> allocations_;
    std::map<Address, uint32_t> by_address_; // start address -> index into allocations_
    Address base_ = default_base;
    Address limit_ = default_limit;
    Address next_ = default_base;
    Address mapped_end_ = default_base;
    std::optional<SpaceRefusal> refused_;
};

} // namespace refcheck::emu
