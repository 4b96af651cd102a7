// refcheck bisect on seeded divergences: the winding branch of op 1 inverted in the original (the
// patch of seeded_fault_test), the reimplementation given a swapped light, and a shadow face routine
// that returns at once. Bisect must exit 1 and print the divergent event with its per-field diff,
// the marked draw-program listing, the original's instruction window with symbols, registers, the
// call stack and a reproduce line that, run as printed, exits 1 at the same event. On an equivalent
// case it exits 0; a divergent run keeps the same drill-down in its report and HTML page.
#include "cli_support.hpp"
#include "code_site.hpp"
#include "detour.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

namespace refcheck::cli_test {
namespace {

class BisectTest : public CliTest {
protected:
    // Runs the reproduce line bisect printed (its leading "refcheck" is the built binary).
    Result reproduce(const std::string& out) {
        const std::string prefix = "\nreproduce: refcheck ";
        const auto at = out.find(prefix);
        if (at == std::string::npos) return {};
        const auto end = out.find('\n', at + prefix.size());
        return refcheck(out.substr(at + prefix.size(), end - at - prefix.size()));
    }
};

// The first jns of the stand-in's op_secondary (op 1's winding test), as seeded_fault_test finds it.
struct Jns {
    std::string where;
    emu::Address address = 0;
};

Jns winding_jns() {
    const CodeSite site = find_instruction(
        "op_secondary", [](const emu::Instruction& in) { return in.text.rfind("jns ", 0) == 0; });
    return {site.where(), site.instruction.address};
}

std::string hex8(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

// The lines of `text` between the line starting with `from` and the next "note:"/"reproduce:" line.
std::vector<std::string> section(const std::string& text, const std::string& from) {
    std::vector<std::string> out;
    std::istringstream in(text);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(from, 0) == 0) {
            inside = true;
            continue;
        }
        if (inside && (line.rfind("note:", 0) == 0 || line.rfind("reproduce:", 0) == 0)) break;
        if (inside) out.push_back(line);
    }
    return out;
}

// The divergence fields that say which event it is.
ojson identity(const ojson& d) {
    return {{"kind", d.at("kind")},
            {"input", d.at("input")},
            {"original_index", d.at("original_index")},
            {"reimpl_index", d.at("reimpl_index")},
            {"original", d.at("original")},
            {"reimpl", d.at("reimpl")}};
}

TEST_F(BisectTest, PatchedWindingBranchPrintsTheEventListingWindowAndAWorkingReproduceLine) {
    const Jns jns = winding_jns();
    const fs::path file = write_case("small-program", small_program().to_json());
    const std::string env = " --data " + quote(kSmallData) + " --patch " + jns.where + ":78";
    const Result run = refcheck("run " + quote(file) + env + " --out whole");
    ASSERT_EQ(run.code, 1) << run.out << run.err;
    const ojson whole = read_json(path("whole/small-program.json")).at("first_unexplained");

    const Result b = refcheck("bisect " + quote(file) + env);
    ASSERT_EQ(b.code, 1) << b.out << b.err;
    // The seeded fault is announced first (two lines: the banner and the patch), then the drill-down.
    const std::string banner = "refcheck: SEEDED FAULTS";
    ASSERT_EQ(b.out.rfind(banner, 0), 0u) << b.out;
    const auto patch_line = b.out.find('\n') + 1;
    ASSERT_EQ(b.out.find("  the original is modified: 1 byte(s) at " + jns.where + " overwritten with 78",
                         patch_line),
              patch_line)
        << b.out;
    const std::string out = b.out.substr(b.out.find('\n', patch_line) + 1);
    const std::string input = whole.at("input").get<std::string>();
    EXPECT_EQ(out.rfind("error: first divergence at event #" +
                            std::to_string(whole.at("original_index").get<int>()) +
                            " (case small-program, input " + input + "): ",
                        0),
              0u)
        << out;
    EXPECT_NE(out.find("note: the narrowed re-run (this input only) diverges at the same event"),
              std::string::npos);
    EXPECT_NE(out.find("\noriginal #"), std::string::npos) << out;
    EXPECT_NE(out.find("\nreimpl   #"), std::string::npos) << out;
    EXPECT_NE(out.find("\n  ! "), std::string::npos) << out; // the per-field diff marks what differs
    EXPECT_NE(out.find("before it, original:\n  #"), std::string::npos) << out;

    // The listing marks op 1 (a secondary face) at the event's offset.
    const ojson& ev = whole.at(whole.at("original").is_object() ? "original" : "reimpl");
    char offset[8];
    std::snprintf(offset, sizeof offset, "%04x", ev.at("fields").at("offset").get<unsigned>());
    const auto listing = section(out, "note: draw program of record " +
                                          std::to_string(ev.at("fields").at("record").get<int>()));
    ASSERT_FALSE(listing.empty()) << out;
    std::size_t marked = 0;
    for (const auto& line : listing)
        if (line.rfind("  -> ", 0) == 0) {
            ++marked;
            EXPECT_NE(line.find(std::string(offset) + "  01 "), std::string::npos) << line;
            EXPECT_NE(line.find("secondary"), std::string::npos) << line;
        }
    EXPECT_EQ(marked, 1u) << out;

    // The instruction window holds the patched branch (now a js), with symbols.
    const auto window = section(out, "note: the original's instructions from");
    ASSERT_FALSE(window.empty()) << out;
    bool patched = false, symbols = true;
    for (const auto& line : window) {
        if (line.rfind("  ... ", 0) == 0) continue; // lines left out, a loop folded
        symbols = symbols &&
                  std::regex_search(
                      line, std::regex("^  0x[0-9a-f]{8} <[A-Za-z_][A-Za-z0-9_.:]*(\\+0x[0-9a-f]+)?>: "));
        patched = patched || line.find(hex8(jns.address) + " <" + jns.where + ">: js ") != std::string::npos;
    }
    EXPECT_TRUE(symbols) << out;
    EXPECT_TRUE(patched) << "no " << hex8(jns.address) << " <" << jns.where << ">: js in the window\n" << out;
    EXPECT_NE(out.find("note: instructions per routine, in order of first use: "), std::string::npos);

    // Registers at the face routine's call, and the guest call stack through op_secondary.
    EXPECT_TRUE(std::regex_search(
        out, std::regex("note: registers at draw_[a-z_]+_face_ \\(the hook of the divergent "
                        "event\\):\n  eax=0x[0-9a-f]{8} \\(packet\\) ")))
        << out;
    const auto stack = section(out, "note: guest call stack, innermost first");
    ASSERT_GE(stack.size(), 2u) << out;
    EXPECT_NE(stack[0].find("_face_"), std::string::npos) << stack[0];

    // The reproduce line runs just that input and diverges at the same event.
    const Result again = reproduce(out);
    ASSERT_EQ(again.code, 1) << out << again.out << again.err;
    const ojson narrowed = read_json(path("out/bisect/small-program.json"));
    EXPECT_EQ(narrowed.at("selection").at("only"), input);
    EXPECT_EQ(narrowed.at("metrics").at("inputs"), 1);
    EXPECT_EQ(identity(narrowed.at("first_unexplained")), identity(whole));
}

TEST_F(BisectTest, SwappedLightGivesAFieldDiffAndAReproduceLine) {
    const fs::path file = write_case("small-program", small_program().to_json());
    const Result b =
        refcheck("bisect " + quote(file) + " --data " + quote(kSmallData) + " --inject-reimpl-light-swap");
    ASSERT_EQ(b.code, 1) << b.out << b.err;
    EXPECT_NE(b.out.find("(field_mismatch)\n"), std::string::npos) << b.out;
    EXPECT_TRUE(b.out.find("\n  ! face_level: ") != std::string::npos ||
                b.out.find("\n  ! vertex_levels: ") != std::string::npos)
        << b.out;
    EXPECT_NE(b.out.find("--inject-reimpl-light-swap --out out/bisect\n"), std::string::npos) << b.out;
    ASSERT_FALSE(section(b.out, "note: the original's instructions from").empty()) << b.out;
    const Result again = reproduce(b.out);
    EXPECT_EQ(again.code, 1) << again.out << again.err;
    // Starting from the narrowed input gives the same drill-down.
    const std::string input = read_json(path("out/bisect/small-program.json")).at("selection").at("only");
    const Result only = refcheck("bisect " + quote(file) + " --data " + quote(kSmallData) +
                                 " --inject-reimpl-light-swap --only " + quote(input));
    EXPECT_EQ(only.code, 1);
    EXPECT_EQ(only.out, b.out);
}

// --patch takes one value per flag, as run's does: `bisect --patch X CASE` took the case for a
// second patch and then said "case is required".
TEST_F(BisectTest, APatchBeforeTheCaseTakesOneValue) {
    const Jns jns = winding_jns();
    const fs::path file = write_case("small-program", small_program().to_json());
    const Result b =
        refcheck("bisect --patch " + jns.where + ":78 " + quote(file) + " --data " + quote(kSmallData));
    EXPECT_EQ(b.code, 1) << b.out << b.err;
    EXPECT_NE(b.out.find("error: first divergence at event #"), std::string::npos) << b.out;
}

TEST_F(BisectTest, EquivalentCaseExitsZero) {
    ProgramCase pc = small_program();
    pc.records = {5};
    pc.states = {0};
    const fs::path file = write_case("one-record", pc.to_json());
    const Result b = refcheck("bisect " + quote(file) + " --data " + quote(kSmallData));
    EXPECT_EQ(b.code, 0) << b.out << b.err;
    EXPECT_NE(b.out.find("case one-record: equivalent ("), std::string::npos) << b.out;
    EXPECT_NE(b.out.find("nothing to bisect"), std::string::npos) << b.out;
    EXPECT_EQ(refcheck("bisect " + quote(path("cases/absent.json"))).code, 2);
    const Result bad =
        refcheck("bisect " + quote(file) + " --data " + quote(kSmallData) + " --only 'record 99 view 0'");
    EXPECT_EQ(bad.code, 2) << bad.out << bad.err;
    EXPECT_NE(bad.err.find("no input named \"record 99 view 0\""), std::string::npos) << bad.err;
}

// A window holds what ran between its two hooks. The winding taps fire at polygon_winding_'s return
// sites after the trace has recorded the instruction there, so a window opening at one left out the
// instruction at its hook, which runs after it, and a window closing at one listed (and counted) the
// instruction at its hook, which had not run. The seeds: draw_face's load of its first argument
// right after the winding (the divergent face's packet then holds the face's own pointer), whose
// window opens at a winding tap; and polygon_winding_body's `sub eax, edx` reversed (the winding
// diverges), whose window closes at one.
TEST_F(BisectTest, AWindowAtAWindingTapHoldsExactlyWhatRanBetweenItsHooks) {
    const auto code = instructions_of("draw_face");
    const emu::Address winding =
        find_instruction("polygon_winding_", [](const emu::Instruction&) { return true; }).start;
    char target[32]; // draw_face calls the winding through a register: mov esi, polygon_winding_; call esi
    std::snprintf(target, sizeof target, "mov esi, 0x%x", winding);
    const auto t =
        std::find_if(code.begin(), code.end(), [&](const emu::Instruction& in) { return in.text == target; });
    const auto c =
        std::find_if(t, code.end(), [](const emu::Instruction& in) { return in.text == "call esi"; });
    ASSERT_TRUE(c != code.end() && c + 1 != code.end()) << "draw_face calls polygon_winding_ no more";
    const emu::Instruction& load = *(c + 1);
    ASSERT_EQ(load.text, "mov ebx, dword ptr [ebp + 8]") << "the instruction after the winding moved";
    char where[48];
    std::snprintf(where, sizeof where, "draw_face+0x%x", load.address - code.front().address + load.size - 1);
    const CodeSite sub = find_instruction(
        "polygon_winding_body", [](const emu::Instruction& in) { return in.text == "sub eax, edx"; });
    const fs::path file = write_case("small-program", small_program().to_json());
    const std::regex header("note: the original's instructions from the hook of the original's event #[0-9]+ "
                            "\\(([^)]+)\\) to the hook of the original's event #[0-9]+ \\(([^)]+)\\): "
                            "([0-9,]+) executed");
    // The window's first and last instruction lines, and its two hooks' places.
    struct Window {
        std::string first, last, from, to;
    };
    auto window = [&](const std::string& patch) {
        const Result b =
            refcheck("bisect " + quote(file) + " --data " + quote(kSmallData) + " --patch " + patch);
        EXPECT_EQ(b.code, 1) << b.out << b.err;
        std::smatch m;
        EXPECT_TRUE(std::regex_search(b.out, m, header)) << b.out;
        Window w;
        if (m.empty()) return w;
        w.from = m[1], w.to = m[2];
        for (const std::string& line : section(b.out, "note: the original's instructions from")) {
            if (line.rfind("  0x", 0) != 0) continue;
            if (w.first.empty()) w.first = line;
            w.last = line;
        }
        return w;
    };
    const Window opening = window(std::string(where) + ":0c");
    EXPECT_EQ(
        opening.from, "draw_face+0x" +
                          [&] {
                              char t[16];
                              std::snprintf(t, sizeof t, "%x", load.address - code.front().address);
                              return std::string(t);
                          }())
        << "the window opens at the winding tap before the patched load";
    EXPECT_NE(
        opening.first.find(hex8(load.address) + " <" + opening.from + ">: mov ebx, dword ptr [ebp + 0xc]"),
        std::string::npos)
        << "the patched load, at the hook, runs first: " << opening.first;
    const Window closing = window(sub.where() + ":29c2");
    EXPECT_EQ(closing.to, opening.from) << "the window closes at the winding tap";
    EXPECT_EQ(closing.last.find("<" + closing.to + ">"), std::string::npos)
        << "the instruction at the closing hook has not run: " << closing.last;
    EXPECT_NE(closing.last.find(": ret"), std::string::npos)
        << "polygon_winding_'s ret ran last: " << closing.last;
    EXPECT_NE(closing.first.find("<" + closing.from + ">"), std::string::npos) << closing.first;
}

// Frames: the face routines run; the window still ends at the divergent face's call.
TEST_F(BisectTest, FramesCaseWithThePatchedBranchHasAWindow) {
    const Jns jns = winding_jns();
    const fs::path file = write_case("small-frames", small_frames().to_json());
    const std::string env = " --data " + quote(kSmallData) + " --patch " + jns.where + ":78";
    const Result b = refcheck("bisect " + quote(file) + env);
    ASSERT_EQ(b.code, 1) << b.out << b.err;
    EXPECT_NE(b.out.find(hex8(jns.address) + " <" + jns.where + ">: js "), std::string::npos) << b.out;
    EXPECT_NE(b.out.find("note: registers at draw_"), std::string::npos) << b.out;
    EXPECT_EQ(reproduce(b.out).code, 1);
}

// A frame divergence: who wrote its first differing pixel. Every pixel store of the stand-in's plot
// (`mov byte ptr [eax + framebuffer], cl` or `bl`) made to store the high byte (ch, bh) instead: the
// original draws the same faces, wrong values. The drill-down names, on each side, the writes to
// the pixel with the event hooked before each (the original's with its instruction, in plot), and
// each side's last write is the value its frame holds.
TEST_F(BisectTest, AFrameDivergenceNamesWhoWroteItsFirstDifferingPixel) {
    std::string patches;
    for (const emu::Instruction& in : instructions_of("plot")) {
        if (!in.text.starts_with("mov byte ptr [eax + 0x")) continue; // plot stores only pixels
        ASSERT_TRUE(in.text.ends_with(", cl") || in.text.ends_with(", bl")) << in.text;
        const CodeSite site =
            find_instruction("plot", [&](const emu::Instruction& i) { return i.address == in.address; });
        ASSERT_EQ(site.bytes.size(), 6u) << in.text;
        std::vector<std::uint8_t> high = site.bytes;
        high[1] = static_cast<std::uint8_t>(high[1] | 0x20); // the register's high byte
        patches += " --patch " + quote(site.where() + ":" + hex_bytes(site.bytes) + "->" + hex_bytes(high));
    }
    ASSERT_FALSE(patches.empty()) << "no pixel store in plot";
    const fs::path file = write_case("small-frames", small_frames().to_json());
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) + patches + " --out run");
    ASSERT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("run/small-frames.json"));
    const ojson& d = report.at("first_unexplained");
    ASSERT_EQ(d.at("original").at("kind"), "frame") << d.dump(2);
    const ojson& px = report.at("bisect").at("pixel");
    EXPECT_EQ(px.at("x"), d.at("pixel").at("x"));
    EXPECT_EQ(px.at("y"), d.at("pixel").at("y"));
    const ojson& original = px.at("original");
    const ojson& reimpl = px.at("reimpl");
    EXPECT_EQ(original.at("value"), d.at("pixel").at("original"));
    EXPECT_EQ(reimpl.at("value"), d.at("pixel").at("reimpl"));
    EXPECT_NE(original.at("value"), reimpl.at("value"));
    ASSERT_GE(original.at("writes").get<int>(), 1) << px.dump(2);
    ASSERT_GE(reimpl.at("writes").get<int>(), 1) << px.dump(2);
    EXPECT_TRUE(original.at("accounts_for_value").get<bool>()) << px.dump(2);
    EXPECT_TRUE(reimpl.at("accounts_for_value").get<bool>()) << px.dump(2);
    const ojson& o_last = original.at("last").back();
    const ojson& r_last = reimpl.at("last").back();
    EXPECT_EQ(o_last.at("value"), original.at("value"));
    EXPECT_EQ(r_last.at("value"), reimpl.at("value"));
    EXPECT_TRUE(o_last.at("at").get<std::string>().starts_with("plot+0x")) << o_last;
    // The same face wrote it last on both sides, a face_draw event.
    EXPECT_EQ(o_last.at("event"), r_last.at("event")) << px.dump(2);
    EXPECT_EQ(o_last.at("kind"), "face_draw") << px.dump(2);
    EXPECT_EQ(r_last.at("kind"), "face_draw") << px.dump(2);
    // bisect prints it.
    const Result b = refcheck("bisect " + quote(file) + " --data " + quote(kSmallData) + patches);
    ASSERT_EQ(b.code, 1) << b.out << b.err;
    const std::string line =
        "note: pixel (" + px.at("x").dump() + "," + px.at("y").dump() + ") of the original (";
    EXPECT_NE(b.out.find(line), std::string::npos) << b.out;
    EXPECT_NE(b.out.find(" <" + o_last.at("at").get<std::string>() + "> = " + o_last.at("value").dump()),
              std::string::npos)
        << b.out;
}

// A data root given with a trailing separator ("small/") is named as without one: its file name
// was "", so the reproduce lines read `--data ''` and the report's bytes differed from a run given
// "small".
TEST_F(BisectTest, ADataRootWithATrailingSlashIsNamedAsWithout) {
    const Jns jns = winding_jns();
    ProgramCase pc = small_program();
    pc.records = {1};
    const fs::path file = write_case("small-program", pc.to_json());
    const std::string args = "run " + quote(file) + " --patch " + jns.where + ":78 --data ";
    ASSERT_EQ(refcheck(args + quote(kSmallData) + " --out plain").code, 1);
    ASSERT_EQ(refcheck(args + quote(kSmallData.string() + "/") + " --out slash").code, 1);
    const ojson plain = read_json(path("plain/small-program.json"));
    const ojson slash = read_json(path("slash/small-program.json"));
    EXPECT_NE(plain.at("bisect").at("reproduce").get<std::string>().find(" --data small "), std::string::npos)
        << plain.at("bisect").at("reproduce");
    EXPECT_EQ(slash.at("bisect").at("reproduce"), plain.at("bisect").at("reproduce"));
    EXPECT_EQ(slash.at("bisect").at("reproduce_pasteable"), plain.at("bisect").at("reproduce_pasteable"));
}

// A fault in a family whose inputs run in turn (palettes, here): the original refusing warzone 3
// (initialise_3d_palette_'s `cmp ebx, 3` made 2) stops the case there. The fault was filed under no
// input (""): the family compares nothing after it, and only a compare named the input; the
// drill-down then "narrowed" to the whole case and said the narrowed re-run reproduced it. It is
// filed under the warzone whose work began last, and its reproduce line narrows to it.
TEST_F(BisectTest, AFaultInAFamilyThatRunsEveryInputIsFiledUnderTheInputThatRan) {
    const CodeSite bound = find_instruction(
        "initialise_3d_palette_body", [](const emu::Instruction& in) { return in.text == "cmp ebx, 3"; });
    ASSERT_EQ(bound.bytes.back(), 3) << bound.instruction.text;
    std::vector<std::uint8_t> two = bound.bytes;
    two.back() = 2;
    const std::string patch = bound.where() + ":" + hex_bytes(bound.bytes) + "->" + hex_bytes(two);
    const Result r = refcheck("run " + quote(shipped_case("palette")) + " --data " + quote(kSmallData) +
                              " --patch " + quote(patch) + " --out out");
    ASSERT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("out/palette.json"));
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("kind"), "original_fault") << d.dump(2);
    EXPECT_EQ(d.at("input"), "warzone 3") << d.dump(2);
    const ojson& dd = report.at("bisect");
    EXPECT_EQ(dd.at("input"), "warzone 3");
    EXPECT_TRUE(dd.at("confirmed").get<bool>()) << dd.dump(2);
    EXPECT_NE(dd.at("reproduce").get<std::string>().find(" --only 'warzone 3' "), std::string::npos)
        << dd.at("reproduce");
}

// Shadows: a frame per input; bisect narrows to the input, shows the frame event, says what it
// cannot show, and its reproduce line works.
TEST_F(BisectTest, ShadowFrameNarrowsToItsInput) {
    const ojson shadow = {{"schema", "refcheck-case/1"},
                          {"family", "shadow"},
                          {"selection",
                           {{"records", {{"list", {1, 5}}}},
                            {"views", {{{"yaw", 30}, {"pitch", 55}, {"distance", 4}}}},
                            {"suns", {{4096, -15000, 3000}}},
                            {"states", {0}}}}};
    const fs::path file = write_case("small-shadow", shadow);
    const std::string env =
        " --data " + quote(kSmallData) + " --patch draw_shadow_face_:c3"; // returns at once
    const Result b = refcheck("bisect " + quote(file) + env);
    ASSERT_EQ(b.code, 1) << b.out << b.err;
    EXPECT_NE(b.out.find(", input record 1 view 0 sun 0 state 0): the events differ"), std::string::npos)
        << b.out;
    EXPECT_NE(b.out.find("\n  ! pixels: "), std::string::npos) << b.out;
    EXPECT_NE(b.out.find("note: not available: listing, instruction window"), std::string::npos) << b.out;
    EXPECT_EQ(reproduce(b.out).code, 1);
}

// A divergent run keeps the drill-down in the case report and the HTML page, byte for byte the same
// in two runs.
TEST_F(BisectTest, DivergentRunReportsCarryTheDrillDown) {
    const Jns jns = winding_jns();
    ProgramCase pc = small_program();
    pc.records = {1};
    const fs::path file = write_case("small-program", pc.to_json());
    const std::string args =
        "run " + quote(file) + " --data " + quote(kSmallData) + " --patch " + jns.where + ":78";
    const Result one = refcheck(args + " --out one");
    ASSERT_EQ(one.code, 1) << one.out << one.err;
    EXPECT_NE(one.out.find("first divergence in input record 1 "), std::string::npos) << one.out;
    ASSERT_EQ(refcheck(args + " --out two").code, 1);
    const ojson report = read_json(path("one/small-program.json"));
    const ojson& dd = report.at("bisect");
    EXPECT_TRUE(dd.at("confirmed").get<bool>());
    const std::string input = report.at("first_unexplained").at("input");
    EXPECT_EQ(dd.at("input"), input);
    // The report names files by name; the run's summary prints the line with their paths, and it works.
    EXPECT_EQ(dd.at("reproduce"), "refcheck run small-program.json --only '" + input +
                                      "' --data small --patch " + jns.where + ":78 --out out/bisect");
    const auto at = one.out.find("; reproduce: refcheck ");
    ASSERT_NE(at, std::string::npos) << one.out;
    const auto begin = at + std::string("; reproduce: refcheck ").size();
    const Result again = refcheck(one.out.substr(begin, one.out.find('\n', at) - begin));
    EXPECT_EQ(again.code, 1) << again.out << again.err;
    EXPECT_EQ(identity(read_json(path("out/bisect/small-program.json")).at("first_unexplained")),
              identity(report.at("first_unexplained")));
    EXPECT_FALSE(dd.at("instructions").at("lines").empty());
    EXPECT_FALSE(dd.at("listing").at("lines").empty());
    const std::string html = read_text(path("one/index.html"));
    // The drill-down is open on the page, at the top (issue 15).
    EXPECT_NE(html.find("<details class=bisect open><summary>Drill-down (refcheck bisect)"),
              std::string::npos);
    EXPECT_NE(html.find("<b class=mark>-&gt; "), std::string::npos);
    EXPECT_EQ(tree_without_junit_times(path("one")), tree_without_junit_times(path("two")));
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// A fault of the original: op_secondary's first instruction made a read of address 0. The window
// used to run to the hook of the original's event #0 (the index a fault divergence names), which
// the call reached before op_secondary ran, so it showed neither the fault nor the instructions
// leading to it. It now runs from the original's last event before the fault to the faulting
// instruction, and says so.
TEST_F(BisectTest, AFaultsWindowEndsAtTheFaultingInstruction) {
    const CodeSite entry = find_instruction("op_secondary", [](const emu::Instruction&) { return true; });
    ProgramCase pc = small_program();
    pc.records = {1};
    const fs::path file = write_case("small-program", pc.to_json());
    const Result b = refcheck("bisect " + quote(file) + " --data " + quote(kSmallData) +
                              " --patch op_secondary:a100000000");
    ASSERT_EQ(b.code, 1) << b.out << b.err;
    const std::string eip = hex8(entry.instruction.address);
    EXPECT_NE(b.out.find("to the original's fault (read_unmapped at " + eip + ")"), std::string::npos)
        << b.out;
    const std::vector<std::string> window =
        section(b.out, "note: the original's instructions from the hook of");
    ASSERT_FALSE(window.empty()) << b.out;
    // The last instruction listed is the faulting one; a routine summary line may follow it.
    std::string last;
    for (const auto& line : window)
        if (line.rfind("  0x", 0) == 0) last = line;
    EXPECT_EQ(last.rfind("  " + eip + " <op_secondary>: mov eax, dword ptr [0]", 0), 0u) << last;
}

// A divergent case over hostile program data (a seeded fault in op_primary, the invalid-program
// case whose record 47 ends inside a packet): the listing's parse refused the record and ended bisect
// with that error (exit 2), no window shown. Now the drill-down says why it has no listing and shows
// the rest.
TEST_F(BisectTest, HostileProgramDataLeavesOutOnlyTheListing) {
    const Result b = refcheck("bisect " + quote(shipped_case("program-invalid-end-primary")) +
                              " --patch op_primary:a100000000");
    ASSERT_EQ(b.code, 1) << b.out << b.err;
    EXPECT_NE(b.out.find("note: not available: listing: the reimplementation's validator refuses the record: "
                         "3DOBJS.BIN: record 47: "),
              std::string::npos)
        << b.out;
    EXPECT_NE(b.out.find("note: the original's instructions from "), std::string::npos) << b.out;
}

} // namespace
} // namespace refcheck::cli_test

namespace refcheck::cli_test {
namespace {

// `entry`'s call of its body sent to code that executes ud2 when `test` (bytes comparing with the
// record, setting ZF when it is the one) finds the record, and else jumps to the body.
std::string fault_on_record(const std::string& entry, std::vector<std::uint8_t> code) {
    const Detour s = detour_site(entry);
    code.insert(code.end(), {0x0f, 0x85}); // jne body
    put32(code, s.body - (s.at + static_cast<emu::Address>(code.size()) + 4));
    code.insert(code.end(), {0x0f, 0x0b}); // ud2
    return detour_patches(s, code);
}

// A fault in a record's construction is that record's: construct_3d_object_ faulting on record 5
// was labelled with the input compared next, another record's ("record 1 ..." when 5 came first),
// or with none when 5 was the last ("first divergence in input ;"), and bisect then re-ran the wrong
// input or the whole case.
TEST_F(BisectTest, AFaultInARecordsConstructionIsThatRecordsInput) {
    std::vector<std::uint8_t> test = {0x3d}; // cmp eax, 5 (construct_3d_object_'s record)
    put32(test, 5);
    const std::string patches = fault_on_record("construct_3d_object_", test);
    for (const std::vector<std::uint32_t>& records : {std::vector<std::uint32_t>{1, 5}, {5, 1}}) {
        ProgramCase pc = small_program();
        pc.records = records;
        const fs::path file = write_case("small-program", pc.to_json());
        const Result r =
            refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --out o" + patches);
        ASSERT_EQ(r.code, 1) << r.out << r.err;
        const ojson report = read_json(path("o/small-program.json"));
        EXPECT_EQ(report.at("construct_failures"), ojson::array({5}));
        const ojson& d = report.at("first_unexplained");
        EXPECT_EQ(d.at("kind"), "original_fault") << d.dump(2);
        EXPECT_EQ(d.at("input"), input_name(5, 0, 0, 0)) << d.dump(2);
        EXPECT_EQ(d.at("original").at("fields").at("routine"), "construct_3d_object_") << d.dump(2);
        // Bisect re-ran that input alone and found the same fault.
        EXPECT_EQ(report.at("bisect").at("input"), input_name(5, 0, 0, 0));
        EXPECT_TRUE(report.at("bisect").at("confirmed").get<bool>()) << report.at("bisect").dump(2);
    }
}

// The same fault in a narrowed re-run is the same divergence though its registers differ: record 5's
// instance, drawn after record 1's in the whole case, is at another heap address when the re-run
// constructs record 5 alone, and draw_3d_object_'s fault there holds it in EAX. Bisect called it
// "another event than the whole case" and probed twice.
TEST_F(BisectTest, AFaultIsConfirmedThoughItsRegistersHoldOtherHeapAddresses) {
    std::vector<std::uint8_t> test = {0x81, 0xb8}; // cmp dword [eax + model_id], 5 (the instance's)
    put32(test, profile_offset("instance", "model_id"));
    put32(test, 5);
    ProgramCase pc = small_program();
    pc.records = {1, 5};
    const fs::path file = write_case("small-program", pc.to_json());
    const std::string run =
        "run " + quote(file) + " --data " + quote(kSmallData) + fault_on_record("draw_3d_object_", test);
    const Result whole = refcheck(run + " --out whole");
    ASSERT_EQ(whole.code, 1) << whole.out << whole.err;
    const ojson report = read_json(path("whole/small-program.json"));
    const ojson& d = report.at("first_unexplained");
    ASSERT_EQ(d.at("input"), input_name(5, 0, 0, 0)) << d.dump(2);
    // The seed holds: alone, the fault's registers differ from the whole case's.
    const Result alone = refcheck(run + " --out alone --only '" + input_name(5, 0, 0, 0) + "'");
    ASSERT_EQ(alone.code, 1) << alone.out << alone.err;
    const ojson alone_report = read_json(path("alone/small-program.json"));
    const ojson& a = alone_report.at("first_unexplained");
    ASSERT_NE(a.at("original").at("fields").at("registers"), d.at("original").at("fields").at("registers"));
    EXPECT_EQ(a.at("original").at("fields").at("eip"), d.at("original").at("fields").at("eip"));
    const ojson& b = report.at("bisect");
    EXPECT_TRUE(b.at("confirmed").get<bool>()) << b.dump(2);
    EXPECT_FALSE(b.contains("note")) << b.dump(2);
}

// The listing is centred on the reimplementation's event at the divergence, counted as the harness
// compares them, control-flow events among them: record 9's attach at +0x004a comes after a choose
// and a select, and op_attach reading its slot from the opcode byte draws no attachment there. The
// listing was centred four events later, in the child record 8.
TEST_F(BisectTest, TheListingIsCentredOnTheEventAtTheDivergenceAfterControlFlow) {
    const CodeSite slot = find_instruction(
        "op_attach", [](const emu::Instruction& in) { return in.text == "mov dl, byte ptr [edi + 1]"; });
    ojson c = read_json(shipped_case("coverage-light-overbright"));
    c["selection"]["records"] = {{"list", {9}}};
    const fs::path file = write_case("attach", c);
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --out o --patch " +
                              quote(slot.where() + ":" + hex_bytes(slot.bytes) + "->" +
                                    hex_bytes({slot.bytes[0], slot.bytes[1], 0x00})));
    ASSERT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("o/attach.json"));
    const ojson& d = report.at("first_unexplained");
    ASSERT_EQ(d.at("reimpl").at("kind"), "attached_draw") << d.dump(2);
    ASSERT_EQ(d.at("reimpl").at("fields").at("record"), 9) << d.dump(2);
    const ojson& listing = report.at("bisect").at("listing");
    EXPECT_EQ(listing.at("record"), 9) << listing.dump(2);
    EXPECT_EQ(listing.at("centred_on"), "the reimplementation's event at the divergence");
    std::string marked;
    for (const auto& line : listing.at("lines"))
        if (line.get<std::string>().rfind("-> ", 0) == 0) marked = line.get<std::string>();
    EXPECT_NE(marked.find("attach    slot=0"), std::string::npos) << listing.dump(2);
}

} // namespace
} // namespace refcheck::cli_test
