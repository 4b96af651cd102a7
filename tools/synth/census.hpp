// The census of a data root: what the archives contain, counted two ways — from the generator's
// in-memory archive (census_of) and by decoding the written files (decode_census, decode.cpp).
#pragma once
#include <array>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model.hpp"

namespace refcheck::synth {

struct Census {
    int records = 0, s16 = 0, grid = 0, empty_record_slots = 0;
    int attachment_records = 0, attachment_slots = 0, zero_slots = 0, instances = 0, attached_instances = 0,
        max_depth = 0;
    std::array<int, 22> primitive_types{};
    std::array<int, 8> opcodes{};
    int primary_packets = 0, secondary_packets = 0, control_flow = 0, nested_control_flow = 0,
        max_branch_depth = 0;
    int select_instructions = 0, select_cases = 0, select_max_cases = 0, select_unreachable_cases = 0,
        select_mask_beyond_table = 0;
    int lod_chains = 0, lod_records = 0, lod_longest = 0;
    int texture_slots = 0, textures_populated = 0, textured_packets = 0;
    std::map<int, int> texture_types;         // type -> count
    std::map<std::string, int> texture_sizes; // "64x64" -> count
    int palette_colours = 0, palette_ramps = 0;
    std::vector<int> missing_normal_models; // reached in the standard isolated view (state 0)
    int missing_normal_models_anywhere = 0;
    int u64_packets = 0;
    std::vector<int> u64_models;
    std::vector<int> v_past_image_models;
    int v_past_image_coordinates = 0, v_max = 0;
    std::vector<int> receivers;
    std::vector<std::pair<int, int>> shadow_substitutions; // (record, shadow geometry)
    int shadow_casters = 0, mobile_collision = 0;
    std::array<int, 4> target_levels{}; // 0, 10000, 30000, 50000
    // Well-formedness: all zero in a good archive.
    int vertex_refs_out_of_range = 0, unused_vertices = 0, short_polygons = 0, unpopulated_texture_refs = 0,
        bad_secondary_lengths = 0, attach_slots_out_of_range = 0, uv_beyond_edge = 0;
    int vertices = 0, normals = 0;
    std::map<std::string, int> landmarks; // name -> first record with it
};

nlohmann::ordered_json to_json(const Census& c);

// Counted from the generator's in-memory archive.
Census census_of(const Archive& a);
// Counted by decoding 3DDATA/3DOBJS.BIN, 3DDATA/OBJTEXT.BIN and 3DPAL.RGB under `root`.
Census decode_census(const std::filesystem::path& root);

// Shared definitions.
int count_ramps(const std::vector<Rgb>& palette); // 16-colour runs of strictly rising brightness
extern const char* const kLandmarkNames[9];

} // namespace refcheck::synth
