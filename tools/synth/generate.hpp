// Generation: a profile and a seed in, the archives of a data root out (same seed, same bytes).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "model.hpp"
#include "roster.hpp"

namespace refcheck::synth {

struct DataRootFiles {
    std::vector<uint8_t> objects, textures, palette; // 3DDATA/3DOBJS.BIN, 3DDATA/OBJTEXT.BIN, 3DPAL.RGB
};

struct GenerationStats {
    int painter_fallbacks = 0; // item sets no separating face could order (drawn in authoring order)
};

Archive generate(const Profile& profile, uint64_t seed, GenerationStats* stats = nullptr);
DataRootFiles serialise(const Archive& a);
// Writes the three files under `root` (creating 3DDATA/) and census.json from the generator's
// own counters; returns that census as JSON text.
std::string write_data_root(const Archive& a, const std::filesystem::path& root);

} // namespace refcheck::synth
