// The event model the harness compares: one closed set of field value kinds, shared by both sides.
// Events of reimpl/ (refcheck/events.hpp) and events recorded from the original's hooked calls are both
// turned into EventRecords, so that comparison, reports and JSON see one shape.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace refcheck::harness {

// A list field's value: a sequence of int64. Up to kInline elements that each fit in 32 bits are
// held in place (a face's vertices and their columns, an instance path, a position),
// anything else on the heap. Events are built and compared by the million: a list held in a
// std::vector cost one allocation per list per event, and a list of int64 held in place made a face
// event's field vector 2.6 KB, past glibc's per-thread cache (issue 17). A Field is now 48 bytes.
class IntList {
public:
    static constexpr std::uint32_t kInline = 6;
    using value_type = std::int64_t;

    // A random-access iterator over the values (as int64, whichever way they are held).
    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = std::int64_t;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = std::int64_t;
        const_iterator() = default;
        const_iterator(const IntList* list, std::size_t i)
            : list_(list), i_(static_cast<std::ptrdiff_t>(i)) {}
        std::int64_t operator*() const { return (*list_)[static_cast<std::size_t>(i_)]; }
        std::int64_t operator[](difference_type n) const {
            return (*list_)[static_cast<std::size_t>(i_ + n)];
        }
        const_iterator& operator++() { return ++i_, *this; }
        const_iterator operator++(int) { return {list_, static_cast<std::size_t>(i_++)}; }
        const_iterator& operator--() { return --i_, *this; }
        const_iterator operator--(int) { return {list_, static_cast<std::size_t>(i_--)}; }
        const_iterator& operator+=(difference_type n) { return i_ += n, *this; }
        const_iterator& operator-=(difference_type n) { return i_ -= n, *this; }
        friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
        friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
        friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
            return a.i_ - b.i_;
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.i_ == b.i_; }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.i_ <=> b.i_; }

    private:
        const IntList* list_ = nullptr;
        std::ptrdiff_t i_ = 0;
    };
    using iterator = const_iterator;

    IntList() = default;
    IntList(std::initializer_list<std::int64_t> xs) { assign(xs.begin(), xs.end()); }
    template <class It>
    IntList(It first, It last) {
        assign(first, last);
    }
    IntList(const std::vector<std::int64_t>& xs) { assign(xs.begin(), xs.end()); } // NOLINT: implicit
    IntList(const IntList& o) { assign(o.begin(), o.end()); }
    IntList(IntList&& o) noexcept { take(o); }
    IntList& operator=(const IntList& o) {
        if (this != &o) {
            clear();
            assign(o.begin(), o.end());
        }
        return *this;
    }
    IntList& operator=(IntList&& o) noexcept {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    ~IntList() { release(); }

    std::size_t size() const { return bits_ & ~kHeap; }
    bool empty() const { return size() == 0; }
    std::int64_t operator[](std::size_t i) const { return on_heap() ? heap_.values[i] : small_[i]; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }
    std::int64_t front() const { return (*this)[0]; }
    std::int64_t back() const { return (*this)[size() - 1]; }
    void clear() { bits_ &= kHeap; }
    void pop_back() { --bits_; }
    void reserve(std::size_t n) {
        if (on_heap() ? n > heap_.capacity : n > kInline) to_heap(n);
    }
    void push_back(std::int64_t x) {
        // bits_ below kInline: the values are in place (no kHeap) with room for one more.
        if (bits_ < kInline && x == static_cast<std::int32_t>(x)) {
            small_[bits_++] = static_cast<std::int32_t>(x);
            return;
        }
        push_back_slow(x);
    }
    std::vector<std::int64_t> to_vector() const { return {begin(), end()}; }
    friend bool operator==(const IntList& a, const IntList& b) {
        const std::size_t n = a.size();
        if (n != b.size()) return false;
        if (!a.on_heap() && !b.on_heap()) {
            for (std::size_t i = 0; i < n; ++i)
                if (a.small_[i] != b.small_[i]) return false;
            return true;
        }
        for (std::size_t i = 0; i < n; ++i)
            if (a[i] != b[i]) return false;
        return true;
    }

private:
    static constexpr std::uint32_t kHeap = 1u << 31; // in bits_: the values are on the heap
    bool on_heap() const { return (bits_ & kHeap) != 0; }
    // A value that does not fit in place: the list moves to (or grows on) the heap first.
    [[gnu::noinline]] void push_back_slow(std::int64_t x) {
        const std::uint32_t n = bits_ & ~kHeap;
        if (!on_heap())
            to_heap(std::max<std::size_t>(2 * std::size_t{n}, 16));
        else if (n == heap_.capacity)
            to_heap(2 * std::size_t{n});
        heap_.values[n] = x;
        ++bits_;
    }
    template <class It>
    void assign(It first, It last) {
        reserve(static_cast<std::size_t>(std::distance(first, last)));
        for (; first != last; ++first) push_back(static_cast<std::int64_t>(*first));
    }
    // Moves the values to a heap block of `n` (> the current size) int64.
    void to_heap(std::size_t n) {
        auto* bigger = new std::int64_t[n];
        const std::size_t count = size();
        for (std::size_t i = 0; i < count; ++i) bigger[i] = (*this)[i];
        release();
        heap_.values = bigger;
        heap_.capacity = static_cast<std::uint32_t>(n);
        bits_ = static_cast<std::uint32_t>(count) | kHeap;
    }
    void release() {
        if (on_heap()) delete[] heap_.values;
        bits_ = 0;
    }
    void take(IntList& o) {
        bits_ = o.bits_;
        if (o.on_heap()) {
            heap_ = o.heap_;
        } else {
            std::memcpy(small_, o.small_, sizeof small_); // a fixed size: a few moves, no call
        }
        o.bits_ = 0;
    }
    struct Heap {
        std::int64_t* values;
        std::uint32_t capacity;
    };
    union {
        std::int32_t small_[kInline]; // when bits_ lacks kHeap: every value fits in 32 bits
        Heap heap_;
    };
    std::uint32_t bits_ = 0; // the size, and kHeap
};
static_assert(sizeof(IntList) == 32);

using Value = std::variant<std::int64_t, bool, std::string, IntList>;

// A name of the event model (an event's kind, a field's name): NUL-terminated text that lives as
// long as the process, held by one pointer. Built from a string literal, from text known to be
// static (Name::of_static: reimpl's signature tables), or from any text through Name::intern, which
// keeps one copy of each distinct text for the process's life. Events carry names for reports;
// building and comparing them costs no allocation and, for the same literal, no character compare.
class Name {
public:
    constexpr Name() = default;
    template <std::size_t N>
    constexpr Name(const char (&literal)[N]) : text_(literal) {} // NOLINT: implicit from literals
    // Static text: held in place when NUL-terminated where the view ends, else interned.
    static Name of_static(std::string_view text) {
        return text.data()[text.size()] == '\0' ? Name(Held{}, text.data()) : intern(text);
    }
    static Name intern(std::string_view text);

    std::string_view view() const { return text_; }
    const char* c_str() const { return text_; }         // one address per distinct static or interned text
    operator std::string_view() const { return text_; } // NOLINT: implicit
    std::string str() const { return text_; }
    bool empty() const { return text_[0] == '\0'; }
    std::size_t size() const { return view().size(); }
    friend bool operator==(Name a, Name b) {
        return a.text_ == b.text_ || std::strcmp(a.text_, b.text_) == 0;
    }
    // Compared character by character up to the first difference: the name's length is not measured
    // first, and its text is never read past its NUL (text holding a NUL equals no name).
    friend bool operator==(Name a, std::string_view b) {
        for (std::size_t i = 0; i < b.size(); ++i)
            if (a.text_[i] != b[i] || b[i] == '\0') return false;
        return a.text_[b.size()] == '\0';
    }
    friend bool operator==(Name a, const std::string& b) { return a == std::string_view(b); }
    // A literal compared with a name made from the same literal is usually the same address (the
    // linker merges equal literals): no character is read then.
    friend bool operator==(Name a, const char* b) { return a.text_ == b || std::strcmp(a.text_, b) == 0; }
    friend auto operator<=>(Name a, Name b) { return a.view() <=> b.view(); }

private:
    struct Held {}; // the text is static or interned (not a literal: that is the public constructor)
    constexpr Name(Held, const char* text) : text_(text) {}
    const char* text_ = "";
};

inline std::string operator+(const std::string& a, Name b) { return a + std::string(b.view()); }
inline std::string operator+(Name a, const std::string& b) { return std::string(a.view()) + b; }
inline std::string operator+(const char* a, Name b) { return a + std::string(b.view()); }

struct Field {
    Name name;
    Value value;
    Field() = default;
    // A constructor, not aggregate initialisation, so that vector::emplace_back builds a field in
    // place with every compiler the project builds with (clang-14 has no parenthesised aggregate
    // initialisation).
    template <class V>
    Field(Name n, V&& v) : name(n), value(std::forward<V>(v)) {}
    friend bool operator==(const Field&, const Field&) = default;
};
static_assert(sizeof(Field) == 48); // a face event's 19 fields stay within glibc's per-thread cache

// One side's own evidence that a documented cause concerns part of an event: the registry flag of
// the cause (divergences.hpp), the field, and the element of a list field (-1: the scalar field, or
// every element). The original's excuses come from its own execution and memory (the recorder's
// witnesses), the reimplementation's from its own fault detection; a difference is excused only
// where both sides carry the same excuse.
struct Excuse {
    std::uint32_t flag = 0;
    std::string_view field; // a static string: "face_level", "vertex_levels", "screen_x", ...
    std::int32_t element = -1;
    // A tolerance entry's bound (div.grid_tolerance): the reimplementation's camera-space point of
    // the vertex, around which the original's value must lie. Without one, a tolerance entry
    // explains nothing.
    std::optional<std::array<std::int32_t, 3>> camera = std::nullopt;
    friend bool operator==(const Excuse&, const Excuse&) = default;
};

struct EventRecord {
    Name kind;                        // "face_draw", "attached_draw", "archive", "table", "instance", ...
    std::vector<Field> fields;        // in signature order; the first `key_fields` identify the event
    std::size_t key_fields = 0;       // fields that align the two streams (record, path, offset...)
    std::uint32_t flags = 0;          // documented-fault flags (see divergences.hpp)
    std::vector<Excuse> excuses = {}; // this side's evidence of documented causes (see Excuse)

    const Value* find(std::string_view name) const;
    // Whether this side carries the cause `flag` for element `element` of `field` (an excuse for
    // the whole field covers every element).
    bool excuses_element(std::uint32_t flag, std::string_view field, std::int32_t element) const;
    // The camera-space point this side gives for element `element` of `field` under `flag`.
    std::optional<std::array<std::int32_t, 3>> camera_of(std::uint32_t flag, std::string_view field,
                                                         std::int32_t element) const;
};

std::string to_string(const Value& v);
std::string key_of(const EventRecord& e); // kind + key fields, for alignment and messages
std::string to_string(const EventRecord& e);

} // namespace refcheck::harness
