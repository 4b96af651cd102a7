// The order `refcheck run` hands cases to its workers (hand_order, harness/src/run/workers.hpp): the
// previous run's longest first, cases it did not time before them, ties in case order.
#include "run/workers.hpp"

#include <gtest/gtest.h>

namespace refcheck::harness {
namespace {

std::vector<Case> named(std::initializer_list<const char*> names) {
    std::vector<Case> cases;
    for (const char* n : names) {
        cases.emplace_back();
        cases.back().name = n;
    }
    return cases;
}

TEST(HandOrder, LongestOfThePreviousRunFirstAndNewCasesBeforeThem) {
    const auto cases = named({"a", "b", "c", "d", "e"});
    EXPECT_EQ(hand_order(cases, {}), (std::vector<std::size_t>{0, 1, 2, 3, 4})); // no times: case order
    EXPECT_EQ(hand_order(cases, {{"a", 1.0}, {"b", 5.0}, {"d", 3.0}, {"e", 3.0}}),
              (std::vector<std::size_t>{2, 1, 3, 4, 0})); // c untimed, then 5, 3, 3 (d before e), 1
    EXPECT_EQ(hand_order(cases, {{"zzz", 9.0}, {"c", 0.5}}), (std::vector<std::size_t>{0, 1, 3, 4, 2}));
}

} // namespace
} // namespace refcheck::harness
