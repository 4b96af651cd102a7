// refcheck mutate: a mutant is killed at the event its case predicts (the seeded fault of
// seeded_fault_test, found by the enumeration), a mutant no input reaches is reported without
// running, and a mutant that never leaves a loop ends at its instruction budget, not the wall clock.
#include "cli_support.hpp"
#include "code_site.hpp"
#include "detour.hpp"
#include "json_schema.hpp"
#include "refcheck/harness/mutate.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>

namespace refcheck::cli_test {
namespace {

class MutateTest : public CliTest {
protected:
    // Runs `refcheck mutate CASE ARGS` on the small archives; returns mutate.json (schema-checked).
    ojson mutate(const fs::path& file, const std::string& args, int expect_code = 0) {
        const Result r =
            refcheck("mutate " + quote(file) + " --data " + quote(kSmallData) + " --jobs 1 --out m " + args);
        EXPECT_EQ(r.code, expect_code) << r.out << r.err;
        ojson j = read_json(path("m/mutate.json"));
        test::SchemaSet schemas;
        schemas.add_file(fs::path(REFCHECK_CLI_SCHEMAS) / "mutate-report.schema.json");
        const auto errors = schemas.validate(j, "mutate-report.schema.json");
        EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front());
        return j;
    }
};

const ojson* find_mutant(const ojson& report, std::uint32_t address, const std::string& op) {
    for (const auto& m : report.at("mutants"))
        if (std::stoul(m.at("address").get<std::string>(), nullptr, 16) == address && m.at("operator") == op)
            return &m;
    return nullptr;
}

// A kill where the mutant's run skipped inputs the baseline ran stands only when the unmutated
// original on the same inputs is clean: skipping can change what the original does next. The seed:
// an original whose draw_3d_object_ keeps state from call to call (a detour remembers the last
// instance drawn, in a stack slot far below any frame, and draws an instance it has not drawn before
// with its light zeroed). Each record's first view is behind the camera, where no face is drawn and
// the light shows in nothing, so the whole case is equivalent; compose_transform runs only for the
// second view, so its mutants' runs skip the first and draw each instance for the first time where
// the light shows. Every one of them "was killed" at record 1's second view, each by the narrowing:
// the unmutated original diverges there too. On the stand-in itself the same mutants are killed with
// a clean control.
TEST_F(MutateTest, AKillOnInputsTheBaselineRanAroundNeedsACleanControl) {
    const Detour s = detour_site("draw_3d_object_");
    std::vector<std::uint8_t> code = {0x8b, 0x44, 0x24, 0x04, // mov eax, [esp+4]: the instance
                                      0x3b, 0x84, 0x24, 0x00, 0xe0, 0xff, 0xff}; // cmp eax, [esp-0x2000]
    code.insert(code.end(), {0x0f, 0x84});                                       // je body: drawn before
    put32(code, s.body - (s.at + static_cast<emu::Address>(code.size()) + 4));
    code.insert(code.end(), {0x89, 0x84, 0x24, 0x00, 0xe0, 0xff, 0xff, // mov [esp-0x2000], eax
                             0x8b, 0x4c, 0x24, 0x0c,                   // mov ecx, [esp+0xc]: the light
                             0x31, 0xd2, 0x89, 0x11, 0x89, 0x51, 0x04, 0x89, 0x51, 0x08}); // zeroed
    jump_to_body(code, s);
    std::vector<std::uint8_t> call = {0xe8};
    put32(call, s.at - (s.call.instruction.address + 5));
    const auto [image, profile] =
        patched_original(path(""), {{s.at, code}, {s.call.instruction.address, call}});

    ProgramCase pc = small_program();
    pc.lights.resize(1);
    pc.states = {0};
    ojson c = pc.to_json();
    c["selection"]["views"] = ojson::array({{{"probe", {0, 0, -100000}}}, c["selection"]["views"][0]});
    const fs::path file = write_case("behind-then-in-front", c);
    const std::string args =
        quote(file) + " --data " + quote(kSmallData) + " --jobs 1 --routines '^compose_transform$'";
    const std::string detoured = " --image " + quote(image) + " --profile " + quote(profile);
    ASSERT_EQ(refcheck("run " + quote(file) + " --data " + quote(kSmallData) + detoured + " --out run").code,
              0)
        << "the stateful original must be equivalent on the whole case";

    for (const bool stateful : {true, false}) {
        const Result r = refcheck("mutate " + args + (stateful ? detoured : std::string()) + " --out m");
        ASSERT_EQ(r.code, 0) << r.out << r.err;
        const ojson j = read_json(path("m/mutate.json"));
        test::SchemaSet schemas;
        schemas.add_file(fs::path(REFCHECK_CLI_SCHEMAS) / "mutate-report.schema.json");
        const auto errors = schemas.validate(j, "mutate-report.schema.json");
        EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front());
        std::size_t killed = 0, controlled = 0, undecided = 0;
        for (const ojson& m : j.at("mutants")) {
            if (m.at("status") == "killed") {
                ++killed;
                controlled += m.at("killed_by").at("control") == "clean";
            }
            if (m.at("status") != "undecided") continue;
            ++undecided;
            const ojson& u = m.at("undecided_by");
            EXPECT_EQ(u.at("how"), "control") << m.dump();
            EXPECT_EQ(u.at("input"), "record 1 view 1 light 0 state 0") << m.dump();
            EXPECT_NE(u.at("detail").get<std::string>().find("not clean either"), std::string::npos)
                << m.dump();
        }
        if (stateful) {
            EXPECT_EQ(killed, 0u) << "a kill the narrowing made";
            EXPECT_GT(undecided, 10u);
            EXPECT_EQ(j.at("totals").at("undecided"), undecided);
        } else {
            EXPECT_GT(controlled, 10u) << "the control must let the stand-in's own kills stand";
            EXPECT_EQ(undecided, 0u);
        }
    }
}

// A mutant's run that ends in an error is a kill only when the unmutated original, run on the same
// inputs, is clean (harness::unmutated_failure, the control mutate runs for every such kill). The
// audit's seed: the data root's 3DDATA renamed once the baseline was done; every later mutant's run
// failed "the data root is invalid ... the original agrees", each counted a kill (the score went
// from 14% to 53%, exit 0), and an argued-equivalent entry was called stale. Here the control runs on
// a data root before and after the same change: clean, then the very error that was counted.
TEST_F(MutateTest, AKillByAnErrorNeedsACleanControlOnTheUnmutatedOriginal) {
    fs::copy(kSmallData, path("data"), fs::copy_options::recursive);
    const harness::Case c = harness::load_case(shipped_case("construct"));
    const harness::Environment env{kImage, kProfile, path("data"), {}, {}};
    EXPECT_EQ(harness::unmutated_failure(c, env, {}), std::nullopt);
    fs::rename(path("data/3DDATA"), path("data/3DDATA.gone"));
    const auto failure = harness::unmutated_failure(c, env, {});
    ASSERT_TRUE(failure);
    EXPECT_TRUE(failure->starts_with("error: ")) << *failure;
    EXPECT_NE(failure->find("3DOBJS.BIN"), std::string::npos) << *failure;
}

TEST_F(MutateTest, NegatedWindingBranchIsKilledAtTheFirstSecondaryFaceOfTheFirstInput) {
    const CodeSite branch = find_instruction(
        "op_secondary", [](const emu::Instruction& in) { return in.text.rfind("jns ", 0) == 0; });
    const ProgramCase pc = small_program();
    const fs::path file = write_case("small-program", pc.to_json());
    // A score above --min-score passes it (the next test: no score does not).
    const ojson j = mutate(file, "--routines '(^|:)op_secondary$' --operators negate_jcc --min-score 0.01");
    const ojson* m = find_mutant(j, branch.instruction.address, "negate_jcc");
    ASSERT_NE(m, nullptr) << "the enumeration lacks op_secondary's jns";
    EXPECT_EQ(m->at("patch"), emu::hex(branch.instruction.address) + ":79" +
                                  hex_bytes(branch.bytes).substr(2) + "->78" +
                                  hex_bytes(branch.bytes).substr(2));
    ASSERT_EQ(m->at("status"), "killed") << m->dump();
    const ojson& k = m->at("killed_by");
    EXPECT_EQ(k.at("case"), "small-program");
    EXPECT_EQ(k.at("how"), "divergence");
    const std::uint32_t record = pc.records.front();
    EXPECT_EQ(k.at("input"), input_name(record, 0, 0, pc.states.front()));
    // As in seeded_fault_test: the first divergence is a face drawn by one side only, at or before
    // the reimplementation's first secondary face of the first input, everything before aligned.
    const ojson& e = k.at("event");
    ASSERT_TRUE(e.at("divergence") == "missing_in_reimpl" || e.at("divergence") == "extra_in_reimpl")
        << e.dump();
    EXPECT_EQ(e.at(e.at("divergence") == "missing_in_reimpl" ? "original" : "reimpl"), "face_draw");
    const auto stream = reimpl_stream(record, pc.views.front(), pc.lights.front(), pc.states.front());
    std::optional<std::size_t> first_secondary;
    for (std::size_t i = 0; i < stream.size() && !first_secondary; ++i)
        if (const auto* f = std::get_if<events::FaceDraw>(&stream[i]); f && f->opcode == 1)
            first_secondary = i;
    ASSERT_TRUE(first_secondary);
    EXPECT_EQ(e.at("index"), e.at("reimpl_index"));
    EXPECT_LE(e.at("reimpl_index").get<std::size_t>(), *first_secondary);
    EXPECT_GE(j.at("totals").at("killed").get<int>(), 1);
}

// A program case with isolate_records restores the set-up's snapshot before every record. A served
// mutant is written after that snapshot (in the child forked at the first input), and the restore
// put the unmutated code back: from the second record on the child ran the original, so a mutant
// only a later record reaches survived ("no compared event differs"). Record 4 never reaches
// op_secondary, record 5 does; the mutant must be killed at record 5, isolated or not.
TEST_F(MutateTest, AServedMutantSurvivesNoRestoreOfTheCasesSnapshot) {
    const CodeSite branch = find_instruction(
        "op_secondary", [](const emu::Instruction& in) { return in.text.rfind("jns ", 0) == 0; });
    ProgramCase pc = small_program();
    pc.records = {4, 5};
    for (const bool isolated : {false, true}) {
        ojson c = pc.to_json();
        c["selection"]["isolate_records"] = isolated;
        const fs::path file = write_case("two-records", c);
        const ojson j = mutate(file, "--routines '(^|:)op_secondary$' --operators negate_jcc");
        const ojson* m = find_mutant(j, branch.instruction.address, "negate_jcc");
        ASSERT_NE(m, nullptr) << "the enumeration lacks op_secondary's jns";
        ASSERT_EQ(m->at("status"), "killed") << (isolated ? "isolated: " : "carried: ") << m->dump();
        EXPECT_TRUE(m->at("killed_by").at("input").get<std::string>().starts_with("record 5 ")) << m->dump();
    }
}

// A mutant of code that the set-up runs and a later input runs again: the program family builds
// record 4's instance before the first input and record 5's between inputs, so construct's store of
// the instance's model id is reached before the first input (run from a fresh boot) and again at
// record 5. The fresh boot ran the first input only (record 4 draws the same without it), so the
// mutant survived, its reason saying "reached only before the first input"; it now runs on the later
// inputs that reach it too, and record 5 kills it.
TEST_F(MutateTest, AMutantTheSetUpReachesAlsoRunsOnTheLaterInputsThatReachIt) {
    const CodeSite store = find_instruction(
        "construct", [](const emu::Instruction& in) { return in.text == "mov dword ptr [eax], edx"; });
    ProgramCase pc = small_program();
    pc.records = {4, 5};
    const fs::path file = write_case("two-records", pc.to_json());
    const ojson j = mutate(file, "--routines '(^|:)construct$' --operators store_nop");
    const ojson* m = find_mutant(j, store.instruction.address, "store_nop");
    ASSERT_NE(m, nullptr) << "the enumeration lacks construct's store of the model id";
    ASSERT_EQ(m->at("status"), "killed") << m->dump();
    EXPECT_TRUE(m->at("killed_by").at("input").get<std::string>().starts_with("record 5 ")) << m->dump();
    // A mutant the set-up reaches, killed at the case's first input, ran that input only: the count
    // was the plan's (the first input and the later ones reaching it), as if the kill had not
    // stopped the case.
    bool killed_first = false;
    for (const ojson& row : j.at("mutants")) {
        if (row.at("status") != "killed" ||
            row.at("killed_by").value("input", "") != "record 4 view 0 light 0 state 0")
            continue;
        killed_first = true;
        EXPECT_EQ(row.at("inputs_run"), 1) << row.dump();
    }
    EXPECT_TRUE(killed_first) << "no store of construct is killed at the first input";
    for (const ojson& row : j.at("mutants")) {
        // A survivor said to be reached before the first input only is reached by no later input.
        if (row.value("reason", std::string()).find("before the first input of two-records only") !=
            std::string::npos) {
            EXPECT_EQ(row.at("reaching_inputs"), 0) << row.dump();
        }
    }
}

// A survivor's reason gives each set of cases its own inputs. Construct's store at +0x38 is reached
// before the first input of a two-record program case (run from a fresh boot there, on its first
// input and the 2 later inputs that reach it again) and on every input of a construct case (served
// there: 3 records at 2 placements). The reason gave the two phases' totals under the served case's
// name: "run on all 8 inputs of construct-small", which has 6.
TEST_F(MutateTest, ASurvivorsReasonGivesEachSetOfCasesItsOwnInputs) {
    const CodeSite store = find_instruction(
        "construct", [](const emu::Instruction& in) { return in.text == "mov dword ptr [esi + 0x38], eax"; });
    ProgramCase pc = small_program();
    pc.records = {4, 5};
    const fs::path program = write_case("two-records", pc.to_json());
    const fs::path construct =
        write_case("construct-small", {{"schema", "refcheck-case/1"},
                                       {"family", "construct"},
                                       {"description", "cli_tests: three records"},
                                       {"selection", {{"records", {{"list", {4, 5, 9}}}}}},
                                       {"compares", {"instance"}}});
    const ojson j = mutate(program, quote(construct) + " --routines '(^|:)construct$' --operators store_nop");
    const ojson* m = find_mutant(j, store.instruction.address, "store_nop");
    ASSERT_NE(m, nullptr) << "the enumeration lacks construct's store at +0x38";
    ASSERT_EQ(m->at("status"), "survived") << m->dump();
    const std::string reason = m->at("reason").get<std::string>();
    EXPECT_NE(
        reason.find("run on all 6 inputs of construct-small that reach it and from a fresh boot on 3 inputs "
                    "of two-records"),
        std::string::npos)
        << reason;
    EXPECT_NE(reason.find("then every one of the 2 later inputs"), std::string::npos) << reason;
    // The row's totals still add both phases.
    EXPECT_EQ(m->at("inputs_run"), 9) << m->dump();
    EXPECT_EQ(m->at("reaching_inputs"), 8) << m->dump();
}

// A run that scores nothing (no mutant selected) has no score, not 100%, and does not meet
// --min-score: before, its score was 1 and `--min-score 0.99` exited 0.
TEST_F(MutateTest, ARunThatScoresNothingHasNoScoreAndFailsMinScore) {
    const fs::path file = write_case("small-program", small_program().to_json());
    const ojson j = mutate(file, "--routines '^no_such_routine$' --min-score 0.5", 1);
    EXPECT_EQ(j.at("totals").at("mutants"), 0);
    EXPECT_TRUE(j.at("totals").at("score").is_null()) << j.at("totals").dump();
    const std::string text = read_text(path("m/mutate.txt"));
    EXPECT_NE(text.find("score    n/a"), std::string::npos) << text;
    // Without --min-score there is nothing to fail: the report says what happened.
    const ojson plain = mutate(file, "--routines '^no_such_routine$'", 0);
    EXPECT_TRUE(plain.at("totals").at("score").is_null());
}

TEST_F(MutateTest, MutantsNoInputReachesAreNotCoveredAndNotRun) {
    // A program case never calls the mobile map's routines; op_secondary it does.
    const fs::path file = write_case("small-program", small_program().to_json());
    const ojson j = mutate(file, "--routines '(^|:)(sort_queue|op_secondary)$' --operators negate_jcc");
    std::size_t sort_mutants = 0, covered = 0;
    std::string sort_routine;
    for (const auto& m : j.at("mutants")) {
        const std::string routine = m.at("routine").get<std::string>();
        if (routine == "sort_queue" || routine.ends_with(":sort_queue")) {
            sort_routine = routine;
            ++sort_mutants;
            EXPECT_EQ(m.at("status"), "not_covered") << m.at("id");
            EXPECT_EQ(m.at("covered"), false);
            EXPECT_EQ(m.at("cases_run"), 0);
            EXPECT_FALSE(m.contains("killed_by"));
            // Every survivor says why: this one because nothing reaches it.
            EXPECT_EQ(m.at("reason").get<std::string>().rfind("not covered: ", 0), 0u) << m.dump();
        } else {
            covered += m.at("covered").get<bool>();
        }
        const std::string status = m.at("status").get<std::string>();
        EXPECT_EQ(m.contains("reason"), status == "survived" || status == "not_covered") << m.dump();
    }
    ASSERT_GT(sort_mutants, 0u) << "sort_queue has no conditional branch to negate";
    EXPECT_GT(covered, 0u);
    // Only the covered mutants ran.
    EXPECT_EQ(j.at("timing").at("mutants_run"), covered);
    EXPECT_EQ(j.at("totals").at("not_covered"), sort_mutants);
    EXPECT_EQ(j.at("routines").at(sort_routine).at("not_covered"), sort_mutants);
}

// The registry of argued equivalents: an entry turns its covered survivors into "equivalent"; one
// with an "offset" covers only the mutant at that offset of its routine; an entry whose mutant is
// killed, or that matches none of the image's mutants (a wrong offset included), is reported stale
// and changes no status.
TEST_F(MutateTest, ArguedEquivalentsCoverTheirSitesAndStaleEntriesAreReported) {
    const fs::path file = write_case("small-palette", small_palette());
    const std::string args = "--routines '^initialise_3d_palette_body$' --operators store_nop";
    const ojson plain = mutate(file, args);
    const ojson *killed = nullptr, *survivor = nullptr;
    for (const auto& m : plain.at("mutants")) {
        if (!killed && m.at("status") == "killed") killed = &m;
        if (!survivor && m.at("status") == "survived") survivor = &m;
    }
    ASSERT_TRUE(killed && survivor) << plain.at("totals").dump();
    const auto entry = [](const ojson& m, const std::string& argument) {
        return ojson{{"routine", m.at("routine")},
                     {"operator", m.at("operator")},
                     {"instruction", m.at("instruction")},
                     {"argument", argument}};
    };
    ojson scoped = entry(*survivor, "argued for this site only");
    char offset[16];
    std::snprintf(offset, sizeof offset, "0x%x", survivor->at("offset").get<unsigned>());
    scoped["offset"] = offset;
    ojson wrong_site = entry(*survivor, "argued for a site that has no such instruction");
    wrong_site["offset"] = "0xfffff";
    const ojson registry = {
        {"image", kImage.filename().string()},
        {"sha256", sha256_of(kImage)},
        {"mutants", {scoped, wrong_site, entry(*killed, "wrongly argued: a case kills it")}}};
    std::ofstream(path("equivalent.json")) << registry.dump(2) << "\n";
    const ojson j = mutate(file, args + " --equivalents " + quote(path("equivalent.json")));
    EXPECT_TRUE(j.at("equivalents").at("applied").get<bool>());
    std::size_t equivalent = 0;
    for (const auto& m : j.at("mutants")) {
        if (m.at("id") == killed->at("id")) {
            EXPECT_EQ(m.at("status"), "killed") << m.dump();
        }
        if (m.at("status") != "equivalent") continue;
        ++equivalent;
        EXPECT_EQ(m.at("id"), survivor->at("id")) << "only the scoped site is argued";
        EXPECT_EQ(m.at("argument"), "argued for this site only");
        EXPECT_GT(m.at("inputs_run").get<int>(), 0) << "its argument was put to the test";
        EXPECT_FALSE(m.contains("reason"));
        EXPECT_FALSE(m.contains("argument_untested"));
    }
    EXPECT_EQ(equivalent, 1u);
    EXPECT_EQ(j.at("totals").at("equivalent"), 1);
    EXPECT_EQ(j.at("totals").at("argued_untested"), 0);
    // The plain run had the shipped registry's equivalents; this one has only the test's.
    const auto survivors_and_equivalents = [](const ojson& t) {
        return t.at("survived_covered").get<int>() + t.at("equivalent").get<int>();
    };
    EXPECT_EQ(survivors_and_equivalents(j.at("totals")), survivors_and_equivalents(plain.at("totals")));
    const ojson& stale = j.at("equivalents").at("stale");
    ASSERT_EQ(stale.size(), 2u) << stale.dump(1);
    EXPECT_EQ(stale.at(0).at("reason"), "gone");
    EXPECT_EQ(stale.at(0).at("offset"), "0xfffff");
    EXPECT_EQ(stale.at(1).at("reason"), "killed");
    EXPECT_EQ(stale.at(1).at("instruction"), killed->at("instruction"));
    EXPECT_FALSE(stale.at(1).contains("offset"));
}

// An argued mutant no input reaches was never run: its argument was put to no test, and it excused
// the mutant anyway (status "equivalent", out of the score's denominator), so a registry could lift
// the score by arguing away what the cases never cover. Now it stays not covered, counts against the
// score, and carries its argument marked untested.
TEST_F(MutateTest, AnArguedMutantThatNeverRanExcusesNothing) {
    const fs::path file = write_case("small-program", small_program().to_json());
    const std::string args = "--routines '(^|:)sort_queue$' --operators negate_jcc";
    const ojson plain = mutate(file, args);
    const ojson* uncovered = nullptr;
    for (const auto& m : plain.at("mutants"))
        if (!uncovered && m.at("status") == "not_covered") uncovered = &m;
    ASSERT_TRUE(uncovered) << plain.at("totals").dump();
    char offset[16];
    std::snprintf(offset, sizeof offset, "0x%x", uncovered->at("offset").get<unsigned>());
    const ojson registry = {{"image", kImage.filename().string()},
                            {"sha256", sha256_of(kImage)},
                            {"mutants",
                             {{{"routine", uncovered->at("routine")},
                               {"operator", uncovered->at("operator")},
                               {"instruction", uncovered->at("instruction")},
                               {"offset", offset},
                               {"argument", "argued, but no case reaches it"}}}}};
    std::ofstream(path("equivalent.json")) << registry.dump(2) << "\n";
    const ojson j = mutate(file, args + " --equivalents " + quote(path("equivalent.json")));
    const ojson* argued = find_mutant(j, std::stoul(uncovered->at("address").get<std::string>(), nullptr, 16),
                                      uncovered->at("operator"));
    ASSERT_TRUE(argued);
    EXPECT_EQ(argued->at("status"), "not_covered") << argued->dump(1);
    EXPECT_EQ(argued->at("argument"), "argued, but no case reaches it");
    EXPECT_TRUE(argued->at("argument_untested").get<bool>());
    EXPECT_TRUE(argued->contains("reason")) << "a survivor says why it survived";
    EXPECT_EQ(j.at("totals").at("equivalent"), 0);
    EXPECT_EQ(j.at("totals").at("argued_untested"), 1);
    EXPECT_EQ(j.at("totals").at("not_covered"), plain.at("totals").at("not_covered"));
    EXPECT_EQ(j.at("totals").at("score"), plain.at("totals").at("score"));
    EXPECT_TRUE(j.at("equivalents").at("stale").empty()) << "the entry is used, not stale";
    EXPECT_NE(read_text(path("m/mutate.txt"))
                  .find("0 equivalent; 1 more argued but never run (no input reaches them)"),
              std::string::npos);
}

// A case whose state carries from input to input plays every input up to the last it runs, and
// compares them all: its cost is that prefix. Its mutants ran on the first 32 reaching inputs, so
// coverage-mobiles-capacity (420 steps, 0.3 s in all), whose queues first fill at step 375, let
// the queue's capacity mutants live. It now plays as much of the case as the instructions allow
// (here all of it); --inputs-per-mutant, when given, still bounds the prefix.
TEST_F(MutateTest, AStateCarryingCasePlaysAsMuchAsItsInstructionsAllow) {
    const CodeSite capacity = find_instruction(
        "build_mobile_queue_body", [](const emu::Instruction& in) { return in.text.ends_with(", 0xff"); });
    const fs::path file = kCasesDir / "coverage-mobiles-capacity.json";
    const std::string args = "--routines 'build_mobile_queue_body$' --operators imm_minus_one";
    const ojson whole = mutate(file, args);
    ASSERT_EQ(whole.at("cases").size(), 1u);
    EXPECT_FALSE(whole.at("cases").at(0).at("skippable").get<bool>());
    EXPECT_EQ(whole.at("cases").at(0).at("inputs_per_mutant"), 0) << "the whole case fits";
    const ojson* m = find_mutant(whole, capacity.instruction.address, "imm_minus_one");
    ASSERT_NE(m, nullptr) << "the enumeration lacks the queue's capacity check";
    ASSERT_EQ(m->at("status"), "killed") << m->dump();
    EXPECT_GT(m->at("inputs_run").get<std::uint64_t>(), 32u) << m->dump();

    const ojson bounded = mutate(file, args + " --inputs-per-mutant 8");
    EXPECT_EQ(bounded.at("cases").at(0).at("inputs_per_mutant"), 8);
    const ojson* b = find_mutant(bounded, capacity.instruction.address, "imm_minus_one");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->at("status"), "survived") << b->dump();
    EXPECT_LE(b->at("inputs_run").get<std::uint64_t>(), 8u) << b->dump();
}

// A run restricted by --routines, --operators or --sample leaves out some of the registry's mutants:
// their entries are outside the run, not gone. They were reported stale ("gone"), so every
// restricted run of the shipped registry listed hundreds of stale entries, and a real one was lost
// among them.
TEST_F(MutateTest, ARegistryEntryOutsideARestrictedRunIsNotStale) {
    const fs::path file = write_case("small-palette", small_palette());
    const ojson all = mutate(file, "--routines '^initialise_3d_palette_body$' --operators store_nop");
    const ojson* survivor = nullptr;
    for (const auto& m : all.at("mutants"))
        if (!survivor && m.at("status") == "survived") survivor = &m;
    ASSERT_TRUE(survivor) << all.at("totals").dump();
    const ojson registry = {{"image", kImage.filename().string()},
                            {"sha256", sha256_of(kImage)},
                            {"mutants",
                             {{{"routine", survivor->at("routine")},
                               {"operator", survivor->at("operator")},
                               {"instruction", survivor->at("instruction")},
                               {"argument", "argued"}},
                              {{"routine", survivor->at("routine")},
                               {"operator", survivor->at("operator")},
                               {"instruction", "mov dword ptr [0x1], 0x2"},
                               {"argument", "no mutant of the image has this instruction"}}}}};
    std::ofstream(path("equivalent.json")) << registry.dump(2) << "\n";
    // Another operator only: the first entry's mutant is outside the run; the second is gone.
    const ojson j =
        mutate(file, "--routines '^initialise_3d_palette_body$' --operators imm_plus_one --equivalents " +
                         quote(path("equivalent.json")));
    const ojson& stale = j.at("equivalents").at("stale");
    ASSERT_EQ(stale.size(), 1u) << stale.dump(1);
    EXPECT_EQ(stale.at(0).at("reason"), "gone");
    EXPECT_EQ(stale.at(0).at("instruction"), "mov dword ptr [0x1], 0x2");
}

// transform_grid's outer loop keeps its counter in a stack slot: loaded, incremented, stored back,
// loaded again for the back-edge's compare. With that store made NOPs the counter never advances
// and the loop never exits: the mutant must end at its per-call instruction budget (a wall-clock
// stop would be a "fault" of kind wall_limit, after 20 s).
TEST_F(MutateTest, ALoopThatNeverExitsEndsAtItsInstructionBudget) {
    const emu::Instruction store = loop_counter_store("transform_grid");
    const fs::path file = write_case("small-program", small_program().to_json());
    const ojson j = mutate(file, "--routines '(^|:)transform_grid$' --operators store_nop");
    const ojson* m = find_mutant(j, store.address, "store_nop");
    ASSERT_NE(m, nullptr) << store.text;
    ASSERT_EQ(m->at("status"), "killed") << m->dump();
    EXPECT_EQ(m->at("killed_by").at("how"), "budget") << m->dump();
    EXPECT_NE(m->at("killed_by").at("detail").get<std::string>().find("budget_exceeded"), std::string::npos);
    EXPECT_EQ(m->at("killed_by").at("event").at("original"), "fault");
}

// A baseline case that never finishes (a hang outside the guest: REFCHECK_TEST_WORKER_CRASH=CASE:hang
// pauses for ever) is stopped at --case-timeout, as in refcheck run: the case is unusable, named with
// the limit, and the mutants are run on the other case. Before, mutate's workers had no limit and the
// whole run waited for ever.
TEST_F(MutateTest, ABaselineCaseThatHangsIsStoppedAtTheCaseTimeoutAndTheOthersScore) {
    const CodeSite branch = find_instruction(
        "op_secondary", [](const emu::Instruction& in) { return in.text.rfind("jns ", 0) == 0; });
    const fs::path program = write_case("small-program", small_program().to_json());
    const fs::path palette = write_case("small-palette", small_palette());
    const Result r =
        refcheck("mutate " + quote(program) + " " + quote(palette) + " --data " + quote(kSmallData) +
                     " --jobs 2 --out m --case-timeout 10 --routines '(^|:)op_secondary$' "
                     "--operators negate_jcc",
                 "REFCHECK_TEST_WORKER_CRASH=small-palette:hang");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const ojson j = read_json(path("m/mutate.json"));
    std::optional<ojson> hung;
    for (const ojson& c : j.at("cases"))
        if (c.at("case") == "small-palette") hung = c;
    ASSERT_TRUE(hung) << j.at("cases").dump();
    const std::string note = hung->value("note", std::string());
    EXPECT_NE(note.find("not equivalent on the unmutated image (error: the worker was stopped (SIGKILL) at "
                        "its wall-clock limit of 10 s per case"),
              std::string::npos)
        << note;
    const ojson* m = find_mutant(j, branch.instruction.address, "negate_jcc");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->at("status"), "killed") << m->dump();
    EXPECT_EQ(m->at("killed_by").at("case"), "small-program") << m->dump();
}

// A mutant run from a fresh boot (reached only before the case's first input) that never finishes
// is stopped at --case-timeout; one whose worker crashes dies there. Neither found a difference:
// both are undecided (they were killed, by "timeout" and "crash", and raised the score), and stay in
// the score's denominator. The first run finds such a mutant (one that survived its
// fresh-boot run, so its first input began); the others make its worker hang or crash there.
TEST_F(MutateTest, AMutantWhoseWorkerHangsOrCrashesIsUndecidedNotKilled) {
    const fs::path program = write_case("small-program", small_program().to_json());
    const std::string args =
        quote(program) + " --data " + quote(kSmallData) + " --jobs 2 --routines 'initialise_3d_objects_body'";
    const Result first = refcheck("mutate " + args + " --out m");
    ASSERT_EQ(first.code, 0) << first.out << first.err;
    std::string id;
    const ojson j = read_json(path("m/mutate.json"));
    for (const ojson& m : j.at("mutants"))
        if (m.at("status") == "survived" &&
            m.value("reason", std::string()).find("run from a fresh boot") != std::string::npos) {
            id = m.at("id").get<std::string>();
            break;
        }
    ASSERT_FALSE(id.empty()) << "no mutant ran from a fresh boot";
    // The hung mutant always reaches the limit, whatever the machine's speed; the baseline and the
    // other mutants need a fraction of it, even under the sanitizers beside other work.
    const Result hung = refcheck("mutate " + args + " --case-timeout 20 --out hung",
                                 quote("REFCHECK_TEST_WORKER_CRASH=" + id + ":hang"));
    ASSERT_EQ(hung.code, 0) << hung.out << hung.err;
    auto row_of = [&](const std::string& out) {
        std::optional<ojson> row;
        const ojson report = read_json(path(out + "/mutate.json"));
        for (const ojson& m : report.at("mutants"))
            if (m.at("id") == id) row = m;
        EXPECT_EQ(report.at("totals").at("undecided"), 1) << out;
        EXPECT_EQ(report.at("totals").at("killed"), j.at("totals").at("killed")) << out;
        // A survivor of the first run, undecided here: no kill, so the score is the first run's (a
        // kill by crash or timeout raised it).
        EXPECT_DOUBLE_EQ(report.at("totals").at("score").get<double>(),
                         j.at("totals").at("score").get<double>())
            << out;
        return row.value_or(ojson());
    };
    const ojson hung_row = row_of("hung");
    ASSERT_EQ(hung_row.value("status", ""), "undecided") << hung_row.dump();
    EXPECT_FALSE(hung_row.contains("killed_by"));
    EXPECT_EQ(hung_row.at("undecided_by").at("how"), "timeout") << hung_row.dump();
    EXPECT_NE(
        hung_row.at("undecided_by").at("detail").get<std::string>().find("wall-clock limit of 20 s per case"),
        std::string::npos)
        << hung_row.dump();

    const Result crashed =
        refcheck("mutate " + args + " --out crashed", quote("REFCHECK_TEST_WORKER_CRASH=" + id + ":segv"));
    ASSERT_EQ(crashed.code, 0) << crashed.out << crashed.err;
    const ojson crashed_row = row_of("crashed");
    ASSERT_EQ(crashed_row.value("status", ""), "undecided") << crashed_row.dump();
    EXPECT_EQ(crashed_row.at("undecided_by").at("how"), "crash") << crashed_row.dump();
    EXPECT_NE(crashed_row.at("undecided_by").at("detail").get<std::string>().find("SIGSEGV"),
              std::string::npos)
        << crashed_row.dump();
    EXPECT_NE(read_text(path("crashed/mutate.txt")).find("1 undecided"), std::string::npos);
}

// The mutants are of the first case's image; a case that ran another (by the SHA-256 its own report
// names, not the file hashed again afterwards) is unusable and says so.
TEST_F(MutateTest, ACaseThatRanAnotherImageIsNotUsed) {
    const fs::path program = write_case("small-program", small_program().to_json());
    ojson retail = small_palette();
    retail["image"] = "retail";
    retail["profile"] = "retail";
    const fs::path palette = write_case("retail-palette", retail);
    const Result r =
        refcheck("mutate " + quote(program) + " " + quote(palette) + " --data " + quote(kSmallData) +
                 " --jobs 2 --out m --routines '(^|:)op_secondary$' --operators negate_jcc");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    std::map<std::string, ojson> rows;
    const ojson j = read_json(path("m/mutate.json"));
    for (const ojson& c : j.at("cases")) rows[c.at("case").get<std::string>()] = c;
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows.at("retail-palette").value("note", std::string()), "runs on another image");
    EXPECT_EQ(rows.at("retail-palette").at("usable"), false);
    EXPECT_EQ(rows.at("small-program").at("usable"), true);
    EXPECT_FALSE(rows.at("small-program").contains("note"));
}

} // namespace
} // namespace refcheck::cli_test
