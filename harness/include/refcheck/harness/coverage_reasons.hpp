// Why blocks of the original stay unreached. A checked-in file (cases/coverage/reasons.json, schema
// refcheck-coverage-reasons/1) names groups of routines (each an entry list; a group holds its
// entries and every routine they reach by direct calls or jumps) and gives a cause for each block
// of those routines that no case reaches.
//
// A block is named by a key that survives rebuilding the image with other files: its routine's name
// and its code — the block's instructions as Capstone prints them, with every address inside the
// image written as the name of the export or COFF symbol starting there, or "@" — plus, when the
// routine has several blocks of the same code, which of them (1-based, in address order). Raw
// addresses move whenever another file joins the image; the routine's own code does not, and when
// it does change the reasons must be looked at again anyway.
//
// A case report gives, for every routine of a group, each unreached block with its cause, the
// blocks a reason names that the case did reach, and the reasons that name no block at all; the
// run index joins them (a block unreached by every case keeps its reason; a reason whose block
// some case reached, or that names no block, is stale).
#pragma once

#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/coverage.hpp"
#include "refcheck/harness/report.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace refcheck::harness {

inline constexpr const char* kCoverageReasonsSchema = "refcheck-coverage-reasons/1";

// A bad reasons file (a preflight problem, exit 2). The message names the file and the entry.
struct CoverageReasonsError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct BlockKey {
    std::string routine;
    std::string code;
    std::uint32_t occurrence = 1;
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 flags the 0 of a defaulted <=>'s own compare
    auto operator<=>(const BlockKey&) const = default;
};

struct CoverageReason {
    BlockKey key;
    std::string cause; // an id of CoverageReasons::causes
    std::string note;  // what this block is, in the words of the source (may be empty)
};

struct CoverageReasons {
    std::string file, sha256; // file name and SHA-256 of the reasons file
    std::string image;        // the image file name the reasons are for ("standin.exe")
    // The SHA-256 of that image: the reasons apply to exactly this image. Any other (a rebuild
    // with other flags, another image) gets none of them, and its coverage says so
    // ("reasons_for_another_image"); its unreached blocks stand without causes.
    std::string image_sha256;
    std::vector<std::pair<std::string, std::vector<std::string>>> groups; // name -> entry routines
    std::map<std::string, std::string> causes;                            // id -> explanation
    std::vector<CoverageReason> blocks;
};

CoverageReasons load_coverage_reasons(const std::filesystem::path& file); // throws CoverageReasonsError

// A case's coverage on an image the reasons are not for: "reasons_for_another_image" names the
// reasons file (name, SHA-256) and the image it is for (name, SHA-256).
void note_reasons_for_another_image(ojson& coverage, const CoverageReasons& reasons);

// One block of a group routine, keyed (computed before any patch is applied to the image).
struct KeyedBlock {
    std::uint32_t address = 0, offset = 0; // offset from the routine's start
    BlockKey key;
    std::vector<std::string> groups;
};

// The code of a block as its key spells it. `names` maps addresses to export/symbol names.
std::string block_code(const emu::Machine& machine, const StaticBlock& block,
                       const std::map<emu::Address, std::string>& names);

// The blocks of every routine in a group of `reasons`, keyed, in routine then address order.
std::vector<KeyedBlock> keyed_blocks(const emu::Machine& machine, const std::vector<RoutineBlocks>& routines,
                                     const CoverageReasons& reasons);

// discover_routines and keyed_blocks, remembered across the cases a process runs (a worker runs many
// on one image): a call is answered from an earlier one when the image (by SHA-256) and the entries
// are the same and every read of guest memory the earlier discovery made (the code it swept, the
// routine-pointer tables it followed, what was mapped) gives the same answer on this machine,
// checked on every call; so the answer is the one discover_routines would give. The keyed blocks of
// that discovery are kept by the reasons' SHA-256. The few most recent discoveries are kept.
class DiscoveryMemo {
public:
    struct Log {
        std::vector<std::pair<std::uint32_t, std::vector<std::uint8_t>>> bytes;
        std::vector<std::pair<std::uint32_t, bool>> mapped;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> words;
    };
    // `reused` (when given) says whether the answer was an earlier call's.
    const std::vector<RoutineBlocks>&
    routines(const emu::Machine& machine, const std::string& image_sha256,
             const std::vector<std::pair<std::string, std::uint32_t>>& entries, bool* reused = nullptr);
    // keyed_blocks of what routines() just returned (it must be that vector).
    const std::vector<KeyedBlock>& keyed(const emu::Machine& machine,
                                         const std::vector<RoutineBlocks>& routines,
                                         const CoverageReasons& reasons);

private:
    struct Entry {
        std::string image_sha256;
        std::vector<std::pair<std::string, std::uint32_t>> entries;
        Log log;
        std::vector<RoutineBlocks> routines;
        std::map<std::string, std::vector<KeyedBlock>> keyed; // by the reasons' SHA-256
        bool holds_on(const emu::Machine& machine) const;
    };
    static constexpr std::size_t kEntries = 4;
    std::vector<Entry> entries_; // most recent first
};

// Adds to a case's coverage (coverage_json) the groups' routines' "groups", "unreached" and
// "reached_with_reason", and "reasons" (file, hash, the causes' explanations, reasons naming no
// block).
void annotate_coverage(ojson& coverage, const std::vector<KeyedBlock>& blocks,
                       const CoverageReasons& reasons);

// Run level: joins the annotations of one image's case coverages into `merged` (merge_coverage's
// entry for that image, whose "missed" lists are already the intersection): the groups' tallies and
// the stale reasons.
void merge_reasons(ojson& merged, const std::vector<const ojson*>& case_coverages);

// index.html: per group, the unreached blocks with their causes, and the stale reasons.
std::string reasons_html(const ojson& merged_image_coverage);

} // namespace refcheck::harness
