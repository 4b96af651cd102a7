// Hostile data roots: copies of the small synthetic archives, each breaking exactly one thing that
// docs/formats/apache-3d.md section 18 calls invalid, so that a case can check that both the
// reimplementation's validator and the original refuse it (cases/hostile-*.json); and a few valid
// edges the generator never writes (an empty slot, an empty texture table: cases/edge-*.json).
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "generate.hpp"

namespace refcheck::synth {

struct HostileRoot {
    std::string name;                    // the data root's folder name
    std::string archive;                 // the file broken: "3DOBJS.BIN", "OBJTEXT.BIN" or "3DPAL.RGB"
    std::optional<std::uint32_t> record; // the slot broken (none: the table itself)
    std::string rule;                    // the rule id of section 18
    std::string breaks;                  // what was changed, in words
    bool valid = false;                  // an edge of the format, not a break: both sides accept it
    DataRootFiles files;
    // "archive": the loader refuses it; "program": the loader accepts it and one record's draw
    // program is broken; "program-truncated": the same, the file ending inside that program.
    std::string kind = "archive";
    bool missing = false; // the broken archive is not written at all (the data root lacks it)
};

// Little-endian words of an archive being broken (std::logic_error outside it: a generator bug).
std::uint32_t get32(const std::vector<uint8_t>& b, std::size_t at);
void set32(std::vector<uint8_t>& b, std::size_t at, std::uint32_t v);

// The roots derived from `base` (the files of a valid data root), in a fixed order.
std::vector<HostileRoot> hostile_roots(const DataRootFiles& base);

// The draw-program roots (hostile_program.cpp), appended to `out`: the last record's program
// replaced by one that breaks one rule of section 18 (cases/program-invalid-*.json,
// cases/shadow-invalid-*.json).
void add_program_roots(std::vector<HostileRoot>& out, const DataRootFiles& base);

// Writes each root under `dir`/NAME and `dir`/hostile.json (the manifest: name, archive, record,
// rule, breaks).
void write_hostile_roots(const std::vector<HostileRoot>& roots, const std::filesystem::path& dir);

} // namespace refcheck::synth
