// The census: the test-local reader decodes the written files on its own and must agree with the
// generator's census.json, with `synth census` (decode_census), and, for the default profile,
// with the reference archive's numbers (docs/formats/apache-3d.md, section 19).
#include <gtest/gtest.h>

#include <fstream>
#include <memory>

#include "archive_reader.hpp"
#include "census.hpp"
#include "generate.hpp"
#include "temp_root.hpp"

namespace refcheck::synth {
namespace {

using nlohmann::ordered_json;

struct Generated {
    std::unique_ptr<test::TempRoot> root;
    ordered_json census; // written by the generator from its own counters
    test::Facts facts;   // read back by the test-local reader
};

Generated make(const std::string& profile) {
    Generated g;
    g.root = std::make_unique<test::TempRoot>("census-" + profile);
    write_data_root(generate(profile_named(profile), 1), g.root->path());
    std::ifstream f(g.root->path() / "census.json");
    g.census = ordered_json::parse(f);
    g.facts = test::read_data_root(g.root->path());
    return g;
}

const Generated& default_root() {
    static const Generated g = make("default");
    return g;
}

const Generated& small_root() {
    static const Generated g = make("small");
    return g;
}

void expect_well_formed(const test::Facts& f) {
    EXPECT_EQ(f.bad_vertex_refs, 0);
    EXPECT_EQ(f.unused_vertices, 0);
    EXPECT_EQ(f.short_polygons, 0);
    EXPECT_EQ(f.unpopulated_tex, 0);
    EXPECT_EQ(f.bad_lengths, 0);
    EXPECT_EQ(f.bad_slots, 0);
    EXPECT_EQ(f.grid_bytes_out, 0);
    EXPECT_EQ(f.s16_too_large, 0);
    EXPECT_EQ(f.u_out, 0);
    EXPECT_EQ(f.bad_normal_counts, 0);
    EXPECT_EQ(f.bad_colours, 0);
    EXPECT_EQ(f.deep_nesting, 0);
    for (size_t i = 0; i < f.names.size(); ++i) {
        EXPECT_FALSE(f.names[i].empty()) << i;
        EXPECT_FALSE(f.descriptions[i].empty()) << i;
    }
}

// The reader's facts against the generator's census.json.
void expect_agreement(const test::Facts& f, const ordered_json& c) {
    EXPECT_EQ(f.records, c["records"]["total"]);
    EXPECT_EQ(f.s16, c["records"]["s16"]);
    EXPECT_EQ(f.grid, c["records"]["grid"]);
    EXPECT_EQ(f.attachment_records, c["attachments"]["records"]);
    EXPECT_EQ(f.zero_slots, c["attachments"]["zero_slots"]);
    EXPECT_EQ(f.instances, c["attachments"]["instances"]);
    EXPECT_EQ(f.attached, c["attachments"]["attached_instances"]);
    EXPECT_EQ(f.deepest, c["attachments"]["max_depth"]);
    for (int t = 0; t < 22; ++t)
        EXPECT_EQ(f.types[t], c["primitive_types"]["histogram"][std::to_string(t)]) << "type " << t;
    for (int o = 0; o < 8; ++o) EXPECT_EQ(f.ops[o], c["opcodes"][std::to_string(o)]) << "opcode " << o;
    EXPECT_EQ(f.packets, c["program"]["packets_total"]);
    EXPECT_EQ(f.control_flow, c["program"]["control_flow_instructions"]);
    EXPECT_EQ(f.nested_control_flow, c["program"]["nested_control_flow"]);
    EXPECT_EQ(f.selects, c["select"]["instructions"]);
    EXPECT_EQ(f.select_cases, c["select"]["cases"]);
    EXPECT_EQ(f.select_unreachable, c["select"]["unreachable_cases"]);
    EXPECT_EQ(f.lod_chains, c["lod"]["chains"]);
    EXPECT_EQ(f.lod_longest, c["lod"]["longest"]);
    EXPECT_EQ(f.tex_slots, c["textures"]["slots"]);
    EXPECT_EQ(f.tex_populated, c["textures"]["populated"]);
    EXPECT_EQ(f.colours, c["palette"]["colours"]);
    EXPECT_EQ(f.ramps, c["palette"]["ramps"]);
    EXPECT_EQ(f.missing_state0, c["missing_normals"]["indices"].get<std::vector<int>>());
    EXPECT_EQ(int(f.missing_anywhere.size()), c["missing_normals"]["models_anywhere"]);
    EXPECT_EQ(f.u64_packets, c["texture_faults"]["u64_packets"]);
    EXPECT_EQ(f.v_past_models, c["texture_faults"]["v_past_image_models"].get<std::vector<int>>());
    EXPECT_EQ(f.receivers, c["shadows"]["receivers"].get<std::vector<int>>());
    ASSERT_EQ(f.shadow_subs.size(), c["shadows"]["substitutions"].size());
    for (size_t i = 0; i < f.shadow_subs.size(); ++i) {
        EXPECT_EQ(f.shadow_subs[i].first, c["shadows"]["substitutions"][i]["record"]);
        EXPECT_EQ(f.shadow_subs[i].second, c["shadows"]["substitutions"][i]["geometry"]);
    }
    for (const auto& [name, index] : c["landmarks"].items()) EXPECT_EQ(f.index_of.at(name), index) << name;
}

TEST(SynthCensus, DefaultArchiveReproducesTheReferenceCensus) {
    const test::Facts& f = default_root().facts;
    EXPECT_EQ(f.records, 1314);
    EXPECT_EQ(f.s16, 848);
    EXPECT_EQ(f.grid, 466);
    EXPECT_EQ(f.attachment_records, 250);
    EXPECT_EQ(f.instances, 2094);
    EXPECT_EQ(f.attached, 780);
    EXPECT_GT(f.zero_slots, 0);
    EXPECT_LE(f.deepest, 8);
    for (int t = 0; t < 22; ++t) EXPECT_GT(f.types[t], 0) << "type " << t;
    for (int o = 0; o < 8; ++o) EXPECT_GT(f.ops[o], 0) << "opcode " << o;
    EXPECT_GE(f.packets, 70364);
    EXPECT_GE(f.control_flow, 15768);
    EXPECT_GT(f.nested_control_flow, 0);
    EXPECT_GT(f.selects, 0);
    EXPECT_EQ(f.select_unreachable, 0);
    EXPECT_GT(f.lod_chains, 0);
    EXPECT_EQ(f.tex_slots, 480);
    EXPECT_EQ(f.tex_populated, 43);
    EXPECT_EQ(f.tex_types, std::set<uint32_t>{2});
    EXPECT_TRUE(f.tex_all_64x64);
    EXPECT_EQ(f.colours, 224);
    EXPECT_EQ(f.ramps, 14);
    EXPECT_TRUE(f.colour0_black);
    EXPECT_EQ(f.missing_state0.size(), 71u);
    EXPECT_EQ(f.missing_anywhere, f.missing_state0); // no other model has an out-of-range normal
    EXPECT_GE(f.u64_packets, 3);
    ASSERT_EQ(f.v_past_models.size(), 1u);
    EXPECT_EQ(f.names[f.v_past_models[0]], "CasStrch");
    EXPECT_EQ(f.receivers, std::vector<int>{130});
    EXPECT_EQ(f.names[130], "tarawa");
    const std::vector<std::pair<int, int>> subs{{0x4ba, 0x40a}, {0x4bb, 0x40a}};
    EXPECT_EQ(f.shadow_subs, subs);
    EXPECT_EQ(f.index_of.at("citblkd0"), 16);
    EXPECT_EQ(f.index_of.at("null"), 0);
    expect_well_formed(f);
}

TEST(SynthCensus, DefaultReaderAgreesWithTheGeneratorsCensus) {
    expect_agreement(default_root().facts, default_root().census);
}

TEST(SynthCensus, DefaultCensusCommandAgreesWithTheGeneratorsCensus) {
    EXPECT_EQ(to_json(decode_census(default_root().root->path())), default_root().census);
}

TEST(SynthCensus, NullModelHasNoVerticesAndAReturnOnlyProgram) {
    std::ifstream f(default_root().root->path() / "3DDATA" / "3DOBJS.BIN", std::ios::binary);
    const std::vector<uint8_t> b{std::istreambuf_iterator<char>(f), {}};
    auto u32 = [&](size_t o) {
        return uint32_t(b[o]) | uint32_t(b[o + 1]) << 8 | uint32_t(b[o + 2]) << 16 | uint32_t(b[o + 3]) << 24;
    };
    const size_t base = u32(4);
    EXPECT_EQ(u32(base), 0u);                 // signed 16-bit
    EXPECT_EQ(b[base + u32(base + 0x34)], 0); // vertex count 0 (low byte)
    EXPECT_EQ(b[base + u32(base + 0x34) + 1], 0);
    EXPECT_EQ(b[base + u32(base + 0x3c)], 7); // program: op 7
}

TEST(SynthCensus, SmallArchiveCoversEveryFeature) {
    const test::Facts& f = small_root().facts;
    EXPECT_GE(f.records, 30);
    EXPECT_LE(f.records, 60);
    EXPECT_GT(f.s16, 0);
    EXPECT_GT(f.grid, 0);
    for (int t = 0; t < 22; ++t) EXPECT_GT(f.types[t], 0) << "type " << t;
    for (int o = 0; o < 8; ++o) EXPECT_GT(f.ops[o], 0) << "opcode " << o;
    EXPECT_EQ(f.select_unreachable, 0);
    EXPECT_GT(f.select_cases, f.selects);
    EXPECT_GT(f.nested_control_flow, 0);
    EXPECT_GT(f.zero_slots, 0);
    EXPECT_GE(f.deepest, 2); // nested attachments
    EXPECT_GT(f.attached, 0);
    EXPECT_GE(f.missing_state0.size(), 1u);
    EXPECT_EQ(f.missing_anywhere, f.missing_state0);
    EXPECT_GE(f.u64_packets, 1);
    ASSERT_EQ(f.v_past_models.size(), 1u);
    EXPECT_EQ(f.names[f.v_past_models[0]], "CasStrch");
    ASSERT_EQ(f.receivers.size(), 1u);
    EXPECT_EQ(f.names[f.receivers[0]], "tarawa");
    ASSERT_EQ(f.shadow_subs.size(), 2u);
    EXPECT_EQ(f.names[f.shadow_subs[0].first], "ah64a");
    EXPECT_EQ(f.names[f.shadow_subs[1].first], "ah64d");
    EXPECT_EQ(f.names[f.shadow_subs[0].second], "ah64shd");
    EXPECT_EQ(f.shadow_subs[1].second, f.shadow_subs[0].second);
    EXPECT_GE(f.lod_chains, 1);
    EXPECT_GT(f.tex_populated, 0);
    EXPECT_EQ(f.tex_types, std::set<uint32_t>{2});
    EXPECT_EQ(f.index_of.at("null"), 0);
    expect_well_formed(f);
}

TEST(SynthCensus, SmallReaderAgreesWithTheGeneratorsCensus) {
    expect_agreement(small_root().facts, small_root().census);
}

TEST(SynthCensus, SmallCensusCommandAgreesWithTheGeneratorsCensus) {
    EXPECT_EQ(to_json(decode_census(small_root().root->path())), small_root().census);
}

TEST(SynthCensus, CensusCommandNamesTheFileOnBadInput) {
    test::TempRoot root("bad");
    write_data_root(generate(small_profile(), 1), root.path());
    std::filesystem::resize_file(root.path() / "3DDATA" / "3DOBJS.BIN", 4000);
    try {
        decode_census(root.path());
        FAIL() << "a truncated archive decoded";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("3DOBJS.BIN"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace refcheck::synth
