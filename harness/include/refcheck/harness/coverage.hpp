// Coverage of the original: for each routine of the profile (and every routine those reach by a
// direct call or jump into the image's code), the basic blocks it has — found by disassembling
// its extent, up to the next known routine start, with Capstone, splitting at branch targets and
// after branches and calls — and those a run executed, from emu's ranged block hook (no hook
// outside these routines). Blocks made only of alignment padding or trap filler (nop, int3, ud2)
// after an unconditional transfer, and reached by no branch, are not counted.
#pragma once

#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/profile.hpp"
#include "refcheck/harness/report.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace refcheck::harness {

struct StaticBlock {
    std::uint32_t address = 0;
    std::uint32_t size = 0; // bytes
};

// What a linear sweep of one routine's extent found.
struct SweptCode {
    std::vector<StaticBlock> blocks;           // sorted by address
    std::vector<std::uint32_t> outgoing;       // direct call and jump targets outside the extent, sorted
    std::vector<std::uint32_t> pointer_tables; // T of [T + reg*4] outside a jmp (routine pointers?), sorted
    std::vector<std::uint32_t>
        immediates; // immediate operands of other instructions (addresses taken?), sorted
};

// Reads a 32-bit value of the image (for jump tables); nullopt when unmapped.
using ReadU32 = std::function<std::optional<std::uint32_t>(std::uint32_t)>;

// Basic blocks of the code bytes `code` placed at `address`. Targets of jump tables
// (jmp [table + reg*4]) are read through `read` when given.
SweptCode sweep(std::span<const std::uint8_t> code, std::uint32_t address, const ReadU32& read = {});

struct RoutineBlocks {
    std::string name;
    emu::Range range;
    bool in_profile = false; // an entry given by name (a profile routine); others were reached from one
    std::vector<StaticBlock> blocks;
    std::vector<std::uint32_t> calls; // routines it reaches (as discover_routines follows them), sorted
};

// The routines `entries` ({name, address}) and those they reach, transitively, in address order: by
// direct calls or jumps into the image's executable sections, through tables of routine pointers
// ([T + reg*4] in a call or a load: entries read while they point into code, up to the next export or symbol after
// T), and by taking the address of a routine the image names (an immediate operand equal to an
// export or symbol in code, e.g. a callback passed as an argument). A reached routine is named by the
// image's export or symbol at its address, or "sub_XXXXXXXX". Extents end at the next start among
// the image's exports and symbols, the entries and the reached routines, or at the section end.
std::vector<RoutineBlocks>
discover_routines(const emu::Machine& machine,
                  const std::vector<std::pair<std::string, std::uint32_t>>& entries);

// The profile's routines that have an address, as entries for discover_routines.
std::vector<std::pair<std::string, std::uint32_t>> profile_entries(const Profile& profile);

// Installs emu's coverage: one ranged block hook from the lowest routine start to the highest end.
void enable_coverage(emu::Machine& machine, const std::vector<RoutineBlocks>& routines);

// A routine's static block counts as executed when an executed (translated) block covers its start.
// {"image", "blocks", "executed", "routines": {name: {"address", "profile", "blocks", "executed",
// "missed": [addresses]}}}, routines in address order.
ojson coverage_json(const std::vector<RoutineBlocks>& routines, const emu::Coverage& executed,
                    const std::string& image_file);

// The coverage a run reached, per image, from the case reports (union of the cases' executed
// blocks): [{"image", "sha256", "blocks", "executed", "routines": {...}}], sorted by image and hash.
ojson merge_coverage(const std::vector<ojson>& case_reports);

// The drcov file of a machine's coverage (emu::Coverage::write_drcov).
std::vector<std::uint8_t> drcov_bytes(emu::Machine& machine);

// index.html section: per image, one table row per routine.
std::string coverage_html(const ojson& run_coverage);

} // namespace refcheck::harness
