// Same seed and profile: byte-identical files; another seed: different bytes, same census shape.
#include <gtest/gtest.h>

#include <fstream>

#include "census.hpp"
#include "generate.hpp"
#include "temp_root.hpp"

namespace refcheck::synth {
namespace {

std::vector<uint8_t> slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}

TEST(SynthDeterminism, SmallProfileIsByteIdenticalForTheSameSeed) {
    const DataRootFiles a = serialise(generate(small_profile(), 7));
    const DataRootFiles b = serialise(generate(small_profile(), 7));
    EXPECT_EQ(a.objects, b.objects);
    EXPECT_EQ(a.textures, b.textures);
    EXPECT_EQ(a.palette, b.palette);
}

TEST(SynthDeterminism, DefaultProfileWritesIdenticalFilesTwice) {
    test::TempRoot one("det-a"), two("det-b");
    const std::string ca = write_data_root(generate(default_profile(), 1), one.path());
    const std::string cb = write_data_root(generate(default_profile(), 1), two.path());
    EXPECT_EQ(ca, cb);
    for (const char* f : {"3DDATA/3DOBJS.BIN", "3DDATA/OBJTEXT.BIN", "3DPAL.RGB", "census.json"}) {
        const auto x = slurp(one.path() / f), y = slurp(two.path() / f);
        EXPECT_FALSE(x.empty()) << f;
        EXPECT_EQ(x, y) << f;
    }
}

TEST(SynthDeterminism, AnotherSeedChangesTheBytesButNotTheCensusShape) {
    const Archive a = generate(small_profile(), 1), b = generate(small_profile(), 2);
    const DataRootFiles fa = serialise(a), fb = serialise(b);
    EXPECT_NE(fa.objects, fb.objects);
    EXPECT_NE(fa.textures, fb.textures);
    const Census x = census_of(a), y = census_of(b);
    EXPECT_EQ(x.records, y.records);
    EXPECT_EQ(x.attached_instances, y.attached_instances);
    EXPECT_EQ(x.missing_normal_models, y.missing_normal_models);
}

TEST(SynthDeterminism, DefaultCensusHoldsForOtherSeeds) {
    for (uint64_t seed : {2u, 99u}) {
        const Census c = census_of(generate(default_profile(), seed));
        EXPECT_EQ(c.records, 1314) << seed;
        EXPECT_EQ(c.attached_instances, 780) << seed;
        EXPECT_EQ(c.missing_normal_models.size(), 71u) << seed;
        EXPECT_GE(c.primary_packets + c.secondary_packets, 70364) << seed;
        EXPECT_GE(c.control_flow, 15768) << seed;
    }
}

} // namespace
} // namespace refcheck::synth
