// reimpl/texture_archive: descriptors, strides and pixels.
#include "refcheck/reimpl/texture_archive.hpp"

#include <gtest/gtest.h>

#include "archive_builder.hpp"

namespace refcheck::reimpl {
namespace {

using namespace testing;

TEST(TextureArchive, StrideFollowsTheType) {
    EXPECT_EQ(stride_of_type(0), 16u);
    EXPECT_EQ(stride_of_type(1), 32u);
    EXPECT_EQ(stride_of_type(2), 64u);
    EXPECT_FALSE(stride_of_type(3).has_value());
}

TEST(TextureArchive, ParsesPopulatedSlotsAndTheirPixels) {
    const Bytes bytes =
        build_texture_archive({std::nullopt, TextureSpec{2, 64, {}}, TextureSpec{0, 3, {}}, std::nullopt});
    const TextureArchive archive = TextureArchive::parse(bytes);
    EXPECT_EQ(archive.count(), 4u);
    EXPECT_EQ(archive.find(0), nullptr);
    EXPECT_EQ(archive.find(9), nullptr);
    const Texture& big = archive.texture(1);
    EXPECT_EQ(big.stride, 64u);
    EXPECT_EQ(big.height, 64u);
    EXPECT_EQ(big.allocation_size(), 4108u);
    EXPECT_EQ(big.pixels[64 * 2 + 5], 7); // (x + y)
    const Texture& small = archive.texture(2);
    EXPECT_EQ(small.type, 0u);
    EXPECT_EQ(small.stride, 16u);
    EXPECT_EQ(small.pixels.size(), 48u);
    EXPECT_EQ(small.extent.end, bytes.size());
    EXPECT_THROW(archive.texture(3), std::out_of_range);
}

} // namespace
} // namespace refcheck::reimpl
