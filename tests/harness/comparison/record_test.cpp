// The event model's list value (IntList): in place up to kInline elements that fit in 32 bits, on
// the heap past them or for any wider value, and the same values, copies, moves and equality
// either way.
#include "refcheck/harness/record.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace refcheck::harness {
namespace {

IntList counting(std::size_t n) {
    IntList out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<std::int64_t>(i * 7 - 3));
    return out;
}

TEST(IntList, HoldsItsValuesInPlaceAndPastTheInlineCapacity) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{IntList::kInline},
                          std::size_t{IntList::kInline + 1}, std::size_t{100}}) {
        const IntList xs = counting(n);
        ASSERT_EQ(xs.size(), n);
        for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(xs[i], static_cast<std::int64_t>(i * 7 - 3)) << n;
        EXPECT_EQ(xs.to_vector(), std::vector<std::int64_t>(xs.begin(), xs.end()));
    }
}

TEST(IntList, CopiesAndMovesKeepTheValuesAndLeaveTheSourceUsable) {
    for (std::size_t n : {std::size_t{3}, std::size_t{40}}) {
        IntList a = counting(n);
        IntList copy = a;
        EXPECT_EQ(copy, a);
        copy.push_back(1);
        EXPECT_FALSE(copy == a); // a copy owns its elements
        IntList moved = std::move(a);
        EXPECT_EQ(moved, counting(n));
        a = counting(2); // a moved-from list takes new values
        EXPECT_EQ(a, (IntList{-3, 4}));
        IntList assigned;
        assigned = moved;
        EXPECT_EQ(assigned, counting(n));
        assigned = std::move(moved);
        EXPECT_EQ(assigned, counting(n));
    }
}

TEST(IntList, EqualityComparesLengthAndEveryElement) {
    EXPECT_EQ(IntList({1, 2, 3}), IntList(std::vector<std::int64_t>{1, 2, 3}));
    EXPECT_FALSE(IntList({1, 2, 3}) == IntList({1, 2}));
    EXPECT_FALSE(IntList({1, 2, 3}) == IntList({1, 2, 4}));
    IntList big = counting(30), other = counting(30);
    EXPECT_EQ(big, other);
    other.pop_back();
    other.push_back(0);
    EXPECT_FALSE(big == other);
    const Value five_list{IntList({5})}, five_again{IntList({5})}, five{std::int64_t{5}};
    EXPECT_TRUE(five_list == five_again);
    EXPECT_FALSE(five_list == five);
}

// A value past 32 bits, first or after values held in place, moves the list to the heap with every
// value kept; a list on the heap equals one in place with the same values, and differs from it in
// any element, however each is held.
TEST(IntList, WideValuesAreKeptWhole) {
    const std::int64_t wide = std::int64_t{1} << 40, low = std::int64_t{-1} << 35;
    const IntList first{wide, 1, 2};
    EXPECT_EQ(first.to_vector(), (std::vector<std::int64_t>{wide, 1, 2}));
    IntList later{1, 2, 3};
    later.push_back(low);
    later.push_back(0xffffffffll); // fits 32 bits unsigned only: not in place
    EXPECT_EQ(later.to_vector(), (std::vector<std::int64_t>{1, 2, 3, low, 0xffffffffll}));
    EXPECT_EQ(IntList({1, 2, 3, low, 0xffffffffll}), later);
    EXPECT_FALSE(IntList({1, 2, 3, low, 0xfffffffell}) == later);
    EXPECT_FALSE(IntList({1, 2, 3, low, 0x7fffffffll}) == later); // the low 32 bits alone differ
    IntList heap{wide};
    heap.pop_back();
    for (std::int64_t x : {4, 5, 6}) heap.push_back(x);
    EXPECT_EQ(heap, (IntList{4, 5, 6})); // on the heap and in place, the same values
    EXPECT_FALSE(heap == (IntList{4, 5, 7}));
    const IntList copy = later;
    EXPECT_EQ(copy, later);
    const std::vector<std::int64_t> extremes{INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX};
    EXPECT_EQ(IntList(extremes).to_vector(), extremes);
}

// Event names are held without copies: a literal, reimpl's static text, or text interned once.
// Equal text is the same name whatever its storage; interning the same text twice gives one copy.
TEST(Name, EqualTextIsTheSameNameAndInterningKeepsOneCopy) {
    const std::string built = std::string("face") + "_draw";
    const Name interned = Name::intern(built);
    EXPECT_EQ(interned, Name("face_draw"));
    EXPECT_EQ(interned.view().data(), Name::intern("face_draw").view().data()); // one copy
    EXPECT_NE(interned.view().data(), built.data()); // not the caller's text, which may go
    EXPECT_FALSE(Name("face_draw") == Name("face_draws"));
    EXPECT_FALSE(Name("face_draw") == Name::intern("attached_draw"));
    EXPECT_EQ(Name::of_static(std::string_view("record")), "record");
    EXPECT_EQ(Name::of_static(std::string_view("record")).c_str(), Name::of_static("record").c_str());
    // Static text whose view ends before its NUL is interned: the name is the view's text only.
    static constexpr char kLonger[] = "records";
    const Name cut = Name::of_static(std::string_view(kLonger, 6));
    EXPECT_EQ(cut, "record");
    EXPECT_EQ(cut.size(), 6u);
    // Against text: the whole text, not a prefix either way, and no text holding a NUL.
    EXPECT_TRUE(Name("record") == std::string_view("record"));
    EXPECT_FALSE(Name("record") == std::string_view("recor"));
    EXPECT_FALSE(Name("record") == std::string_view("records"));
    EXPECT_FALSE(Name("record") == std::string_view("record\0", 7));
    EXPECT_FALSE(Name("rec") == std::string_view("rec\0rd", 6));
    EXPECT_TRUE(Name() == std::string_view());
    EXPECT_FALSE(Name() == std::string_view("x"));
    EXPECT_TRUE(Name("record") == std::string("record"));
    EventRecord e;
    e.kind = "winding_decision";
    e.fields = {{"record", std::int64_t{3}}, {"winding", std::int64_t{-1}}};
    e.key_fields = 1;
    ASSERT_NE(e.find(Name::intern("winding").view()), nullptr);
    EXPECT_EQ(std::get<std::int64_t>(*e.find("winding")), -1);
    EXPECT_EQ(key_of(e), "winding_decision record=3");
}

} // namespace
} // namespace refcheck::harness
