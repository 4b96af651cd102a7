// Sound verdicts (issue 11): a green run must be earned. Each test seeds the fault that used to pass
// as equivalent and checks that refcheck now says so: faults of the original count, nothing
// compared is an error, and a known divergence needs the original's own evidence (the negated
// normal-count clamp of setup_normals, which the old rule excused on the reimplementation's word).
#include "cli_support.hpp"
#include "code_site.hpp"

#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/hash.hpp"
#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/model_archive.hpp"

#include <cstdio>
#include <fstream>
#include <functional>

namespace refcheck::cli_test {
namespace {

const reimpl::ModelArchive& small_models() {
    static const auto models =
        reimpl::ModelArchive::parse(reimpl::read_file_bytes(kSmallData / "3DDATA" / "3DOBJS.BIN"));
    return models;
}

// Signed-16-bit records of the small archives whose property bit 0 is clear (they cast no shadow).
std::vector<std::uint32_t> non_casters() {
    std::vector<std::uint32_t> out;
    const auto& m = small_models();
    for (std::uint32_t i = 0; i < m.count() && out.size() < 4; ++i)
        if (m.populated(i) && m.record(i).encoding == reimpl::Encoding::S16 &&
            !(m.record(i).header.properties & 1))
            out.push_back(i);
    return out;
}

// A data root at `root`: the small archives with each populated model record's bytes in 3DOBJS.BIN
// changed by `edit`.
fs::path
small_root_with(const fs::path& root,
                const std::function<void(std::vector<std::uint8_t>&, const reimpl::ModelRecord&)>& edit) {
    fs::create_directories(root / "3DDATA");
    for (const char* f : {"3DDATA/OBJTEXT.BIN", "3DPAL.RGB"}) fs::copy_file(kSmallData / f, root / f);
    auto bytes = reimpl::read_file_bytes(kSmallData / "3DDATA" / "3DOBJS.BIN");
    const auto& models = small_models();
    for (std::uint32_t i = 0; i < models.count(); ++i)
        if (models.populated(i)) edit(bytes, models.record(i));
    std::ofstream(root / "3DDATA" / "3DOBJS.BIN", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return root;
}

ojson shadow_case(const std::vector<std::uint32_t>& records) {
    return {{"schema", "refcheck-case/1"},
            {"family", "shadow"},
            {"description", "cli_tests: shadows of records that cast none"},
            {"selection",
             {{"records", {{"list", records}}},
              {"views", {{{"yaw", 30}, {"pitch", 55}, {"distance", 4}}}},
              {"suns", {{4096, -15000, 3000}}},
              {"states", {0}}}}};
}

class SoundVerdictTest : public CliTest {
protected:
    // The program case "switches" (records 0..40 of the small archives, missing normals and grid
    // rounding allowed) and the --patch value negating op_ifmask's mask test (the je after the and
    // of the state with the mask made jne), which sends the walk the other way.
    std::pair<fs::path, std::string> switches_and_negated_mask_test() {
        const CodeSite mask_and = find_instruction("op_ifmask", [](const emu::Instruction& i) {
            return i.text.rfind("and ", 0) == 0 && i.text.find("ptr") != std::string::npos;
        });
        const emu::Address after = mask_and.instruction.address;
        const CodeSite je = find_instruction("op_ifmask", [after](const emu::Instruction& i) {
            return i.address > after && i.text.rfind("je ", 0) == 0;
        });
        EXPECT_EQ(je.bytes.size(), 2u);
        std::vector<std::uint8_t> jne = je.bytes;
        jne[0] = 0x75;
        ProgramCase c = small_program();
        c.records = {};
        ojson j = c.to_json();
        j["selection"]["records"] = {{"from", 0}, {"to", 40}};
        j["allow"] = {"missing_normal", "grid_rounding"};
        return {write_case("switches", j), je.where() + ":" + hex_bytes(jne)};
    }
    // Runs `file` on the stand-in with a profile whose data entry `global` has another "size"
    // (NAME.profile.json, out NAME), and checks the first divergence is that buffer's size: the
    // original's at the profile's size, the reimplementation's at its own.
    void expect_size_from_profile(const fs::path& file, const std::string& global, std::uint32_t size,
                                  std::uint32_t reimpl_size) {
        auto run_with_size = [&](const std::string& name, std::uint32_t bytes) {
            ojson p = read_json(kProfile);
            for (auto& d : p.at("data"))
                if (d.at("name") == global) d["size"] = bytes;
            const fs::path edited = path(name + ".profile.json");
            std::ofstream(edited) << p.dump(2) << "\n";
            return refcheck("run " + quote(file) + " --image " + quote(kImage) + " --profile " +
                            quote(edited) + " --data " + quote(kSmallData) + " --out " + name);
        };
        const Result same = run_with_size("same", reimpl_size);
        EXPECT_EQ(same.code, 0) << same.out << same.err;
        const Result other = run_with_size("other", size);
        EXPECT_EQ(other.code, 1) << other.out << other.err;
        const ojson report = read_json(path("other/" + file.stem().string() + ".json"));
        EXPECT_EQ(report.at("status"), "divergent");
        const ojson d = report.at("first_unexplained");
        EXPECT_EQ(d.at("kind"), "field_mismatch");
        EXPECT_EQ(d.at("original").at("fields").at("size"), size);
        EXPECT_EQ(d.at("reimpl").at("fields").at("size"), reimpl_size);
        EXPECT_EQ(d.at("fields").at(0).at("field"), "size");
    }
};

// An original that faults on every call was "equivalent": the faults were listed and counted for
// nothing, and blank frames matched blank frames.
TEST_F(SoundVerdictTest, AnOriginalThatFaultsOnEveryCallIsDivergent) {
    const auto records = non_casters();
    ASSERT_FALSE(records.empty());
    const fs::path file = write_case("noshadow", shadow_case(records));
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    const Result run = refcheck("run " + common + " --out faulting --patch draw_3d_object_shadow_:0f0b");
    EXPECT_EQ(run.code, 1) << run.out << run.err;
    const ojson report = read_json(path("faulting/noshadow.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    EXPECT_EQ(report.at("counts").at("faults"), records.size());
    const ojson& first = report.at("first_unexplained");
    EXPECT_EQ(first.at("kind"), "original_fault");
    EXPECT_EQ(first.at("original").at("fields").at("fault"), "invalid_instruction");
    EXPECT_NE(first.at("original").at("fields").at("registers").get<std::string>().find("eip="),
              std::string::npos);
    EXPECT_NE(first.at("original").at("fields").at("disassembly").get<std::string>().find("ud2"),
              std::string::npos);
    EXPECT_EQ(first.at("input"), "record " + std::to_string(records[0]) + " view 0 sun 0 state 0");
    // Unpatched, these records draw nothing on either side: blank frames the case does not count,
    // so nothing is compared (exit 2); a case that says blank frames are what it tests passes.
    const Result clean = refcheck("run " + common + " --out clean");
    EXPECT_EQ(clean.code, 2) << clean.out << clean.err;
    EXPECT_NE(read_json(path("clean/noshadow.json")).at("error").get<std::string>().find("blank frame"),
              std::string::npos);
    ojson blank = shadow_case(records);
    blank["blank_frames"] = true;
    const Result counted = refcheck("run " + quote(write_case("blank", blank)) + " --data " +
                                    quote(kSmallData) + " --out blank");
    EXPECT_EQ(counted.code, 0) << counted.out << counted.err;
}

TEST_F(SoundVerdictTest, ASelectionThatSelectsNothingIsAnError) {
    ProgramCase c = small_program();
    c.records = {};
    ojson j = c.to_json();
    j["selection"]["records"] = {{"from", 100000}, {"to", 100010}};
    const Result run =
        refcheck("run " + quote(write_case("empty", j)) + " --data " + quote(kSmallData) + " --out o");
    EXPECT_EQ(run.code, 2) << run.out << run.err;
    const ojson report = read_json(path("o/empty.json"));
    EXPECT_EQ(report.at("status"), "error");
    EXPECT_NE(report.at("error").get<std::string>().find("selects no input"), std::string::npos)
        << report.at("error");
    // The run's table says so too (it said "equivalent" for such a case: its status was set before
    // the check that found nothing compared).
    const std::size_t row = run.out.find("\n  empty ");
    ASSERT_NE(row, std::string::npos) << run.out;
    const std::string line = run.out.substr(row + 1, run.out.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.find(" error "), std::string::npos) << line;
    EXPECT_EQ(line.find("equivalent"), std::string::npos) << line;
}

// The frames case against a data root whose programs draw nothing (every program returns at its
// first byte): both sides draw nothing, and that is no proof. (An unknown opcode there is refused
// by the reimplementation's validator, an error naming archive, record and offset.)
TEST_F(SoundVerdictTest, FramesOfProgramsThatDrawNothingAreAnError) {
    const fs::path root =
        small_root_with(path("rejected"), [](std::vector<std::uint8_t>& bytes, const reimpl::ModelRecord& r) {
            const std::uint64_t at = r.absolute(r.header.program);
            if (r.header.program && at < bytes.size()) bytes[at] = 7; // op.return
        });
    const Result run =
        refcheck("run " + quote(shipped_case("frames")) + " --data " + quote(root) + " --out o");
    EXPECT_EQ(run.code, 2) << run.out << run.err;
    const ojson report = read_json(path("o/frames.json"));
    EXPECT_EQ(report.at("status"), "error") << report.dump(1).substr(0, 2000);
    EXPECT_NE(report.value("error", std::string()).find("nothing compared"), std::string::npos)
        << report.value("error", std::string());
}

TEST_F(SoundVerdictTest, AnEventKindTheCaseExistsToCompareMustBeCompared) {
    ProgramCase c = small_program();
    c.records = {1};
    ojson j = c.to_json();
    j["compares"] = {"face_draw", "winding_decision", "frame"}; // no face routine runs: no frame
    const fs::path file = write_case("kinds", j);
    // A filter that leaves no input out narrows nothing: the check still applies (it was skipped
    // whenever a filter was set, so `--filter '*'` turned the case equivalent).
    for (const std::string filter : {"", " --filter '*'", " --filter kinds", " --filter '*:-other'"}) {
        const Result run =
            refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --out o" + filter);
        EXPECT_EQ(run.code, 2) << filter << run.out << run.err;
        const std::string error = read_json(path("o/kinds.json")).at("error");
        EXPECT_NE(error.find("frame"), std::string::npos) << filter << error;
        EXPECT_EQ(error.find("face_draw"), std::string::npos) << filter << error;
    }
    // One that leaves inputs out does narrow the case: its inputs need not show every kind.
    const Result narrowed = refcheck("run " + quote(file) + " --data " + quote(kSmallData) +
                                     " --out o --filter 'kinds/* view 0 *'");
    EXPECT_EQ(narrowed.code, 0) << narrowed.out << narrowed.err;
    EXPECT_EQ(read_json(path("o/kinds.json")).at("status"), "equivalent");
}

// The mutant of the audit: setup_normals' clamp of the normal count to the room left in the
// archive, negated (jb -> jae). The original then lights "normals" past the list from the bytes
// after it, so the level it passes for a missing normal is no longer the stray byte its own lit
// count left unlit: the original's witness fails, and the reimplementation's flag alone excuses
// nothing.
TEST_F(SoundVerdictTest, TheNegatedNormalCountClampIsCaught) {
    auto is_jb = [](const emu::Instruction& i) { return i.text.rfind("jb ", 0) == 0; };
    const CodeSite site = find_instruction("setup_normals", is_jb);
    // The clamp is the jb after the compare of count_all with the room (the third jb of the routine).
    CodeSite clamp = site;
    for (int n = 0; n < 2; ++n) {
        const emu::Address after = clamp.instruction.address;
        clamp = find_instruction("setup_normals", [after, is_jb](const emu::Instruction& i) {
            return is_jb(i) && i.address > after;
        });
    }
    ASSERT_EQ(clamp.bytes.size(), 2u);
    ASSERT_EQ(clamp.bytes[0], 0x72);
    std::vector<std::uint8_t> jae = clamp.bytes;
    jae[0] = 0x73;
    ProgramCase frames = small_frames();
    frames.records = {24}; // a signed-16-bit record of the small archives with a missing normal
    frames.views = {{35, 25, 0, 2}, {215, 15, 0, 3}};
    const fs::path file = write_case("frames", frames.to_json());
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const ojson clean_report = read_json(path("clean/frames.json"));
    ASSERT_GT(clean_report.at("counts").at("known").get<std::uint64_t>(), 0u)
        << "the case needs a missing normal";
    const Result mutant =
        refcheck("run " + common + " --out mutant --patch " + clamp.where() + ":" + hex_bytes(jae));
    EXPECT_EQ(mutant.code, 1) << mutant.out << mutant.err;
    const ojson report = read_json(path("mutant/frames.json"));
    EXPECT_GT(report.at("counts").at("unexplained").get<std::uint64_t>(), 0u);
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("kind"), "field_mismatch");
    // The reimplementation still flags the face; the original carries no excuse for it.
    EXPECT_TRUE(d.at("reimpl").contains("excuses"));
    EXPECT_FALSE(d.at("original").contains("excuses") &&
                 d.at("original").at("excuses").dump().find("missing_normal") != std::string::npos);
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// Control-flow outcomes are observed on the original (point 6 of issue 11): the mask test of the
// state switch op_ifmask (the je after the and of the state with the mask) negated sends the walk
// the other way, and the first divergence is that switch's control_flow event (where the walk went
// next), before any face of the branch.
TEST_F(SoundVerdictTest, AStateSwitchSendingTheWalkElsewhereDivergesAtItsControlFlowEvent) {
    const auto [file, patch] = switches_and_negated_mask_test();
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    ASSERT_GT(read_json(path("clean/switches.json")).at("counts").at("by_kind").value("control_flow", 0), 0)
        << "the small archives need an op 3 in records 0..40";
    const Result run = refcheck("run " + common + " --out patched --patch " + patch);
    EXPECT_EQ(run.code, 1) << run.out << run.err;
    const ojson d = read_json(path("patched/switches.json")).at("first_unexplained");
    const ojson& event = d.at("original").is_object() ? d.at("original") : d.at("reimpl");
    EXPECT_EQ(event.at("kind"), "control_flow") << d.dump(1).substr(0, 1500);
    EXPECT_EQ(event.at("fields").at("opcode"), 3);
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// A valid data root that lacks what a family needs (no model receives shadows) is a precondition
// error, told apart from a broken data root (issue 14): exit 2, "precondition:" first.
TEST_F(SoundVerdictTest, ACaseNeedingARecordTheDataLacksSaysSo) {
    const fs::path root = small_root_with(
        path("no-receiver"), [](std::vector<std::uint8_t>& bytes, const reimpl::ModelRecord& r) {
            bytes[r.absolute(0x98)] &= static_cast<std::uint8_t>(~2u); // hdr.props bit 1: receives shadows
        });
    const Result run =
        refcheck("run " + quote(shipped_case("receivers")) + " --data " + quote(root) + " --out o");
    EXPECT_EQ(run.code, 2) << run.out << run.err;
    const ojson report = read_json(path("o/receivers.json"));
    EXPECT_EQ(report.at("status"), "error");
    EXPECT_EQ(report.at("error").get<std::string>().rfind("precondition: ", 0), 0u) << report.at("error");
    EXPECT_NE(report.at("precondition").get<std::string>().find("receives shadows"), std::string::npos);
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// A rule resting on a face flag is proven only when both sides classify the face so: the
// reimplementation by its own flag, the original by its memory (FaceWitness::classify). The seeded
// fault is a profile whose texture descriptor's "type" field points at its height: the original's
// side then finds no texture stride, the reimplementation still flags u = 64 on a 64-byte row, the
// frames still match (the profile's texture layout serves only this classification), and
// fault.tex.right_edge.flag, which one side's flag proved before, is claimed, not exercised. The
// faces whose flags disagree are unexplained differences: the run stayed green on a wrong profile.
TEST_F(SoundVerdictTest, AFlagRuleNeedsTheOriginalsOwnClassificationToo) {
    ojson j = read_json(shipped_case("frames-texture-faults"));
    j["selection"]["records"] = {{"list", {51}}}; // a model sampling u = 64 (its texture's stride)
    j["selection"]["views"] = {{{"yaw", 0}, {"pitch", 10}, {"distance", 2}},
                               {{"yaw", 45}, {"pitch", 20}, {"distance", 2}}};
    j["compares"] = {"face_draw", "frame"};
    j["rules"] = {"fault.tex.right_edge.flag"};
    const fs::path file = write_case("right-edge", j);
    ojson profile = read_json(kProfile);
    for (auto& f : profile.at("structs").at("texture").at("fields"))
        if (f.at("name") == "type") f["offset"] = 4;
    const fs::path bad = path("texture-type-at-height.profile.json");
    std::ofstream(bad) << profile.dump(1) << "\n";
    auto rule = [this](const std::string& out) {
        const ojson index = read_json(path(out + "/run.json"));
        for (const auto& r : index.at("ledger").at("rules"))
            if (r.at("id") == "fault.tex.right_edge.flag") return r;
        return ojson();
    };
    const Result clean = refcheck("run " + quote(file) + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    EXPECT_EQ(rule("clean").at("status"), "Proven");
    EXPECT_GT(rule("clean").at("exercised").get<std::uint64_t>(), 0u);
    const Result seeded = refcheck("run " + quote(file) + " --profile " + quote(bad) + " --out seeded");
    EXPECT_EQ(seeded.code, 1) << seeded.out << seeded.err; // the fields match, the flags do not
    const ojson seeded_report = read_json(path("seeded/right-edge.json"));
    EXPECT_EQ(seeded_report.at("status"), "divergent");
    const ojson& first = seeded_report.at("first_unexplained");
    EXPECT_EQ(first.at("kind"), "field_mismatch") << first;
    const ojson& flags = first.at("fields").at(0);
    EXPECT_EQ(flags.at("field"), "flags") << first;
    EXPECT_EQ(flags.at("original").get<std::string>().find("texture_right_edge"), std::string::npos) << first;
    EXPECT_NE(flags.at("reimpl").get<std::string>().find("texture_right_edge"), std::string::npos) << first;
    EXPECT_EQ(rule("seeded").at("status"), "Chosen-unproven");
    EXPECT_EQ(rule("seeded").at("exercised").get<std::uint64_t>(), 0u);
    EXPECT_NE(seeded.out.find("claimed, not exercised: right-edge:fault.tex.right_edge.flag"),
              std::string::npos)
        << seeded.out;
    // The sides' disagreement is in the report itself: matched faces the reimplementation flagged
    // for the right edge and the original did not. The clean run has none.
    const ojson disagree = read_json(path("seeded/right-edge.json")).at("counts").at("flags_disagree");
    EXPECT_GT(disagree.at("reimpl_only").at("texture_right_edge").get<std::uint64_t>(), 0u)
        << disagree.dump();
    EXPECT_FALSE(read_json(path("clean/right-edge.json")).at("counts").contains("flags_disagree"));
    EXPECT_EQ(read_json(path("seeded/run.json")).at("totals").at("counts").at("flags_disagree"), disagree);
    EXPECT_NE(seeded.out.find("  flags disagree on texture_right_edge: "), std::string::npos) << seeded.out;
    EXPECT_EQ(clean.out.find("flags disagree"), std::string::npos) << clean.out;
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// refcheck diff calls a case fixed only on the same basis (make_run_index's "basis"). The seeded run
// (op_ifmask's mask test negated) is divergent, the clean run of the same case equivalent: the diff
// lists the case as on another basis (seeded faults), not as fixed, and exits 0; each run index row
// records the case file's SHA-256, the image, profile and archives, and the seeding.
TEST_F(SoundVerdictTest, ARunThatOnlyDroppedItsSeededFaultFixedNothing) {
    const auto [file, patch] = switches_and_negated_mask_test();
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    ASSERT_EQ(refcheck("run " + common + " --out seeded --patch " + patch).code, 1);
    ASSERT_EQ(refcheck("run " + common + " --out clean").code, 0);
    const ojson basis = read_json(path("clean/run.json")).at("cases").at(0).at("basis");
    EXPECT_EQ(basis.at("case_sha256"), harness::sha256_file(file));
    EXPECT_EQ(basis.at("image_sha256"), harness::sha256_file(kImage));
    EXPECT_TRUE(basis.at("narrowing").is_null());
    EXPECT_TRUE(basis.at("seeded").is_null());
    EXPECT_TRUE(basis.at("archives").at("3DDATA/3DOBJS.BIN").is_string());
    EXPECT_TRUE(read_json(path("seeded/run.json")).at("cases").at(0).at("basis").at("seeded").is_object());

    const Result d = refcheck("diff seeded clean");
    EXPECT_EQ(d.code, 0) << d.out << d.err;
    EXPECT_EQ(d.out.find("fixed ("), std::string::npos) << d.out;
    EXPECT_NE(
        d.out.find("on another basis (never counted as fixed) (1):\n  switches  divergent -> equivalent  "
                   "(seeded faults)"),
        std::string::npos)
        << d.out;
    const Result same = refcheck("diff clean clean");
    EXPECT_EQ(same.out.find("on another basis"), std::string::npos) << same.out;
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// fb.size on the original's side is the profile's framebuffer (data "framebuffer", its size): the
// frames compare the bytes the image's framebuffer holds, not a constant 64,000 the harness assumed
// for both sides. A profile that gives the framebuffer another size (here half of it) makes every
// frame differ in size; before, the edit changed nothing and the frames case stayed equivalent, so
// `event frame size = 64000` could not fail.
TEST_F(SoundVerdictTest, TheFramebufferIsAsLargeAsTheProfileSays) {
    expect_size_from_profile(write_case("frames", small_frames().to_json()), "framebuffer", 32000, 64000);
}

// The stride of the face vertices the harness reads is the profile's face_vertex "size": a profile
// saying the image pads them to 32 bytes (the stand-in's are 24) reads every vertex after the first
// from the wrong place, and the faces differ. The harness took the stride from the last field's end,
// so the edit changed nothing and the case stayed equivalent.
TEST_F(SoundVerdictTest, TheFaceVerticesStrideIsTheProfilesStructSize) {
    const fs::path file = write_case("program", small_program().to_json());
    auto run_with_size = [&](const std::string& name, std::uint32_t size) {
        ojson p = read_json(kProfile);
        p.at("structs").at("face_vertex")["size"] = size;
        const fs::path edited = path(name + ".profile.json");
        std::ofstream(edited) << p.dump(2) << "\n";
        return refcheck("run " + quote(file) + " --image " + quote(kImage) + " --profile " + quote(edited) +
                        " --data " + quote(kSmallData) + " --out " + name);
    };
    const Result same = run_with_size("same", 24);
    EXPECT_EQ(same.code, 0) << same.out << same.err;
    const Result padded = run_with_size("padded", 32);
    EXPECT_EQ(padded.code, 1) << padded.out << padded.err;
    EXPECT_EQ(read_json(path("padded/program.json")).at("status"), "divergent");
}

// The palette tables are read from the image at the size its profile entry gives, not at the size the
// reimplementation built: a reimplementation building a table short (or long) compared its own extent
// of the image's, a prefix, and agreed. A profile saying the image's intensity_table holds half as
// many levels is the same seeded fault seen from the other side: the table differs in size.
TEST_F(SoundVerdictTest, APaletteTableIsAsLargeAsTheProfileSays) {
    expect_size_from_profile(write_case("palette", small_palette()), "intensity_table", 4096, 8192);
}

// A scalar global the harness reads or writes as a 32-bit word (object_count, texture_count,
// gouraud_enabled, last_receiver, initialise_error, ...) must be one in the profile: a profile saying
// object_count is a 16-bit count was accepted and the harness read 32 bits anyway, the next global's
// low half as the count's high half on an image that keeps it in a short. Now it is the profile's
// error, naming the global.
TEST_F(SoundVerdictTest, AGlobalReadAsAWordIsOneInTheProfile) {
    const fs::path file = write_case("program", small_program().to_json());
    ojson p = read_json(kProfile);
    for (auto& d : p.at("data"))
        if (d.at("name") == "object_count") {
            d["type"] = "u16";
            d["size"] = 2;
        }
    const fs::path edited = path("short-count.profile.json");
    std::ofstream(edited) << p.dump(2) << "\n";
    const Result r = refcheck("run " + quote(file) + " --image " + quote(kImage) + " --profile " +
                              quote(edited) + " --data " + quote(kSmallData) + " --out out");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    const std::string error = read_json(path("out/program.json")).value("error", "");
    EXPECT_NE(error.find("data \"object_count\" is 2 byte(s) (\"u16\"); the harness reads and writes it as a "
                         "32-bit word"),
              std::string::npos)
        << error;
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// The loader's census (its metrics: records, textures, bytes) is each side's own: the original's from
// its tables and heap, the reimplementation's from its parse. It was the reimplementation's figures
// alone, printed as the case's. With load_texture's store of the texture's allocation into
// texture_table made a no-op, the original holds no texture: the case diverges at the texture table
// and the census says the original holds none.
TEST_F(SoundVerdictTest, TheLoadersCensusIsEachSidesOwn) {
    char table[16]; // as Capstone writes an absolute address: "0x415020"
    std::snprintf(table, sizeof table, "0x%x", profile_data_address("texture_table"));
    const CodeSite store = find_instruction("load_texture", [&](const emu::Instruction& in) {
        return in.text.rfind("mov dword ptr [", 0) == 0 &&
               in.text.find(std::string(table) + "]") != std::string::npos;
    });
    const fs::path file = write_case("loader", ojson{{"schema", "refcheck-case/1"},
                                                     {"family", "loader"},
                                                     {"description", "cli_tests: the small archives loaded"},
                                                     {"selection", ojson::object()}});
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const ojson census = read_json(path("clean/loader.json")).at("metrics");
    const auto textures = census.at("textures_populated").at("reimpl").get<std::uint64_t>();
    ASSERT_GT(textures, 0u);
    for (const char* k :
         {"model_records", "model_archive_bytes", "texture_slots", "textures_populated", "texture_bytes"})
        EXPECT_EQ(census.at(k).at("original"), census.at(k).at("reimpl")) << k;
    const Result nop = refcheck("run " + common + " --out nop --patch " + store.where() + ":" +
                                hex_bytes(std::vector<std::uint8_t>(store.bytes.size(), 0x90)));
    EXPECT_EQ(nop.code, 1) << nop.out << nop.err;
    const ojson report = read_json(path("nop/loader.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    const ojson& m = report.at("metrics");
    EXPECT_EQ(m.at("textures_populated").at("original"), 0);
    EXPECT_EQ(m.at("textures_populated").at("reimpl"), textures);
    EXPECT_EQ(m.at("texture_bytes").at("original"), 0);
    EXPECT_EQ(m.at("model_records").at("original"), m.at("model_records").at("reimpl"));
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// The construction census (instances, attached instances, empty slots) gives each side's own
// figures, of the records whose first placement is compared. It was the reimplementation's trees
// alone, and of every record built, a narrowing notwithstanding. With construct_3d_object_ returning
// 0 at once, the original builds no tree: the census says it holds none.
TEST_F(SoundVerdictTest, TheConstructionCensusIsEachSidesOwnOverTheComparedInputs) {
    const fs::path file = write_case("construct", ojson{{"schema", "refcheck-case/1"},
                                                        {"family", "construct"},
                                                        {"description", "cli_tests: every record built"},
                                                        {"selection", {{"records", {{"encoding", "any"}}}}}});
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const ojson census = read_json(path("clean/construct.json")).at("metrics");
    for (const char* k : {"instances", "attached_instances", "empty_slots"})
        EXPECT_EQ(census.at(k).at("original"), census.at(k).at("reimpl")) << k;
    const auto instances = census.at("instances").at("reimpl").get<std::uint64_t>();
    ASSERT_GT(census.at("records").get<std::uint64_t>(), 1u);
    ASSERT_GT(census.at("attached_instances").at("reimpl").get<std::uint64_t>(), 0u);

    const Result one = refcheck("run " + common + " --out one --only 'record 5 placement 0'");
    ASSERT_EQ(one.code, 0) << one.out << one.err;
    const ojson narrowed = read_json(path("one/construct.json")).at("metrics");
    EXPECT_EQ(narrowed.at("records"), 1);
    EXPECT_EQ(narrowed.at("instances").at("original"), narrowed.at("instances").at("reimpl"));
    EXPECT_LT(narrowed.at("instances").at("reimpl").get<std::uint64_t>(), instances);

    const Result none = refcheck("run " + common + " --out none --patch construct_3d_object_:31c0c3");
    EXPECT_EQ(none.code, 1) << none.out << none.err;
    const ojson m = read_json(path("none/construct.json")).at("metrics");
    EXPECT_EQ(m.at("instances").at("original"), 0);
    EXPECT_EQ(m.at("instances").at("reimpl"), instances);
}

// abi.init_objects.again: a second initialise_3d_objects_ releases what the first loaded. Only what
// the second load leaves was compared, among live allocations, so an original that never freed the
// first load (its two heap_free calls before loading again made no-ops) passed and proved the rule.
// The first load's allocations (the archive's and the texture table's, as the original's globals name
// them) must be freed after the second.
TEST_F(SoundVerdictTest, ASecondLoadMustReleaseTheFirst) {
    const emu::Address heap_free =
        find_instruction("heap_free", [](const emu::Instruction&) { return true; }).start;
    const emu::Address load =
        find_instruction("load_objects", [](const emu::Instruction&) { return true; }).start;
    char target[32], loading[32];
    std::snprintf(target, sizeof target, "call 0x%x", heap_free);
    std::snprintf(loading, sizeof loading, "call 0x%x", load);
    std::string patches;
    std::size_t frees = 0;
    const CodeSite body =
        find_instruction("initialise_3d_objects_body", [](const emu::Instruction&) { return true; });
    for (const emu::Instruction& in : instructions_of("initialise_3d_objects_body")) {
        if (in.text == loading) break; // the releases come first
        if (in.text != target) continue;
        char where[64];
        std::snprintf(where, sizeof where,
                      " --patch initialise_3d_objects_body+0x%x:", in.address - body.start);
        patches += where + hex_bytes(std::vector<std::uint8_t>(in.size, 0x90));
        ++frees;
    }
    ASSERT_EQ(frees, 2u) << "release_objects' and release_textures' heap_free";
    const fs::path file = write_case("loader", ojson{{"schema", "refcheck-case/1"},
                                                     {"family", "loader"},
                                                     {"description", "cli_tests: loaded twice"},
                                                     {"selection", {{"reinitialise", true}}}});
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const Result leak = refcheck("run " + common + " --out leak" + patches);
    EXPECT_EQ(leak.code, 1) << leak.out << leak.err;
    const ojson d = read_json(path("leak/loader.json")).at("first_unexplained");
    EXPECT_EQ(d.at("input"), "re-initialised") << d.dump();
    EXPECT_EQ(d.at("original").at("fields").at("name"), "first load still allocated (re-initialised)")
        << d.dump();
}

// rel.textures: OBJTEXT.BIN is read into a temporary buffer, then freed. The loader compared only
// what the globals name, so an original keeping the buffer (load_textures' heap_free made a no-op)
// stayed equivalent. A live allocation the second load made of the file's size that no global
// points into is that buffer, compared against none.
TEST_F(SoundVerdictTest, ATextureFileBufferTheLoaderKeepsDiverges) {
    const emu::Address heap_free =
        find_instruction("heap_free", [](const emu::Instruction&) { return true; }).start;
    char target[32];
    std::snprintf(target, sizeof target, "call 0x%x", heap_free);
    const CodeSite call =
        find_instruction("load_textures", [&](const emu::Instruction& in) { return in.text == target; });
    ASSERT_EQ(call.bytes.size(), 5u) << call.instruction.text;
    const std::string loader = quote(shipped_case("loader")) + " --data " + quote(kSmallData);
    const Result clean = refcheck("run " + loader + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const Result kept = refcheck("run " + loader + " --out kept --patch " +
                                 quote(call.where() + ":" + hex_bytes(call.bytes) + "->9090909090"));
    EXPECT_EQ(kept.code, 1) << kept.out << kept.err;
    const ojson d = read_json(path("kept/loader.json")).at("first_unexplained");
    EXPECT_EQ(d.at("input"), "re-initialised") << d.dump();
    EXPECT_EQ(d.at("original").at("fields").at("name"),
              "OBJTEXT.BIN buffers left by the load (re-initialised)")
        << d.dump();
}

// pal.warzone: a warzone past 0..3 is refused. Its rejection compared the result only, so an
// original refusing it for another reason (one that cannot open 3DPAL.RGB refuses every warzone)
// matched; where the profile names the reason (initialise_error's "palette_warzone"), it is
// compared with the reimplementation's own: no such warzone.
TEST_F(SoundVerdictTest, AWarzoneRefusedForAnotherReasonDiverges) {
    const ojson values = profile_data("initialise_error").at("values");
    const auto warzone = values.at("palette_warzone").get<std::uint32_t>();
    const auto open = values.at("palette_open").get<std::uint32_t>();
    char reason[16];
    std::snprintf(reason, sizeof reason, ", 0x%x", warzone);
    const CodeSite site = find_instruction("initialise_3d_palette_body", [&](const emu::Instruction& in) {
        return in.text.starts_with("mov ") && in.text.ends_with(reason);
    });
    std::vector<std::uint8_t> patched = site.bytes;
    ASSERT_EQ(patched.size(), 5u) << site.instruction.text; // mov r32, imm32
    ASSERT_EQ(patched.at(1), warzone) << site.instruction.text;
    patched.at(1) = static_cast<std::uint8_t>(open); // the immediate's low byte
    const std::string run =
        "run " + quote(shipped_case("coverage-palette-warzones")) + " --data " + quote(kSmallData);
    ASSERT_EQ(refcheck(run + " --out clean").code, 0);
    const Result r = refcheck(run + " --out o --patch " + site.where() + ":" + hex_bytes(patched));
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("o/coverage-palette-warzones.json"));
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("original").at("kind"), "rejection") << d;
    EXPECT_EQ(d.at("original").at("fields").at("reason"), "palette_open") << d;
    EXPECT_EQ(d.at("reimpl").at("fields").at("reason"), "palette_warzone") << d;
}

// pal.warzone says another index is refused and changes nothing; its predicate was any palette
// table, so a case building warzones 0..3 alone Proved it (on the retail image too). It asks for
// a palette initialiser's refusal: a case of valid warzones claims it without exercising it.
TEST_F(SoundVerdictTest, TheWarzoneBoundIsExercisedOnlyByARefusedWarzone) {
    auto exercised = [&](const std::string& name, std::vector<int> warzones) {
        ojson j = small_palette();
        j["selection"]["warzones"] = warzones;
        j["compares"] = {"table"};
        j["rules"] = {"pal.warzone"};
        const fs::path file = write_case(name, j);
        const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --out " + name);
        EXPECT_EQ(r.code, 0) << r.out << r.err;
        return read_json(path(name + "/" + name + ".json"))
            .at("exercised")
            .at("pal.warzone")
            .get<std::uint64_t>();
    };
    EXPECT_EQ(exercised("valid", {0, 1, 2, 3}), 0u);
    EXPECT_EQ(exercised("refused", {2, 4}), 1u);
}

// pal.file.layout: bytes after the 224 colours (672 bytes) are ignored. Every data root's palette was
// 672 bytes, so an original refusing a longer file (its size test `ja` after `cmp size, 0x29f` made
// `je` against 0x2a0: exactly 672 bytes) stayed equivalent, and the rule, whose predicate was any
// palette table, Proven. The edge root edge-palette-long holds 701 bytes; each warzone's stream
// starts with the palette file's size (a label of the input), and the predicate asks for more than
// 672.
TEST_F(SoundVerdictTest, BytesAfterThePalettesColoursAreIgnored) {
    const CodeSite size_test = find_instruction("initialise_3d_palette_body", [](const emu::Instruction& in) {
        return in.text.starts_with("cmp ") && in.text.ends_with(", 0x29f");
    });
    const CodeSite ja = find_instruction("initialise_3d_palette_body", [&](const emu::Instruction& in) {
        return in.address == size_test.instruction.address + size_test.instruction.size;
    });
    ASSERT_TRUE(ja.instruction.text.starts_with("ja ")) << ja.instruction.text;
    std::vector<std::uint8_t> exactly = size_test.bytes;
    ASSERT_EQ(exactly.at(exactly.size() - 4), 0x9f) << size_test.instruction.text;
    exactly.at(exactly.size() - 4) = 0xa0;
    std::vector<std::uint8_t> equal = ja.bytes;
    ASSERT_EQ(equal.size(), 2u);
    equal.at(0) = 0x74;
    const std::string patches = " --patch " + quote(size_test.where() + ":" + hex_bytes(exactly)) +
                                " --patch " + quote(ja.where() + ":" + hex_bytes(equal));
    const std::string cases = quote(shipped_case("edge-palette-long")) + " " + quote(shipped_case("palette"));
    const Result clean = refcheck("run " + cases + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const ojson long_report = read_json(path("clean/edge-palette-long.json"));
    EXPECT_GT(long_report.at("exercised").at("pal.file.layout").get<std::uint64_t>(), 0u);
    const Result seeded = refcheck("run " + cases + " --out seeded" + patches);
    EXPECT_EQ(seeded.code, 1) << seeded.out << seeded.err;
    EXPECT_EQ(read_json(path("seeded/edge-palette-long.json")).at("status"), "divergent");
    EXPECT_EQ(read_json(path("seeded/palette.json")).at("status"), "equivalent"); // 672 bytes: accepted
    // A palette of 672 bytes does not exercise the rule.
    ojson plain = read_json(shipped_case("edge-palette-long"));
    plain.erase("data");
    const fs::path file = write_case("palette-672", plain);
    ASSERT_EQ(refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --out plain").code, 0);
    EXPECT_EQ(read_json(path("plain/palette-672.json")).at("exercised").at("pal.file.layout"), 0);
}

// The generator's programs read state bits 5..15 and write no backward displacement, so an original
// shifting the state arithmetically in op 5 (op.select.value), or reading a case's or a
// continuation's displacement unsigned (op.branch.disp), stayed equivalent over every program case.
// program-edge-high-bits-backward selects on (state >> 31) & 3 with cases before the select, and
// continues an op 4 backward, on states with bit 31 set and clear; op.branch.disp's predicate asks
// for a walk to an earlier offset (`next < offset`), which the generator's programs never made.
TEST_F(SoundVerdictTest, HighStateBitsAndBackwardDisplacementsAreExercised) {
    const fs::path file = shipped_case("program-edge-high-bits-backward");
    const Result clean = refcheck("run " + quote(file) + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const ojson exercised = read_json(path("clean/program-edge-high-bits-backward.json")).at("exercised");
    for (const char* rule : {"op.select.value", "op.branch.disp", "op.choose", "op.ifmask"})
        EXPECT_GT(exercised.at(rule).get<std::uint64_t>(), 0u) << rule;
    auto site = [](const std::string& function, const std::string& text) {
        return find_instruction(function, [&](const emu::Instruction& in) { return in.text == text; });
    };
    auto unsigned_read = [](const CodeSite& movsx) { // movsx made movzx
        std::vector<std::uint8_t> b = movsx.bytes;
        EXPECT_EQ(b.at(1), 0xbf);
        b.at(1) = 0xb7;
        return b;
    };
    const CodeSite shift = site("op_select", "shr eax, cl");
    const CodeSite cases = site("op_select", "movsx edx, word ptr [eax]");
    const CodeSite cont = site("op_choose", "movsx eax, word ptr [edx + 9]");
    std::vector<std::uint8_t> sar = shift.bytes;
    sar.at(1) = 0xf8;
    const std::vector<std::pair<const CodeSite*, std::vector<std::uint8_t>>> faults = {
        {&shift, sar}, {&cases, unsigned_read(cases)}, {&cont, unsigned_read(cont)}};
    int n = 0;
    for (const auto& [at, bytes] : faults) {
        const std::string out = "seeded-" + std::to_string(n++);
        const Result r = refcheck("run " + quote(file) + " --out " + out + " --patch " +
                                  quote(at->where() + ":" + hex_bytes(at->bytes) + "->" + hex_bytes(bytes)));
        EXPECT_EQ(r.code, 1) << at->where() << ": " << r.out << r.err;
    }
}

// pkt.mask_unused (types 7, 15, 19 store m but never test it) shows only in a frame where such a
// face samples a texel equal to its m. Its predicate was any face event of those types, so
// program-matrix (faces replaced, no pixels drawn) Proved it, and an original drawing type 7
// through the masked rasteriser stayed equivalent over every program and frames case: no shipped
// data has such a texel. Its predicate is now `none`: claimed, never Proven.
TEST_F(SoundVerdictTest, TheUnusedMaskIsNotProvenByFacesThatCannotShowIt) {
    const emu::Address table = profile_data_address("raster_dispatch_table");
    emu::Machine machine;
    machine.load(kImage);
    char where[32];
    std::snprintf(where, sizeof where, "0x%08x", table + 4 * 7);                // type 7's rasteriser ...
    const std::string masked = hex_bytes(machine.read_bytes(table + 4 * 8, 4)); // ... made type 8's
    const std::string cases =
        quote(kCasesDir / "program-matrix.json") + " " + quote(kCasesDir / "frames-edge-masks.json");
    const std::string run = "run " + cases + " --data " + quote(kSmallData);
    const Result seeded = refcheck(run + " --out seeded --patch " + std::string(where) + ":" + masked);
    EXPECT_EQ(seeded.code, 0) << "no shipped case shows it" << seeded.out << seeded.err;
    const Result clean = refcheck(run + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
    const ojson index = read_json(path("clean/run.json"));
    std::size_t rows = 0;
    for (const auto& r : index.at("ledger").at("rules"))
        if (r.at("id") == "pkt.mask_unused") {
            ++rows;
            EXPECT_NE(r.at("status"), "Proven") << r;
        }
    EXPECT_EQ(rows, 1u);
}

} // namespace
} // namespace refcheck::cli_test
