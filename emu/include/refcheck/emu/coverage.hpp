// Basic-block coverage per routine, exportable as drcov (version 2: text header, module table,
// binary basic-block table; the format Lighthouse and Cartographer read).
//
// Recording is constant-time: the hits live in a flat table indexed by (block - span.begin) over
// the span of the covered routines, sized when the routines are set, so a block hook does one
// subtraction, one bounds check and one increment per recorded block.
//
// Two modes (CoverageMode, chosen by Machine::enable_coverage). `blocks`, the default: the machine
// hooks only the block starts not yet covered and stops hooking a block once it ran (Machine,
// docs/architecture.md), so which blocks ran is exact but `hits` is not a count. `executions`:
// every execution of every block in the routines is recorded, `hits` counts them (the old cost).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "refcheck/emu/image.hpp"
#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

struct Routine {
    std::string name;
    Range range;
};

struct BlockHits {
    uint32_t size = 0; // bytes, as last translated while the block was recorded
    uint32_t hits = 0; // executions, saturating at UINT32_MAX (CoverageMode::blocks: 1 if it ran)
};

enum class CoverageMode : uint8_t {
    blocks,     // which blocks ran: a block costs a hook call only until it is covered (default)
    executions, // every execution recorded: hits are exact counts (a hook call per block run)
};

// One routine per export and COFF symbol in the image's code, each running to the next such
// symbol or the end of its section (exports name an address first).
std::vector<Routine> routines_of(const Image& image);

class Coverage {
public:
    // The routines to cover; the table spans the lowest start to the highest end and is cleared.
    void set_routines(std::vector<Routine> routines, CoverageMode mode = CoverageMode::blocks);
    const std::vector<Routine>& routines() const { return routines_; }
    Range span() const { return span_; }
    CoverageMode mode() const { return mode_; }

    // A block of `size` bytes at `block` ran. Blocks outside the span are not recorded (the block
    // hooks cover the routines' ranges only).
    void record(Address block, uint32_t size) {
        const uint32_t at = block - span_.begin;
        if (at >= table_.size()) return;
        BlockHits& b = table_[at];
        if (b.hits == 0) [[unlikely]]
            first_run(block);
        b.size = size;
        b.hits += b.hits != UINT32_MAX;
    }
    // Forgets every block (per-input coverage: the machine hooks every block start again).
    void clear();

    // For the machine's hook rebuild (CoverageMode::blocks). The blocks first recorded since the
    // last take, in the order they first ran.
    std::vector<Address> take_fresh() { return std::exchange(fresh_, {}); }
    size_t fresh_count() const { return fresh_.size(); }
    // Bumped by clear() and set_routines(): blocks taken before are no longer covered.
    uint64_t generation() const { return generation_; }
    // Times the block was recorded (how hot it ran while still hooked); 0: never ran.
    uint32_t recorded(Address block) const {
        const uint32_t at = block - span_.begin;
        return at < table_.size() ? table_[at].hits : 0;
    }

    // Executed blocks by start address (built from the table on each call).
    std::map<Address, BlockHits> blocks() const;
    size_t executed_blocks() const;
    // Distinct blocks executed inside each routine's range, in routine order.
    std::vector<std::pair<std::string, size_t>> blocks_per_routine() const;

    // drcov v2 with one module (the image); block offsets are relative to the image base.
    void write_drcov(std::ostream& out, const Image& image) const;

private:
    void first_run(Address block); // out of line: keeps record() small for the every-block hook
    std::vector<Routine> routines_;
    Range span_;
    std::vector<BlockHits> table_; // one slot per byte of the span; hits == 0: never ran
    CoverageMode mode_ = CoverageMode::blocks;
    std::vector<Address> fresh_; // blocks mode: first recorded since take_fresh()
    uint64_t generation_ = 0;
};

} // namespace refcheck::emu
