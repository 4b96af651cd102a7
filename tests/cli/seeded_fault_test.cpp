// Proof that a run can fail, on both sides: a byte of the original patched under emulation (the
// winding test of op 1 inverted), and the reimplementation given another light (x and z swapped).
// Each run must exit 1 with its first unexplained divergence exactly where the fault first shows.
#include "cli_support.hpp"
#include "code_site.hpp"

#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/program.hpp"

#include <optional>

namespace refcheck::cli_test {
namespace {

class SeededFaultTest : public CliTest {};

// The winding test's branch in the stand-in's op_secondary (`if (pr->last_winding >= 0)`): the
// first `jns` of the static function.
CodeSite winding_branch() {
    return find_instruction("op_secondary",
                            [](const emu::Instruction& in) { return in.text.rfind("jns ", 0) == 0; });
}

const reimpl::ModelArchive& small_models() {
    static const auto models =
        reimpl::ModelArchive::parse(reimpl::read_file_bytes(kSmallData / "3DDATA" / "3DOBJS.BIN"));
    return models;
}

// The event a missing/extra divergence is about.
const ojson& divergent_event(const ojson& d) {
    return d.at("kind") == "missing_in_reimpl" ? d.at("original") : d.at("reimpl");
}

struct FirstChange {
    std::string input;
    std::size_t index = 0;
    ojson truth, swapped; // the event with the true light, and with x and z swapped
};

// Where swapping x and z of the light first changes what the reimplementation draws, input by
// input in the order of a run (records, views, lights, states).
std::optional<FirstChange> first_light_swap_change(const ProgramCase& pc) {
    for (const std::uint32_t record : pc.records)
        for (std::size_t v = 0; v < pc.views.size(); ++v)
            for (std::size_t l = 0; l < pc.lights.size(); ++l)
                for (const std::uint32_t state : pc.states) {
                    const auto a = reimpl_stream(record, pc.views[v], pc.lights[l], state);
                    const auto b = reimpl_stream(record, pc.views[v], pc.lights[l], state, true);
                    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
                        if (!(a[i] == b[i]))
                            return FirstChange{input_name(record, v, l, state), i, report_event(a[i]),
                                               report_event(b[i])};
                    if (a.size() != b.size()) throw std::runtime_error("the light changed what is drawn");
                }
    return std::nullopt;
}

TEST_F(SeededFaultTest, PatchedWindingBranchOfTheOriginalDivergesAtTheFirstSecondaryFace) {
    const CodeSite branch = winding_branch();
    ASSERT_EQ(branch.instruction.size, 2u) << branch.instruction.text; // a short jns (0x79 rel8)
    ASSERT_EQ(branch.bytes.at(0), 0x79) << branch.instruction.text;
    const std::string where = branch.where();

    const ProgramCase pc = small_program();
    const fs::path file = write_case("small-program", pc.to_json());
    const std::string common = quote(file) + " --data " + quote(kSmallData);
    // The same case unpatched is equivalent: whatever differs below, the patch made it differ.
    const Result clean = refcheck("run " + common + " --out clean");
    ASSERT_EQ(clean.code, 0) << clean.out << clean.err;

    const Result run = refcheck("run " + common + " --out patched --patch " + where + ":78"); // jns -> js
    ASSERT_EQ(run.code, 1) << run.out << run.err;
    EXPECT_NE(run.out.find("seeded patch " + where + ": its bytes ran in 1 of 1 case(s)\n"),
              std::string::npos)
        << run.out;
    const ojson index = read_json(path("patched/run.json"));
    EXPECT_EQ(index.at("status"), "divergent");
    // run.json, JUnit and HTML say so too, from the case report's coverage.
    EXPECT_EQ(index.at("seeded_effect"),
              ojson::parse(R"({"cases": 1, "patches": [{"where": ")" + where +
                           R"(", "ran": 1, "not_run": 0, "cannot_tell": 0, "stopped": 0}]})"));
    const std::string said = "the original is modified (1 patch; " + where + " ran in 1 of 1 case(s))";
    EXPECT_NE(
        read_text(path("patched/junit.xml")).find("name=\"refcheck.seeded_faults\" value=\"" + said + "\""),
        std::string::npos);
    EXPECT_NE(read_text(path("patched/index.html")).find("SEEDED FAULTS: " + said + "."), std::string::npos);
    const ojson report = read_json(path("patched/small-program.json"));
    EXPECT_EQ(report.at("status"), "divergent");

    // The report records the seeded fault.
    ASSERT_TRUE(report.contains("injected"));
    const ojson& patches = report.at("injected").at("patches");
    ASSERT_EQ(patches.size(), 1u);
    EXPECT_EQ(patches.at(0).at("where"), where);
    EXPECT_EQ(std::stoul(patches.at(0).at("address").get<std::string>(), nullptr, 16),
              branch.instruction.address);
    EXPECT_EQ(patches.at(0).at("bytes"), "78");
    // show names the patch too: its verdict is one on a modified original.
    const Result show = refcheck("show patched/small-program.json");
    EXPECT_NE(show.out.find("seeded patch (the original was modified): " + where + " at " +
                            patches.at(0).at("address").get<std::string>() +
                            ", 79 -> 78, it ran in this case\n"),
              std::string::npos)
        << show.out;

    // With op 1's test inverted, every secondary face with its vertices in front is drawn by
    // exactly one side, so the first divergence is in the case's first input (which draws
    // secondary faces), at or before the reimplementation's first secondary face there.
    const std::uint32_t record = pc.records.front();
    const auto stream = reimpl_stream(record, pc.views.front(), pc.lights.front(), pc.states.front());
    std::optional<std::size_t> first_secondary;
    for (std::size_t i = 0; i < stream.size() && !first_secondary; ++i)
        if (const auto* f = std::get_if<events::FaceDraw>(&stream[i]); f && f->opcode == 1)
            first_secondary = i;
    ASSERT_TRUE(first_secondary) << "the first input must draw a secondary face";

    ASSERT_TRUE(report.contains("first_unexplained"));
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("input"), input_name(record, 0, 0, pc.states.front()));
    ASSERT_TRUE(d.at("kind") == "missing_in_reimpl" || d.at("kind") == "extra_in_reimpl") << d.at("kind");
    const ojson& event = divergent_event(d);
    ASSERT_EQ(event.at("kind"), "face_draw");
    EXPECT_EQ(event.at("fields").at("opcode"), 1);
    EXPECT_EQ(event.at("fields").at("secondary"), true);
    const std::size_t at = d.at("reimpl_index").get<std::size_t>();
    EXPECT_EQ(d.at("original_index").get<std::size_t>(), at); // everything before aligned one to one
    EXPECT_LE(at, *first_secondary);
    if (d.at("kind") == "extra_in_reimpl") {
        // The original skipped the reimplementation's first secondary face.
        EXPECT_EQ(at, *first_secondary);
        EXPECT_EQ(without_flags(event), report_event(stream[at]));
    } else {
        // The original drew a secondary face the reimplementation skipped, because the winding of
        // the last primary face of that instance was negative.
        const auto ev_path = event.at("fields").at("path").get<std::vector<std::int32_t>>();
        std::optional<std::int32_t> last_winding;
        for (std::size_t i = 0; i < at; ++i)
            if (const auto* w = std::get_if<events::WindingDecision>(&stream[i]);
                w && w->opcode == 0 && w->path == ev_path)
                last_winding = w->winding;
        ASSERT_TRUE(last_winding) << "no primary face before the secondary one";
        EXPECT_LT(*last_winding, 0);
    }

    // The instruction at the event's offset is an op 1 of the face program of the event's record.
    const auto ev_record = event.at("fields").at("record").get<std::uint32_t>();
    const auto ev_offset = event.at("fields").at("offset").get<std::uint32_t>();
    const reimpl::Program program = reimpl::decode_program(small_models(), ev_record);
    ASSERT_TRUE(program.instructions.count(ev_offset)) << "no instruction at +" << ev_offset;
    EXPECT_EQ(program.at(ev_offset).opcode, reimpl::Opcode::Secondary);

    // The events before it matched: the same on both sides, and the reimplementation's own stream.
    const ojson& ctx = d.at("context");
    const ojson& before_o = ctx.at("original_before");
    const ojson& before_r = ctx.at("reimpl_before");
    ASSERT_EQ(before_o.size(), std::min<std::size_t>(at, 5));
    ASSERT_EQ(before_r.size(), before_o.size());
    for (std::size_t k = 0; k < before_o.size(); ++k) {
        const ojson expected = report_event(stream.at(at - before_o.size() + k));
        EXPECT_EQ(without_flags(before_o.at(k)), without_flags(before_r.at(k))) << k;
        EXPECT_EQ(without_flags(before_r.at(k)), expected) << k;
    }

    // Resync (issue 15): the fault changes only which secondary faces are drawn, so once each
    // input's streams are aligned every winding, control flow and attached draw pairs up as in the
    // clean run, no aligned pair differs, and every unexplained event is a face one side alone drew
    // (the face_draw events counted grow by exactly the original's extra faces).
    const ojson& seeded = report.at("counts");
    const ojson unpatched = read_json(path("clean/small-program.json")).at("counts");
    const auto n = [](const ojson& c, const char* k) { return c.at(k).get<std::uint64_t>(); };
    EXPECT_EQ(n(seeded, "changed"), 0u);
    EXPECT_GT(n(seeded, "missing_in_reimpl") + n(seeded, "extra_in_reimpl"), 0u);
    EXPECT_EQ(n(seeded, "unexplained"), n(seeded, "missing_in_reimpl") + n(seeded, "extra_in_reimpl"));
    for (const char* kind : {"winding_decision", "control_flow", "attached_draw"})
        EXPECT_EQ(seeded.at("by_kind").value(kind, 0ull), unpatched.at("by_kind").value(kind, 0ull)) << kind;
    EXPECT_EQ(n(seeded.at("by_kind"), "face_draw"),
              n(unpatched.at("by_kind"), "face_draw") + n(seeded, "missing_in_reimpl"));
}

TEST_F(SeededFaultTest, ReimplementationGivenASwappedLightDivergesAtTheFirstLevelItChanges) {
    const ProgramCase pc = small_program();
    const std::optional<FirstChange> change = first_light_swap_change(pc);
    ASSERT_TRUE(change) << "the case's asymmetric light must change some level";
    const auto& [input, index, truth, swapped] = *change;
    ASSERT_NE(input, input_name(pc.records.front(), 0, 0, pc.states.front()))
        << "the first light is symmetric in x and z: the swap cannot show there";

    const fs::path file = write_case("small-program", pc.to_json());
    const Result run = refcheck("run " + quote(file) + " --data " + quote(kSmallData) +
                                " --out out --inject-reimpl-light-swap");
    ASSERT_EQ(run.code, 1) << run.out << run.err;
    const ojson report = read_json(path("out/small-program.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    EXPECT_EQ(report.at("injected").at("reimpl_light"), "x and z swapped");
    // Of the case's two lights, the swap changes the asymmetric one.
    EXPECT_EQ(report.at("injected").at("reimpl_lights"), 2);
    EXPECT_EQ(report.at("injected").at("reimpl_lights_changed"), 1);
    EXPECT_FALSE(report.at("injected").contains("reimpl_light_inert"));
    EXPECT_NE(run.out.find("seeded light swap: the reimplementation got another light in 1 of 1 case(s)\n"),
              std::string::npos)
        << run.out;
    EXPECT_EQ(read_json(path("out/run.json")).at("seeded_effect"),
              ojson::parse(R"({"cases": 1, "reimpl_light_changed_in": 1})"));
    EXPECT_NE(read_text(path("out/junit.xml"))
                  .find("the reimplementation's input is modified (light x and z swapped; another light in 1 "
                        "of 1 case(s))"),
              std::string::npos);
    ASSERT_TRUE(report.contains("first_unexplained"));
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("kind"), "field_mismatch");
    EXPECT_EQ(d.at("input"), input);
    EXPECT_EQ(d.at("original_index"), index);
    EXPECT_EQ(d.at("reimpl_index"), index);
    EXPECT_EQ(without_flags(d.at("original")), truth);
    EXPECT_EQ(without_flags(d.at("reimpl")), swapped);
    ASSERT_FALSE(d.at("fields").empty());
    for (const auto& f : d.at("fields")) {
        const std::string name = f.at("field").get<std::string>();
        EXPECT_TRUE(name == "face_level" || name == "vertex_levels") << name;
        EXPECT_EQ(f.at("original"), truth.at("fields").at(name).dump()) << name;
        EXPECT_EQ(f.at("reimpl"), swapped.at("fields").at(name).dump()) << name;
    }
}

// The program family replaces the face routines: a patch over one's first byte is never run, though
// the block at its entry is entered as far as the replacement's hook. Coverage must not count that
// block: the report says the bytes did not run, and the run, comparing the unmodified routines'
// replacements, is equivalent.
TEST_F(SeededFaultTest, APatchOverAReplacedRoutineDidNotRun) {
    const fs::path file = write_case("small-program", small_program().to_json());
    const std::string where = "draw_completely_visible_primary_face_+0";
    const Result run = refcheck("run " + quote(file) + " --data " + quote(kSmallData) +
                                " --out out --patch " + where + ":c3");
    ASSERT_EQ(run.code, 0) << run.out << run.err;
    const ojson report = read_json(path("out/small-program.json"));
    EXPECT_GT(report.at("counts").at("by_kind").value("face_draw", 0ull), 0u) << "the case drew no face";
    EXPECT_EQ(report.at("injected").at("patches").at(0).at("executed"), false);
    EXPECT_NE(
        run.out.find("seeded patch " + where +
                     ": its bytes ran in 0 of 1 case(s); in none, so no case ran the modified original\n"),
        std::string::npos)
        << run.out;
}

// A patch after a faulting instruction in the same basic block may never have run: the fault can end
// the block before it. Block coverage counts a block run when it is entered, so both patches "ran".
// Here the palette's file read: `lea eax, [ebp - 0xc]; push edx; push eax` (5 bytes) made
// `mov eax, [0]`, which faults, and a byte of the `push 0x...` after it changed: the first ran, and
// for the second coverage cannot tell (null, and why), rather than "it ran".
TEST_F(SeededFaultTest, APatchAfterAFaultInItsBlockIsNotSaidToHaveRun) {
    const CodeSite lea = find_instruction("initialise_3d_palette_body", [](const emu::Instruction& in) {
        return in.text == "lea eax, [ebp - 0xc]";
    });
    const std::vector<emu::Instruction> code = instructions_of("initialise_3d_palette_body");
    const auto at = std::find_if(code.begin(), code.end(), [&](const emu::Instruction& in) {
        return in.address == lea.instruction.address;
    });
    ASSERT_TRUE(at != code.end() && code.end() - at > 3);
    ASSERT_EQ(at[1].text, "push edx");
    ASSERT_EQ(at[2].text, "push eax");
    ASSERT_TRUE(at[3].text.starts_with("push 0x")) << at[3].text; // the file's name
    const CodeSite name = find_instruction("initialise_3d_palette_body", [&](const emu::Instruction& in) {
        return in.address == at[3].address;
    });
    ASSERT_EQ(name.bytes.size(), 5u);
    const std::string fault = lea.where() + ":a100000000"; // mov eax, dword ptr [0]
    char later[96];                                        // the push's immediate's low byte
    std::snprintf(later, sizeof later, "%s+0x%x:%02x", name.function.c_str(),
                  name.instruction.address + 1 - name.start, name.bytes[1] ^ 1u);
    const Result run = refcheck("run " + quote(shipped_case("palette")) + " --data " + quote(kSmallData) +
                                " --out out --patch " + quote(fault) + " --patch " + quote(later));
    ASSERT_EQ(run.code, 1) << run.out << run.err;
    const ojson report = read_json(path("out/palette.json"));
    EXPECT_EQ(report.at("first_unexplained").at("kind"), "original_fault");
    const ojson& patches = report.at("injected").at("patches");
    EXPECT_EQ(patches.at(0).at("executed"), true) << patches.dump(); // the faulting instruction ran
    EXPECT_TRUE(patches.at(1).at("executed").is_null()) << patches.dump();
    EXPECT_NE(
        patches.at(1).at("executed_unknown").get<std::string>().find("a fault of the case in the block"),
        std::string::npos)
        << patches.dump();
}

// A case whose every light has x equal to z: the swap gives the reimplementation the same light,
// the run compares the unmodified input and is equivalent, and the report and the summary say that
// the seeded swap changed nothing, rather than "the reimplementation's input is modified" alone.
TEST_F(SeededFaultTest, ASwapOfLightsSymmetricInXAndZChangesNothingAndSaysSo) {
    ProgramCase pc = small_program();
    pc.lights = {{6689, 13377, 6689}};
    ASSERT_FALSE(first_light_swap_change(pc)) << "a light with x equal to z swapped is the same light";

    const fs::path file = write_case("symmetric-light", pc.to_json());
    const Result run = refcheck("run " + quote(file) + " --data " + quote(kSmallData) +
                                " --out out --inject-reimpl-light-swap");
    ASSERT_EQ(run.code, 0) << run.out << run.err;
    const ojson injected = read_json(path("out/symmetric-light.json")).at("injected");
    EXPECT_EQ(injected.at("reimpl_light"), "x and z swapped");
    EXPECT_EQ(injected.at("reimpl_lights"), 1);
    EXPECT_EQ(injected.at("reimpl_lights_changed"), 0);
    EXPECT_EQ(injected.at("reimpl_light_inert"), "every light of this case has x equal to z");
    EXPECT_NE(run.out.find("seeded light swap: the reimplementation got another light in 0 of 1 case(s); in "
                           "none, so its input was not modified in this run\n"),
              std::string::npos)
        << run.out;
}

} // namespace
} // namespace refcheck::cli_test
