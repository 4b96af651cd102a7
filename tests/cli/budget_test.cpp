// Every call of the original runs under an instruction budget on the default path (the case's
// "limits"), enforced by the block hook coverage already uses: an original that loops ends at its
// budget as a fault, the first overrun stops the case, and the run goes on. Nothing here depends on
// the wall clock: the looping call would reach the wall-clock backstop only after two minutes.
#include "cli_support.hpp"
#include "code_site.hpp"
#include "json_schema.hpp"

namespace refcheck::cli_test {
namespace {

class BudgetTest : public CliTest {
protected:
    ojson report(const std::string& file) {
        ojson j = read_json(path(file));
        test::SchemaSet schemas;
        schemas.add_file(fs::path(REFCHECK_CLI_SCHEMAS) / "case-report.schema.json");
        const auto errors = schemas.validate(j, "case-report.schema.json");
        EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front());
        return j;
    }
    static std::size_t budget_faults(const ojson& r) {
        std::size_t n = 0;
        for (const auto& f : r.at("faults")) n += f.value("kind", std::string()) == "budget_exceeded";
        return n;
    }
};

TEST_F(BudgetTest, AnOriginalThatLoopsEndsAtItsBudgetAndTheCaseStops) {
    // transform_grid's loop counter store made NOPs: the loop never ends.
    const emu::Instruction store = loop_counter_store("transform_grid");
    std::string nops;
    for (unsigned i = 0; i < store.size; ++i) nops += "90";
    ojson c = small_program().to_json();
    c["limits"] = {{"instructions_per_call", 20'000'000}};
    const fs::path file = write_case("looping", c);
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) +
                              " --jobs 1 --out looped --patch " + emu::hex(store.address) + ":" + nops);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson j = report("looped/looping.json");
    EXPECT_EQ(j.at("status"), "divergent");
    EXPECT_EQ(j.at("limits").at("instructions_per_call"), 20'000'000);
    EXPECT_EQ(j.at("limits").at("stops_at_first_overrun"), true);
    // One overrun, then the case stopped at its next input: no second call ran over.
    EXPECT_EQ(budget_faults(j), 1u) << j.at("faults").dump();
    EXPECT_NE(j.value("stopped", std::string()).find("instruction budget"), std::string::npos) << j.dump();
    const ojson& first = j.at("first_unexplained").at("original");
    EXPECT_EQ(first.at("kind"), "fault");
    EXPECT_EQ(first.at("fields").at("fault"), "budget_exceeded");
}

TEST_F(BudgetTest, TheCaseTotalBoundsEveryCallAfterIt) {
    // A case total of one instruction: the first call (the boot) is given what is left, one, and
    // overruns; the case stops there.
    ojson c = small_program().to_json();
    c["limits"] = {{"instructions_per_case", 1}};
    const fs::path file = write_case("tiny", c);
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --jobs 1 --out tiny");
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson j = report("tiny/tiny.json");
    EXPECT_EQ(j.at("status"), "divergent");
    EXPECT_EQ(budget_faults(j), 1u) << j.at("faults").dump();
    EXPECT_EQ(j.at("first_unexplained").at("input"), "boot");
}

TEST_F(BudgetTest, AnOnlyNameTheStoppedCaseNeverReachedIsSaidToBeUnknown) {
    // The boot overruns, so no input is reached: --only's name cannot be checked, and the report
    // says so instead of passing over a name that may be misspelt.
    ojson c = small_program().to_json();
    c["limits"] = {{"instructions_per_case", 1}};
    const fs::path file = write_case("tiny", c);
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) +
                              " --jobs 1 --out tiny --only no-such-record");
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson j = report("tiny/tiny.json");
    EXPECT_EQ(j.at("status"), "divergent");
    const std::string stopped = j.value("stopped", std::string());
    EXPECT_NE(stopped.find("--only \"no-such-record\" names no input the case reached"), std::string::npos)
        << stopped;
    // show prints why the case ended early, with the rest of the report.
    const Result show = refcheck("show tiny/tiny.json");
    EXPECT_EQ(show.code, 1) << show.out << show.err;
    EXPECT_NE(show.out.find("stopped: " + stopped + "\n"), std::string::npos) << show.out;
}

TEST_F(BudgetTest, ACallThatRecordsMoreEventsThanItsLimitStopsTheCase) {
    // Nothing is patched: the small program case's records draw more than 3 faces per call, so the
    // first call past the limit is stopped and the case ends there, divergent.
    ojson c = small_program().to_json();
    c["limits"] = {{"events_per_call", 3}};
    const fs::path file = write_case("chatty", c);
    const Result r =
        refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --jobs 1 --out chatty");
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const ojson j = report("chatty/chatty.json");
    EXPECT_EQ(j.at("status"), "divergent");
    EXPECT_EQ(j.at("limits").at("events_per_call"), 3);
    EXPECT_EQ(budget_faults(j), 1u) << j.at("faults").dump();
    EXPECT_NE(j.at("faults").at(0).dump().find("events_per_call"), std::string::npos)
        << j.at("faults").dump();
    const ojson& first = j.at("first_unexplained").at("original");
    EXPECT_EQ(first.at("kind"), "fault");
    EXPECT_EQ(first.at("fields").at("fault"), "budget_exceeded");
}

TEST_F(BudgetTest, TheDefaultLimitsAreStatedAndAnUnboundedCaseIsRefused) {
    const fs::path file = write_case("plain", small_program().to_json());
    const Result r =
        refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --jobs 1 --out plain");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    const ojson j = report("plain/plain.json");
    EXPECT_EQ(j.at("limits").at("instructions_per_call"), 500'000'000);
    EXPECT_EQ(j.at("limits").at("instructions_per_case"), 50'000'000'000);
    EXPECT_EQ(j.at("limits").at("events_per_call"), 250'000);
    EXPECT_EQ(budget_faults(j), 0u);
    ojson zero = small_program().to_json();
    zero["limits"] = {{"instructions_per_call", 0}};
    const Result refused =
        refcheck("run " + quote(write_case("zero", zero)) + " --data " + quote(kSmallData) + " --out zero");
    EXPECT_EQ(refused.code, 2) << refused.out << refused.err;
    EXPECT_NE((refused.out + refused.err).find("at least 1"), std::string::npos)
        << refused.out << refused.err;
}

} // namespace
} // namespace refcheck::cli_test
