// The records a case runs are chosen by the reimplementation's parse (select_records), so a record
// it wrongly took for an empty slot would drop out of the case unseen and the case stay equivalent.
// Each family that selects records (program, construct, shadow) compares the selected slots as both
// sides hold them: the original's object_table against the reimplementation's offset table. Each
// test seeds an original that holds a record the reimplementation does not, by writing the
// original's table once the archives are loaded; the controls show the check quiet on the same
// selection (it compares nothing then, so a case that selects no record still compares nothing).
#include "run/case_observer.hpp"

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/original.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"

#include "standin_env.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace refcheck::harness {
namespace {

namespace fs = std::filesystem;

// Runs `act` on the original as each input begins: the archives are loaded by then, and a program
// case that starts every record from the set-up's snapshot (isolate_records) has just restored it.
class AtEveryInput : public CaseObserver {
public:
    explicit AtEveryInput(std::function<void(Original&)> act) : act_(std::move(act)) {}
    void booted(Original& original, Comparator&) override { original_ = &original; }
    bool input(std::string_view, bool) override {
        act_(*original_);
        return true;
    }
    void finished(Original&, const ojson&) override {}

private:
    std::function<void(Original&)> act_;
    Original* original_ = nullptr;
};

CaseResult run_seeded(const Case& c, const Environment& env, std::function<void(Original&)> act) {
    AtEveryInput observer(std::move(act));
    set_case_observer(&observer);
    CaseResult r = run_case(c, env);
    set_case_observer(nullptr);
    return r;
}

// The original's object table gains slot `slot`, a copy of slot `from` (its count grows to hold it).
std::function<void(Original&)> original_holds(std::uint32_t slot, std::uint32_t from) {
    return [slot, from](Original& o) {
        if (o.u32("object_count") <= slot) o.machine().write_u32(o.address("object_count"), slot + 1);
        o.machine().write_u32(o.address("object_table") + 4 * slot, o.u32("object_table", from));
    };
}

const ojson* selection_buffer(const CaseResult& r) {
    if (!r.report.contains("buffers")) return nullptr;
    for (const ojson& b : r.report.at("buffers"))
        if (b.at("name") == "object_table populated") return &b;
    return nullptr;
}

Case case_file(const std::string& name, std::vector<std::uint32_t> records) {
    Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / name);
    c.records = RecordSelection{};
    c.records.list = std::move(records);
    return c;
}

// The control: the sides agree on the named slots, the report says how many, nothing is compared.
void expect_quiet(const Case& c, const Environment& env, std::uint64_t named, std::uint64_t populated) {
    const CaseResult r = run_case(c, env);
    ASSERT_EQ(r.status, Status::Equivalent)
        << r.report.value("error", "") << r.report.value("counts", ojson()).dump();
    EXPECT_EQ(selection_buffer(r), nullptr) << r.report.value("buffers", ojson()).dump();
    EXPECT_EQ(r.report.at("record_slots"),
              ojson({{"named", named}, {"populated_original", populated}, {"populated_reimpl", populated}}))
        << r.report.at("record_slots").dump();
}

// `slot` is held by the original only: the case is divergent at that slot, and nothing else differs.
void expect_divergence_at(const Case& c, const Environment& env, std::uint32_t slot, std::uint32_t from) {
    const CaseResult r = run_seeded(c, env, original_holds(slot, from));
    ASSERT_EQ(r.status, Status::Divergent)
        << r.report.value("error", "") << r.report.value("counts", ojson()).dump();
    EXPECT_EQ(r.report.at("record_slots").at("populated_original"),
              r.report.at("record_slots").at("populated_reimpl").get<std::uint64_t>() + 1);
    EXPECT_EQ(r.report.at("counts").at("unexplained"), 1) << r.report.at("counts").dump();
    EXPECT_EQ(r.report.at("first_unexplained").at("input"), "table object_table populated")
        << r.report.at("first_unexplained").dump();
    const ojson* b = selection_buffer(r);
    ASSERT_NE(b, nullptr) << r.report.value("buffers", ojson()).dump();
    ASSERT_TRUE(b->contains("differing_ranges")) << b->dump();
    EXPECT_EQ(b->at("differing_ranges"),
              ojson::parse("[[" + std::to_string(slot) + "," + std::to_string(slot + 1) + "]]"))
        << b->dump();
}

TEST(RecordSelection, AProgramCaseDivergesWhereTheOriginalHoldsARecordTheReimplementationLacks) {
    // The small archive has 48 records; the original is given a 49th.
    Case c = case_file("program-lights.json", {47, 48});
    c.views.resize(1);
    c.lights.resize(1);
    c.states.resize(1);
    c.compares = {"face_draw"};                   // records 44 to 47 attach nothing
    expect_quiet(c, test::small_standin(), 1, 1); // slot 48 is past both counts
    expect_divergence_at(c, test::small_standin(), 48, 47);
}

TEST(RecordSelection, AConstructCaseDivergesWhereTheOriginalHoldsARecordTheReimplementationLacks) {
    const Case c = case_file("construct.json", {46, 48});
    expect_quiet(c, test::small_standin(), 1, 1); // slot 48 is past both counts
    expect_divergence_at(c, test::small_standin(), 48, 46);
}

TEST(RecordSelection, AShadowCaseDivergesWhereTheOriginalHoldsARecordTheReimplementationLacks) {
    Case c = case_file("shadows.json", {47, 48});
    c.views.resize(1);
    c.suns.resize(1);
    expect_quiet(c, test::small_standin(), 1, 1); // slot 48 is past both counts
    expect_divergence_at(c, test::small_standin(), 48, 47);
}

// A slot the selection does not name is not compared: the original's extra record past the range
// leaves the case equivalent.
TEST(RecordSelection, ASlotTheSelectionDoesNotNameIsNotCompared) {
    Case c = case_file("construct.json", {46});
    const CaseResult r = run_seeded(c, test::small_standin(), original_holds(48, 46));
    ASSERT_EQ(r.status, Status::Equivalent)
        << r.report.value("error", "") << r.report.value("counts", ojson()).dump();
}

// A record in the middle of the archive that the reimplementation holds empty (its offset 0 in the
// file) while the original's table holds it: the slot the case would have skipped unseen.
TEST(RecordSelection, AnEmptySlotTheOriginalHoldsPopulatedIsADivergence) {
    const fs::path dir = fs::temp_directory_path() / ("refcheck-selection-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    Environment env = test::small_standin();
    fs::copy(env.data, dir / "data", fs::copy_options::recursive);
    env.data = dir / "data";
    const fs::path objects = env.data / "3DDATA" / "3DOBJS.BIN";
    std::string bytes;
    {
        std::ifstream in(objects, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::uint32_t empty = 45;
    std::fill_n(bytes.begin() + 4 + 4 * empty, 4, '\0'); // the offset table starts after the count
    std::ofstream(objects, std::ios::binary | std::ios::trunc) << bytes;

    Case c = case_file("program-lights.json", {44, 45, 46});
    c.views.resize(1);
    c.lights.resize(1);
    c.states.resize(1);
    c.compares = {"face_draw"}; // records 44 to 47 attach nothing
    expect_quiet(c, env, 3, 2);
    expect_divergence_at(c, env, empty, 44);
    fs::remove_all(dir);
}

} // namespace
} // namespace refcheck::harness
