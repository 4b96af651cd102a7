// fb.clear: the draw routines never clear the framebuffer. Program and shadow frames started from the
// clear colour on both sides (the guest's framebuffer filled with it, the reimplementation's Frame
// made of it), so an original whose draw cleared to that colour first could not be told from one that
// never clears, and fb.clear was claimed by such frames. They now start from the marked background
// (marked_background), whose marks a clear erases. And a draw_3d_object_ given a null argument was
// judged only by the face routines it called: its framebuffer was never read, so an original that
// painted it directly stayed equivalent (abi.null). Each null draw now also compares the pixels each
// side changed from the marked background.
#include "cli_support.hpp"
#include "detour.hpp"

#include <gtest/gtest.h>

#include <string>

namespace refcheck::cli_test {
namespace {

class FrameBackgroundTest : public CliTest {
protected:
    // Runs the shipped case clean (equivalent) and with the entry point's draw first filling the
    // framebuffer with `colour`, then drawing as before; returns the patched run's report.
    ojson run_detoured(const std::string& name, const std::string& entry, std::uint8_t colour) {
        const Detour s = detour_site(entry);
        std::vector<std::uint8_t> code;
        fill_framebuffer(code, s, colour);
        jump_to_body(code, s);
        const std::string run = "run " + quote(shipped_case(name)) + " --out ";
        const Result clean = refcheck(run + "clean");
        EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
        const Result r = refcheck(run + "patched" + detour_patches(s, code));
        EXPECT_EQ(r.code, 1) << r.out << r.err;
        return read_json(path("patched/" + name + ".json"));
    }
};

TEST_F(FrameBackgroundTest, ProgramFramesOfADrawThatClearsFirstDiverge) {
    const ojson report = run_detoured("frames-edge-masks", "draw_3d_object_", 224);
    EXPECT_EQ(report.at("status"), "divergent");
    const ojson d = report.at("first_unexplained");
    EXPECT_EQ(d.at("original").at("kind"), "frame") << d;
    // The first mark nothing paints over: the clear colour in the original's frame.
    EXPECT_NE(d.at("fields").at(0).at("diff").get<std::string>().find(": 224 -> 225"), std::string::npos)
        << d;
}

TEST_F(FrameBackgroundTest, ShadowFramesOfADrawThatClearsFirstDiverge) {
    const ojson report = run_detoured("coverage-shadow-close", "draw_3d_object_shadow_", 224);
    EXPECT_EQ(report.at("status"), "divergent");
    const ojson d = report.at("first_unexplained");
    EXPECT_EQ(d.at("original").at("kind"), "frame") << d;
    EXPECT_NE(d.at("fields").at(0).at("diff").get<std::string>().find(": 224 -> 225"), std::string::npos)
        << d;
}

TEST_F(FrameBackgroundTest, ANullArgumentDrawThatPaintsTheFramebufferDiverges) {
    const ojson report = run_detoured("coverage-null-arguments-program", "draw_3d_object_", 0x10);
    EXPECT_EQ(report.at("status"), "divergent");
    const ojson d = report.at("first_unexplained");
    EXPECT_EQ(d.at("original").at("kind"), "rejection") << d;
    EXPECT_NE(d.at("input").get<std::string>().find(" null "), std::string::npos) << d;
    const std::string routine = d.at("original").at("fields").at("routine");
    EXPECT_TRUE(routine.starts_with("draw_3d_object_(null ") && routine.ends_with(") pixels")) << routine;
    EXPECT_GT(d.at("original").at("fields").at("result").get<std::int64_t>(), 0) << d;
    EXPECT_EQ(d.at("reimpl").at("fields").at("result"), 0) << d;
}

} // namespace
} // namespace refcheck::cli_test
