// Basic-block coverage per routine, exportable as drcov (version 2: text header, module table,
// binary basic-block table; the format Lighthouse and Cartographer read).
//
// Recording is constant-time: the hits live in a flat table indexed by (block - span.begin) over
// the span of the covered routines, sized when the routines are set, so the block hook does one
// subtraction, one bounds check and one increment per executed block.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "refcheck/emu/image.hpp"
#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

struct Routine {
    std::string name;
    Range range;
};

struct BlockHits {
    uint32_t size = 0; // bytes, as last translated
    uint32_t hits = 0; // executions, saturating at UINT32_MAX
};

// One routine per export and COFF symbol in the image's code, each running to the next such
// symbol or the end of its section (exports name an address first).
std::vector<Routine> routines_of(const Image& image);

class Coverage {
public:
    // The routines to cover; the table spans the lowest start to the highest end and is cleared.
    void set_routines(std::vector<Routine> routines);
    const std::vector<Routine>& routines() const { return routines_; }
    Range span() const { return span_; }

    // A block of `size` bytes at `block` ran. Blocks outside the span are not recorded (the block
    // hook covers the routines' ranges only).
    void record(Address block, uint32_t size) {
        const uint32_t at = block - span_.begin;
        if (at >= table_.size()) return;
        BlockHits& b = table_[at];
        b.size = size;
        b.hits += b.hits != UINT32_MAX;
    }
    void clear();

    // Executed blocks by start address (built from the table on each call).
    std::map<Address, BlockHits> blocks() const;
    size_t executed_blocks() const;
    // Distinct blocks executed inside each routine's range, in routine order.
    std::vector<std::pair<std::string, size_t>> blocks_per_routine() const;

    // drcov v2 with one module (the image); block offsets are relative to the image base.
    void write_drcov(std::ostream& out, const Image& image) const;

private:
    std::vector<Routine> routines_;
    Range span_;
    std::vector<BlockHits> table_; // one slot per byte of the span; hits == 0: never ran
};

} // namespace refcheck::emu
