#include <string>

#include "census.hpp"

namespace refcheck::synth {

const char* const kLandmarkNames[9] = {"null", "citblkd0", "citblkd1", "tarawa", "CasStrch",
                                       "a10",  "aim9l",    "ah64a",    "ah64d"};

int count_ramps(const std::vector<Rgb>& pal) {
    int ramps = 0;
    for (size_t r = 0; r + 16 <= pal.size(); r += 16) {
        bool rising = true;
        for (size_t i = r + 1; i < r + 16; ++i) {
            auto lum = [&](size_t k) { return 299 * pal[k].r + 587 * pal[k].g + 114 * pal[k].b; };
            if (lum(i) <= lum(i - 1)) rising = false;
        }
        ramps += rising;
    }
    return ramps;
}

nlohmann::ordered_json to_json(const Census& c) {
    using J = nlohmann::ordered_json;
    J j;
    j["records"] = {{"total", c.records},     {"s16", c.s16},
                    {"grid", c.grid},         {"empty_slots", c.empty_record_slots},
                    {"vertices", c.vertices}, {"normals", c.normals}};
    j["attachments"] = {{"records", c.attachment_records},
                        {"slots", c.attachment_slots},
                        {"zero_slots", c.zero_slots},
                        {"instances", c.instances},
                        {"attached_instances", c.attached_instances},
                        {"max_depth", c.max_depth}};
    J types = J::object(), ops = J::object();
    for (size_t i = 0; i < c.primitive_types.size(); ++i) types[std::to_string(i)] = c.primitive_types[i];
    for (size_t i = 0; i < c.opcodes.size(); ++i) ops[std::to_string(i)] = c.opcodes[i];
    int used = 0;
    for (int n : c.primitive_types) used += n > 0;
    j["primitive_types"] = {{"in_use", used}, {"histogram", types}};
    j["opcodes"] = ops;
    j["program"] = {{"primary_packets", c.primary_packets},
                    {"secondary_packets", c.secondary_packets},
                    {"packets_total", c.primary_packets + c.secondary_packets},
                    {"control_flow_instructions", c.control_flow},
                    {"nested_control_flow", c.nested_control_flow},
                    {"max_branch_depth", c.max_branch_depth}};
    j["select"] = {{"instructions", c.select_instructions},
                   {"cases", c.select_cases},
                   {"max_cases", c.select_max_cases},
                   {"unreachable_cases", c.select_unreachable_cases},
                   {"mask_beyond_table", c.select_mask_beyond_table}};
    j["lod"] = {{"chains", c.lod_chains}, {"records_in_chains", c.lod_records}, {"longest", c.lod_longest}};
    J tt = J::object(), ts = J::object();
    for (auto [t, n] : c.texture_types) tt[std::to_string(t)] = n;
    for (const auto& [s, n] : c.texture_sizes) ts[s] = n;
    j["textures"] = {{"slots", c.texture_slots},
                     {"populated", c.textures_populated},
                     {"types", tt},
                     {"sizes", ts},
                     {"textured_packets", c.textured_packets}};
    j["palette"] = {{"colours", c.palette_colours}, {"ramps", c.palette_ramps}};
    j["missing_normals"] = {{"models", c.missing_normal_models.size()},
                            {"models_anywhere", c.missing_normal_models_anywhere},
                            {"indices", c.missing_normal_models}};
    j["texture_faults"] = {{"u64_packets", c.u64_packets},
                           {"u64_models", c.u64_models},
                           {"v_past_image_models", c.v_past_image_models},
                           {"v_past_image_coordinates", c.v_past_image_coordinates},
                           {"v_max", c.v_max}};
    J subs = J::array();
    for (auto [r, g] : c.shadow_substitutions) subs.push_back({{"record", r}, {"geometry", g}});
    j["shadows"] = {{"casters", c.shadow_casters}, {"receivers", c.receivers}, {"substitutions", subs}};
    j["gameplay"] = {{"mobile_collision", c.mobile_collision},
                     {"target_levels",
                      {{"none", c.target_levels[0]},
                       {"10000", c.target_levels[1]},
                       {"30000", c.target_levels[2]},
                       {"50000", c.target_levels[3]}}}};
    j["checks"] = {{"vertex_refs_out_of_range", c.vertex_refs_out_of_range},
                   {"unused_vertices", c.unused_vertices},
                   {"short_polygons", c.short_polygons},
                   {"unpopulated_texture_refs", c.unpopulated_texture_refs},
                   {"bad_secondary_lengths", c.bad_secondary_lengths},
                   {"attach_slots_out_of_range", c.attach_slots_out_of_range},
                   {"uv_beyond_edge", c.uv_beyond_edge}};
    J lm = J::object();
    for (const char* n : kLandmarkNames)
        if (c.landmarks.count(n)) lm[n] = c.landmarks.at(n);
    j["landmarks"] = lm;
    return j;
}

} // namespace refcheck::synth
