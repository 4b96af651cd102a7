// A test-local reader of a data root, written from docs/formats/apache-3d.md and independent of
// both the generator's counters and `synth census` (tools/synth/decode.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace refcheck::synth::test {

struct Facts {
    int records = 0, s16 = 0, grid = 0;
    int attachment_records = 0, zero_slots = 0, instances = 0, attached = 0, deepest = 0;
    std::array<int, 22> types{};
    std::array<int, 8> ops{};
    int packets = 0, control_flow = 0, nested_control_flow = 0;
    int selects = 0, select_cases = 0, select_unreachable = 0;
    int lod_chains = 0, lod_longest = 0;
    int tex_slots = 0, tex_populated = 0;
    std::set<uint32_t> tex_types;
    bool tex_all_64x64 = true;
    int colours = 0, ramps = 0;
    bool colour0_black = false;
    std::vector<int> missing_state0, missing_anywhere;
    int u64_packets = 0;
    std::vector<int> v_past_models;
    std::vector<int> receivers;
    std::vector<std::pair<int, int>> shadow_subs;
    // Well-formedness: zero in a good archive.
    int bad_vertex_refs = 0, unused_vertices = 0, short_polygons = 0, unpopulated_tex = 0, bad_lengths = 0,
        bad_slots = 0, grid_bytes_out = 0, s16_too_large = 0, u_out = 0, bad_normal_counts = 0,
        bad_colours = 0, deep_nesting = 0;
    std::map<std::string, int> index_of; // first record with each short name
    std::vector<std::string> names, descriptions;
};

Facts read_data_root(const std::filesystem::path& root);

} // namespace refcheck::synth::test
