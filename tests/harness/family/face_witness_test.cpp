// The original's per-pixel taint (FaceWitness, div.taint on the original's side): a pixel carries a
// cause when the last face routine to write it drew a face with that cause, as on the
// reimplementation's side. The tests draw faces straight through the stand-in's own face routine:
// a textured face that samples past its texture's heap allocation (fault.tex.past_alloc, witnessed
// by the original's reads), then faces over part of it. Only the flagged face's writes used to be
// watched, so a pixel it wrote kept its cause after an unflagged face painted over it, and the
// original's stale evidence could excuse a pixel it no longer explained.
#include "family/face_witness.hpp"

#include "refcheck/harness/divergences.hpp"
#include "refcheck/harness/original.hpp"
#include "refcheck/harness/profile.hpp"

#include "standin_env.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace refcheck::harness {
namespace {

constexpr std::uint32_t kWidth = 320;
constexpr const char* kFace = "draw_completely_visible_primary_face_";
// The outer face routine of the nesting tests: its entry is made a jump to test code.
constexpr const char* kOuter = "draw_completely_visible_secondary_face_";

class FaceWitnessTest : public ::testing::Test {
protected:
    FaceWitnessTest() : original_(test::small_standin(), load_profile(test::small_standin().profile)) {}

    void SetUp() override {
        ASSERT_EQ(original_.call("initialise_3d_objects_", {}).eax, 0u);
        const std::uint32_t count = original_.u32("texture_count");
        for (std::uint32_t s = 0; s < count && !texture_; ++s)
            if (const std::uint32_t t =
                    original_.machine().read_u32(original_.address("texture_table") + 4 * s)) {
                slot_ = s;
                texture_ = t;
            }
        ASSERT_NE(texture_, 0u) << "the small archives hold a texture";
    }

    // One face for the original's face routine, written to the heap (the harness's scratch):
    // `header` bytes then one index per vertex, over the rectangle [x0, x1) x [y0, y1), every vertex
    // with texture coordinates (u, v). Returns {packet, vertices}.
    std::pair<std::uint32_t, std::uint32_t> place(std::vector<std::uint8_t> header, std::uint32_t per_vertex,
                                                  std::int32_t x0, std::int32_t y0, std::int32_t x1,
                                                  std::int32_t y1, std::int32_t u, std::int32_t v) {
        const std::int32_t corners[4][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
        std::vector<std::uint8_t> vertices;
        for (const auto& c : corners)
            for (const std::int32_t word : {c[0], c[1], 100, u, v, 31})
                for (int b = 0; b < 4; ++b) vertices.push_back(static_cast<std::uint8_t>(word >> (8 * b)));
        for (std::uint8_t k = 0; k < 4; ++k)
            for (std::uint32_t b = 0; b < per_vertex; ++b) header.push_back(b ? 0 : k);
        emu::Machine& m = original_.machine();
        const std::uint32_t packet_at = original_.scratch(static_cast<std::uint32_t>(header.size()));
        const std::uint32_t vertices_at = original_.scratch(static_cast<std::uint32_t>(vertices.size()));
        m.write(packet_at, header);
        m.write(vertices_at, vertices);
        return {packet_at, vertices_at};
    }
    void draw(std::vector<std::uint8_t> header, std::uint32_t per_vertex, std::int32_t x0, std::int32_t y0,
              std::int32_t x1, std::int32_t y1, std::int32_t u = 0, std::int32_t v = 0) {
        call(place(std::move(header), per_vertex, x0, y0, x1, y1, u, v));
    }
    // The face routine called from guest code, as the draw calls it (the witness sees a face end at
    // its return): mov eax, packet; mov edx, vertices; mov ebx, 31 (level); xor ecx, ecx (flags);
    // call; ret, written over op_select, which these tests never run.
    void call(std::pair<std::uint32_t, std::uint32_t> face) {
        std::vector<std::uint8_t> code;
        append_call(code, original_.address("op_select"), original_.address(kFace), face);
        code.push_back(0xc3);
        run_over_op_select(code);
    }
    // Appends to `code` (which will lie at `at`) the call of the face routine at `routine` with
    // `face`, as call() makes it.
    static void append_call(std::vector<std::uint8_t>& code, std::uint32_t at, std::uint32_t routine,
                            std::pair<std::uint32_t, std::uint32_t> face) {
        auto op = [&code](std::uint8_t opcode, std::uint32_t imm) {
            code.push_back(opcode);
            for (int b = 0; b < 4; ++b) code.push_back(static_cast<std::uint8_t>(imm >> (8 * b)));
        };
        op(0xb8, face.first);
        op(0xba, face.second);
        op(0xbb, 31);
        code.insert(code.end(), {0x31, 0xc9});
        op(0xe8, routine - (at + static_cast<std::uint32_t>(code.size()) + 5));
    }
    // mov byte ptr [address], value.
    static void append_store(std::vector<std::uint8_t>& code, std::uint32_t address, std::uint8_t value) {
        code.insert(code.end(), {0xc6, 0x05});
        for (int b = 0; b < 4; ++b) code.push_back(static_cast<std::uint8_t>(address >> (8 * b)));
        code.push_back(value);
    }
    // Runs `code` (ending in ret) written over op_select, which these tests never run.
    void run_over_op_select(const std::vector<std::uint8_t>& code) {
        emu::Machine& m = original_.machine();
        const std::uint32_t at = original_.address("op_select");
        m.write(at, code);
        const emu::CallResult r = m.call(at, emu::Convention::cdecl, {});
        ASSERT_TRUE(r.ok()) << r.fault->message;
    }
    // A type 7 (textured) face sampling two rows past its texture's pixels: past the allocation.
    void draw_past_texture(std::int32_t x0, std::int32_t y0, std::int32_t x1, std::int32_t y1) {
        call(place_past_texture(x0, y0, x1, y1));
    }
    std::uint8_t pixel(std::uint32_t x, std::uint32_t y) {
        return original_.machine().read_u8(original_.address("framebuffer") + y * kWidth + x);
    }
    // initialise_3d_palette_(0): the intensity, glass and haze tables the faces draw with.
    void build_palette() { ASSERT_EQ(original_.call("initialise_3d_palette_", {0}).eax, 0u); }
    // Guest code that is not a face routine writes `value` at framebuffer pixel (x, y): mov byte
    // ptr [framebuffer + offset], value; ret (over op_select, as call() writes its caller).
    void write_outside_faces(std::uint32_t x, std::uint32_t y, std::uint8_t value) {
        std::vector<std::uint8_t> code;
        append_store(code, original_.address("framebuffer") + y * kWidth + x, value);
        code.push_back(0xc3);
        run_over_op_select(code);
    }
    // A type 7 (textured) face over the rectangle sampling two rows past its texture's pixels.
    std::pair<std::uint32_t, std::uint32_t> place_past_texture(std::int32_t x0, std::int32_t y0,
                                                               std::int32_t x1, std::int32_t y1) {
        const std::uint32_t height =
            original_.machine().read_u32(texture_ + original_.profile().offset_of("texture", "height"));
        return place({7, 4, static_cast<std::uint8_t>(slot_), static_cast<std::uint8_t>(slot_ >> 8), 0}, 3,
                     x0, y0, x1, y1, 0, static_cast<std::int32_t>(height) + 2);
    }
    // The address such a face samples: its texture's pixels plus two rows past its height.
    std::uint32_t past_texel() {
        const Profile& profile = original_.profile();
        const emu::Machine& m = original_.machine();
        const std::uint32_t height = m.read_u32(texture_ + profile.offset_of("texture", "height"));
        const std::uint32_t type = m.read_u32(texture_ + profile.offset_of("texture", "type"));
        return m.read_u32(texture_ + profile.offset_of("texture", "pixels")) + (height + 2) * (16u << type);
    }
    std::uint32_t framebuffer(std::uint32_t x, std::uint32_t y) {
        return original_.address("framebuffer") + y * kWidth + x;
    }
    // Where an outer face's body lies: past the caller, in op_select (which these tests never run).
    std::uint32_t body_at() { return original_.address("op_select") + 0x60; }
    // Draws `face` through kOuter, a face routine of the profile whose entry is made a jump to
    // `body` (guest code at body_at(), a ret appended): a face routine that runs other code, and
    // other face routines, between its own writes.
    void draw_outer(std::pair<std::uint32_t, std::uint32_t> face, std::vector<std::uint8_t> body) {
        emu::Machine& m = original_.machine();
        body.push_back(0xc3);
        m.write(body_at(), body);
        const std::uint32_t entry = original_.address(kOuter);
        const std::uint32_t rel = body_at() - (entry + 5);
        m.write(entry, std::vector<std::uint8_t>{
                           0xe9, static_cast<std::uint8_t>(rel), static_cast<std::uint8_t>(rel >> 8),
                           static_cast<std::uint8_t>(rel >> 16), static_cast<std::uint8_t>(rel >> 24)});
        std::vector<std::uint8_t> caller;
        append_call(caller, original_.address("op_select"), entry, face);
        caller.push_back(0xc3);
        run_over_op_select(caller);
    }
    // The draw's end: the original's taint, and the witness disarmed.
    static std::vector<std::uint8_t> disarm(FaceWitness& witness) {
        std::vector<std::uint8_t> taint = witness.take_taint();
        witness.arm(0);
        return taint;
    }
    static std::uint8_t at(const std::vector<std::uint8_t>& taint, std::uint32_t x, std::uint32_t y) {
        return taint.at(y * kWidth + x);
    }

    Original original_;
    std::uint32_t slot_ = 0, texture_ = 0;
};

// fault.tex.past_alloc's witness is a read at or past the end of the texture's own image (its
// descriptor's pixels + stride x height). It was the end of the heap allocation holding the
// descriptor, which on the stand-in (one allocation per texture) is the same; a texture inside a
// larger block (a sub-allocating heap, textures kept in one block) read the block's next bytes and
// was never witnessed.
TEST_F(FaceWitnessTest, AReadPastTheImageIsWitnessedInsideALargerAllocation) {
    build_palette();
    emu::Machine& m = original_.machine();
    const Profile& profile = original_.profile();
    const std::uint32_t header = profile.struct_size("texture");
    const std::uint32_t height = m.read_u32(texture_ + profile.offset_of("texture", "height"));
    const std::uint32_t type = m.read_u32(texture_ + profile.offset_of("texture", "type"));
    const std::uint32_t image = (16u << type) * height;
    // One block: the header, the image, then 4 KiB more (the next texture's bytes, say).
    const std::uint32_t block = original_.scratch(header + image + 4096);
    m.write(block, m.read_bytes(texture_, header));
    m.write(block + header,
            m.read_bytes(m.read_u32(texture_ + profile.offset_of("texture", "pixels")), image));
    m.write(block + header + image, std::vector<std::uint8_t>(4096, 0x33));
    m.write_u32(block + profile.offset_of("texture", "pixels"), block + header);
    m.write_u32(original_.address("texture_table") + 4 * slot_, block);
    texture_ = block;
    ASSERT_LT(past_texel(), block + header + image + 4096) << "the sample lies inside the block";

    FaceWitness witness(original_, {kFace});
    witness.arm(kTexturePastImage);
    draw_past_texture(10, 10, 60, 60);
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 30, 30), kTexturePastImage) << "a sample past the image, inside the block";
}

// An unflagged face painted over part of a flagged one: the pixels it wrote lose the cause (their
// last writer is the flat face), the flagged face's other pixels keep it.
TEST_F(FaceWitnessTest, AnUnflaggedFacePaintedOverAFlaggedOneClearsThePixelsItWrote) {
    build_palette();
    FaceWitness witness(original_, {kFace});
    witness.arm(kTexturePastImage);
    draw_past_texture(10, 10, 60, 60);
    draw({2, 4, 5}, 1, 20, 20, 40, 40); // type 2, flat colour 5
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 12, 12), kTexturePastImage) << "the flagged face's own pixel";
    EXPECT_EQ(at(taint, 30, 30), 0u) << "painted over by the flat face";
    EXPECT_EQ(at(taint, 50, 50), kTexturePastImage);
    EXPECT_EQ(at(taint, 5, 5), 0u) << "never drawn";
}

// A remap face (type 6, glass: each pixel becomes glass_table[pixel], rast.remap) over the flagged
// face keeps the cause: the pixel's value still comes from the flagged face's. The unflagged faces
// are not watched: the witness sees what they changed in the framebuffer, and a change to the
// image's glass (or haze) table entry of the old value is a remap.
TEST_F(FaceWitnessTest, ARemapFaceOverAFlaggedOneKeepsTheCause) {
    build_palette();
    FaceWitness witness(original_, {kFace});
    witness.arm(kTexturePastImage);
    draw_past_texture(10, 10, 60, 60);
    const std::uint8_t textured = pixel(30, 30);
    draw({6, 4}, 1, 20, 20, 40, 40);
    ASSERT_NE(pixel(30, 30), textured) << "the glass changes the pixel";
    draw({2, 4, 5}, 1, 45, 45, 55, 55);
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 30, 30), kTexturePastImage) << "glass over the flagged face";
    EXPECT_EQ(at(taint, 50, 50), 0u) << "flat over the flagged face";
}

// A flagged face over an unflagged one gains the cause where it wrote; the order decides.
TEST_F(FaceWitnessTest, AFlaggedFacePaintedLastCarriesItsCause) {
    build_palette();
    FaceWitness witness(original_, {kFace});
    witness.arm(kTexturePastImage);
    draw({2, 4, 5}, 1, 10, 10, 60, 60);
    draw_past_texture(20, 20, 40, 40);
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 30, 30), kTexturePastImage);
    EXPECT_EQ(at(taint, 12, 12), 0u);
}

} // namespace
} // namespace refcheck::harness

namespace refcheck::harness {
namespace {

// fault.tex.past_alloc on the original's side is a read by the face's routine past the end of its
// texture's heap allocation, at an address its samples can reach: within the rows its texture
// coordinates span (stride * (greatest v + 1), tex.stride, past the texture's pixels). The watch
// took any read within 64 KiB past the allocation, so a face sampling well inside its texture was
// witnessed when its routine read its own face-vertex array, allocated on the heap after the
// textures (as the harness's scratch is here).
TEST_F(FaceWitnessTest, AFaceSamplingInsideItsTextureIsNotWitnessedPastIt) {
    build_palette();
    FaceWitness witness(original_, {kFace});
    // Placed before the draw is armed: the heap read watch covers the heap in use then.
    const auto face =
        place({7, 4, static_cast<std::uint8_t>(slot_), static_cast<std::uint8_t>(slot_ >> 8), 0}, 3, 10, 10,
              60, 60, 0, 0);
    ASSERT_LT(face.second - texture_, 0x10000u)
        << "the face-vertex array lies within 64 KiB past the texture";
    witness.arm(kTexturePastImage);
    call(face);
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 30, 30), 0u) << "u = v = 0: every sample is the texture's first pixel";
}

} // namespace
} // namespace refcheck::harness

namespace refcheck::harness {
namespace {

// The program family builds the witness before its frames build the palette: the glass and haze
// tables the witness copied then were the zeros of an unbuilt table, so a glass face lost the
// cause it keeps, and any face writing colour 0 passed for a remap. They are read when a draw is
// armed.
TEST_F(FaceWitnessTest, TheRemapTablesAreTheImagesAtTheDrawNotAtTheWitnessesBirth) {
    FaceWitness witness(original_, {kFace});
    build_palette();
    witness.arm(kTexturePastImage);
    draw_past_texture(10, 10, 60, 60);
    const std::uint8_t textured = pixel(30, 30);
    draw({6, 4}, 1, 20, 20, 40, 40);
    ASSERT_NE(pixel(30, 30), textured);
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 30, 30), kTexturePastImage) << "glass over the flagged face";
}

// A face is a remap when every pixel it changed became a table's entry of its old value, not pixel
// by pixel: a flat face whose colour is the glass entry of the flagged face's colour, drawn partly
// over the flagged face and partly beside it, is an opaque face. It kept the cause where its colour
// happened to equal that entry.
TEST_F(FaceWitnessTest, AnOpaqueFaceWhoseColourMatchesARemapAtSomePixelsIsNoRemap) {
    build_palette();
    FaceWitness witness(original_, {kFace});
    witness.arm(kTexturePastImage);
    draw_past_texture(10, 10, 60, 60);
    const std::uint32_t glass = original_.address("glass_table");
    const std::uint8_t colour = original_.machine().read_u8(glass + pixel(55, 55));
    ASSERT_NE(original_.machine().read_u8(glass + pixel(65, 65)), colour) << "beside the flagged face";
    draw({2, 4, colour}, 1, 50, 50, 70, 70);
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 55, 55), 0u) << "painted over by an opaque face";
    EXPECT_EQ(at(taint, 30, 30), kTexturePastImage);
}

// A write outside the face routines (a shadow's span, in a scene) between two faces, or after the
// last one, clears the pixel it changed: it was not seen, and the pixel kept the cause.
TEST_F(FaceWitnessTest, AWriteOutsideTheFaceRoutinesClearsThePixel) {
    build_palette();
    FaceWitness witness(original_, {kFace});
    witness.arm(kTexturePastImage);
    draw_past_texture(10, 10, 60, 60);
    write_outside_faces(30, 30, static_cast<std::uint8_t>(pixel(30, 30) + 1));
    draw({2, 4, 5}, 1, 100, 100, 110, 110);                                    // a face after it, elsewhere
    write_outside_faces(40, 40, static_cast<std::uint8_t>(pixel(40, 40) + 1)); // after the last face
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 30, 30), 0u) << "written between two faces";
    EXPECT_EQ(at(taint, 40, 40), 0u) << "written after the last face";
    EXPECT_EQ(at(taint, 20, 20), kTexturePastImage);
}

} // namespace
} // namespace refcheck::harness

namespace refcheck::harness {
namespace {

// A face without a cause that repaints a pixel with the colour a flagged face left there is the
// pixel's last writer: the framebuffer does not change, so comparing it at the face's entry and
// return did not show the write, and the pixel kept the flagged face's cause. The reimplementation's
// taint clears there; if its repainting face missed the pixel, the stale cause on both sides excused
// the difference. A face whose box covers a pixel with a cause has its writes watched.
TEST_F(FaceWitnessTest, AFaceRepaintingTheColourThereIsThePixelsLastWriter) {
    build_palette();
    FaceWitness witness(original_, {kFace});
    witness.arm(kTexturePastImage);
    draw_past_texture(10, 10, 60, 60);
    const std::uint8_t colour = pixel(30, 30);
    ASSERT_EQ(pixel(12, 12), colour) << "every sample of the flagged face is the same texel";
    const emu::Machine& m = original_.machine();
    ASSERT_NE(m.read_u8(original_.address("glass_table") + colour), colour) << "the repaint is no remap";
    ASSERT_NE(m.read_u8(original_.address("haze_table") + colour), colour);
    draw({2, 4, colour}, 1, 20, 20, 40, 40);
    ASSERT_EQ(pixel(30, 30), colour);
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 30, 30), 0u) << "repainted by the flat face";
    EXPECT_EQ(at(taint, 12, 12), kTexturePastImage);
}

// Face routines that nest (a retail image's face routine may call another). The outer face is
// flagged (it reads past its texture's allocation), writes pixel Q, calls the stand-in's face
// routine for a flat face over Q, then writes pixel P. The inner face's return removed the write
// watch the outer face needed, so P lost its cause, and Q took the outer face's cause at its return
// though the flat face wrote it last. The outer face here is guest code reached from the stand-in's
// secondary face routine, which these tests never run.
TEST_F(FaceWitnessTest, NestedFaceRoutinesKeepTheOuterFacesWatchAndTheLastWriter) {
    build_palette();
    FaceWitness witness(original_, {kFace, kOuter});
    const auto outer_face = place_past_texture(140, 100, 160, 120);
    const auto inner_face = place({2, 4, 5}, 1, 100, 100, 110, 110, 0, 0);
    // The outer face's body: read the texel two rows past the texture (mov al, [address]), store
    // Q, call the inner face, store P.
    std::vector<std::uint8_t> code = {0xa0};
    const std::uint32_t past = past_texel();
    for (int b = 0; b < 4; ++b) code.push_back(static_cast<std::uint8_t>(past >> (8 * b)));
    append_store(code, framebuffer(105, 105), 77);
    append_call(code, body_at(), original_.address(kFace), inner_face);
    append_store(code, framebuffer(150, 150), 77);
    witness.arm(kTexturePastImage);
    draw_outer(outer_face, code);
    ASSERT_EQ(pixel(105, 105), 5u) << "the flat face painted over Q";
    ASSERT_EQ(pixel(150, 150), 77u);
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 150, 150), kTexturePastImage)
        << "P, written by the outer face after the inner returned";
    EXPECT_EQ(at(taint, 105, 105), 0u) << "Q, written last by the flat face";
    EXPECT_EQ(at(taint, 102, 102), 0u) << "the flat face's own pixel";
}

// A remap nested in a face leaves the pixel to that face: an outer face without a cause paints a
// pixel a flagged face left (a direct write: it clears the cause at its return), then a glass face
// nested in it remaps the pixel. The glass face's return marked the pixel decided, so the outer face
// skipped it at its return and the flagged face's cause stayed.
TEST_F(FaceWitnessTest, ARemapNestedInAFaceLeavesThePixelToThatFace) {
    build_palette();
    FaceWitness witness(original_, {kFace, kOuter});
    witness.arm(kTexturePastImage);
    draw_past_texture(10, 10, 60, 60);
    const std::uint8_t flagged = pixel(30, 30);
    const emu::Machine& m = original_.machine();
    const auto glass = [&](std::uint8_t c) { return m.read_u8(original_.address("glass_table") + c); };
    const auto haze = [&](std::uint8_t c) { return m.read_u8(original_.address("haze_table") + c); };
    const auto colour = static_cast<std::uint8_t>(glass(flagged) + 1);
    ASSERT_NE(colour, haze(flagged)) << "the outer face's write is no remap";
    const auto outer_face = place({2, 4, colour}, 1, 20, 20, 40, 40, 0, 0);
    const auto glass_face = place({6, 4}, 1, 25, 25, 35, 35, 0, 0);
    std::vector<std::uint8_t> code;
    append_store(code, framebuffer(30, 30), colour);
    append_call(code, body_at(), original_.address(kFace), glass_face);
    draw_outer(outer_face, code);
    ASSERT_EQ(pixel(30, 30), glass(colour)) << "the glass over the outer face's colour";
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 30, 30), 0u) << "its value comes from the outer face's write";
    EXPECT_EQ(at(taint, 12, 12), kTexturePastImage) << "the flagged face's own pixel";
}

// A face with a face nested in it collects its writes from then on. The outer face here covers no
// pixel with a cause at its entry (there is none yet), so its writes were not watched; the nested
// flagged face then drew, and the outer face repainted one of its pixels in the colour there: the
// comparison showed no change, and the pixel kept the nested face's cause.
TEST_F(FaceWitnessTest, AFaceRepaintingWhatAFaceNestedInItLeftIsTheLastWriter) {
    build_palette();
    FaceWitness witness(original_, {kFace, kOuter});
    const auto outer_face = place({2, 4, 5}, 1, 200, 150, 210, 160, 0, 0);
    const auto inner_face = place_past_texture(100, 100, 110, 110); // one colour: every sample one texel
    std::vector<std::uint8_t> code;
    append_call(code, body_at(), original_.address(kFace), inner_face);
    // mov al, [framebuffer(102, 102)]; mov [framebuffer(105, 105)], al: the colour there, again.
    code.push_back(0xa0);
    for (int b = 0; b < 4; ++b) code.push_back(static_cast<std::uint8_t>(framebuffer(102, 102) >> (8 * b)));
    code.push_back(0xa2);
    for (int b = 0; b < 4; ++b) code.push_back(static_cast<std::uint8_t>(framebuffer(105, 105) >> (8 * b)));
    witness.arm(kTexturePastImage);
    draw_outer(outer_face, code);
    ASSERT_EQ(pixel(105, 105), pixel(102, 102));
    const std::vector<std::uint8_t> taint = disarm(witness);
    EXPECT_EQ(at(taint, 105, 105), 0u) << "repainted by the outer face";
    EXPECT_EQ(at(taint, 102, 102), kTexturePastImage) << "the nested face's own pixel";
}

} // namespace
} // namespace refcheck::harness
