// The layout around a loaded image: the image is placed first (its preferred base or the one
// asked for), then the stack and the heap go where it is not. An image that leaves the default
// places free (the stand-in, the test image) gets exactly the default addresses, so its heap
// addresses and reports do not move.
#include <algorithm>

#include "machine_impl.hpp"

namespace refcheck::emu {

namespace {

constexpr uint32_t page = 0x1000;
constexpr uint64_t space_end = 0x100000000ull;

struct Span { // [begin, end) in 64 bits: an image may end at 4 GiB
    uint64_t begin = 0, end = 0;
};

bool overlaps(Span a, Span b) { return a.begin < b.end && b.begin < a.end; }

bool is_free(Span s, const std::vector<Span>& taken) {
    return std::none_of(taken.begin(), taken.end(), [&](Span t) { return overlaps(s, t); });
}

} // namespace

void Machine::Impl::place_around(Range image_range) {
    Span img{image_range.begin, uint64_t{image_range.begin} + image_range.size()};
    std::vector<Span> taken = {{0, 0x10000}, {system_base, uint64_t{shim_base} + shim_size}, img};

    // The stack: 1 MiB with one unmapped page below it (overflow faults there).
    Span stack_span{stack_base - page, stack_top};
    if (!is_free(stack_span, taken)) {
        bool found = false;
        for (uint64_t s = 0x00100000; s + stack_size <= system_base; s += 0x100000) {
            if (is_free({s - page, s + stack_size}, taken)) {
                stack_span = {s - page, s + stack_size};
                found = true;
                break;
            }
        }
        if (!found)
            throw EmuError("no room for the 1 MiB stack around the image at " + hex(image_range.begin));
    }
    taken.push_back(stack_span);
    Range new_stack{static_cast<Address>(stack_span.begin + page), static_cast<Address>(stack_span.end)};

    // The heap: the default region when free, else the largest free gap below the system region
    // (user space: code of the era may treat pointers as signed), first of equals; above it only
    // when user space has no room.
    Span heap_span{GuestHeap::default_base, GuestHeap::default_limit};
    if (!is_free(heap_span, taken)) {
        std::sort(taken.begin(), taken.end(), [](Span a, Span b) { return a.begin < b.begin; });
        Span best{};
        constexpr uint64_t least = 16u << 20;
        for (uint64_t end_of_space : {uint64_t{system_base}, space_end}) {
            if (best.end - best.begin >= least) break;
            best = {};
            uint64_t cursor = 0;
            for (size_t i = 0; i <= taken.size(); ++i) {
                uint64_t limit = i < taken.size() ? std::min(taken[i].begin, end_of_space) : end_of_space;
                uint64_t begin = (cursor + GuestHeap::chunk - 1) / GuestHeap::chunk * GuestHeap::chunk;
                if (limit > begin && limit - begin > best.end - best.begin) best = {begin, limit};
                if (i < taken.size()) cursor = std::max(cursor, taken[i].end);
            }
        }
        constexpr uint64_t most = GuestHeap::default_limit - GuestHeap::default_base;
        if (best.end - best.begin < least)
            throw EmuError("no room for the guest heap around the image at " + hex(image_range.begin));
        best.end = std::min(best.end, best.begin + most);
        best.end = std::min<uint64_t>(best.end, 0xfff00000u); // Range ends are 32-bit
        heap_span = best;
    }
    heap.place({static_cast<Address>(heap_span.begin), static_cast<Address>(heap_span.end)});

    if (new_stack.begin != stack.begin) {
        unmap(stack.begin, stack.size());
        if (map(new_stack.begin, new_stack.size(), UC_PROT_READ | UC_PROT_WRITE) != UC_ERR_OK)
            throw EmuError("cannot map the stack at " + hex(new_stack.begin));
        stack = new_stack;
    }
}

} // namespace refcheck::emu
