// Basic-block coverage per routine, exportable as drcov (version 2: text header, module table,
// binary basic-block table; the format Lighthouse and Cartographer read).
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
    uint32_t size = 0;   // bytes
    uint64_t hits = 0;
};

// One routine per export and COFF symbol in the image's code, each running to the next such
// symbol or the end of its section (exports name an address first).
std::vector<Routine> routines_of(const Image& image);

class Coverage {
public:
    void set_routines(std::vector<Routine> routines) { routines_ = std::move(routines); }
    const std::vector<Routine>& routines() const { return routines_; }
    void record(Address block, uint32_t size);
    void clear() { blocks_.clear(); }

    const std::map<Address, BlockHits>& blocks() const { return blocks_; }
    // Distinct blocks executed inside each routine's range, in routine order.
    std::vector<std::pair<std::string, size_t>> blocks_per_routine() const;

    // drcov v2 with one module (the image); block offsets are relative to the image base.
    void write_drcov(std::ostream& out, const Image& image) const;

private:
    std::vector<Routine> routines_;
    std::map<Address, BlockHits> blocks_;
};

}  // namespace refcheck::emu
