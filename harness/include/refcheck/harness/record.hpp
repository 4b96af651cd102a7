// The event model the harness compares: one closed set of field value kinds, shared by both sides.
// Events of reimpl/ (refcheck/events.hpp) and events recorded from the original's hooked calls are both
// turned into EventRecords, so that comparison, reports and JSON see one shape.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace refcheck::harness {

// A list field's value: up to kInline elements held in place (a face's vertices and their columns,
// an instance path, a rotation), more on the heap. Events are built and compared by the million, and
// a list held in a std::vector cost one allocation per list per event (issue 17).
class IntList {
public:
    static constexpr std::uint32_t kInline = 12;
    using value_type = std::int64_t;
    using const_iterator = const std::int64_t*;

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

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const std::int64_t* data() const { return on_heap() ? heap_ : inline_; }
    std::int64_t* data() { return on_heap() ? heap_ : inline_; }
    const std::int64_t* begin() const { return data(); }
    const std::int64_t* end() const { return data() + size_; }
    std::int64_t operator[](std::size_t i) const { return data()[i]; }
    std::int64_t& operator[](std::size_t i) { return data()[i]; }
    std::int64_t front() const { return data()[0]; }
    std::int64_t back() const { return data()[size_ - 1]; }
    void clear() { size_ = 0; }
    void pop_back() { --size_; }
    void reserve(std::size_t n) {
        if (n > capacity_) grow(n);
    }
    void push_back(std::int64_t x) {
        if (size_ == capacity_) grow(std::size_t{capacity_} * 2);
        data()[size_++] = x;
    }
    std::vector<std::int64_t> to_vector() const { return {begin(), end()}; }
    friend bool operator==(const IntList& a, const IntList& b) {
        return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    bool on_heap() const { return heap_ != nullptr; }
    template <class It>
    void assign(It first, It last) {
        reserve(static_cast<std::size_t>(std::distance(first, last)));
        for (; first != last; ++first) data()[size_++] = static_cast<std::int64_t>(*first);
    }
    void grow(std::size_t n) {
        auto* bigger = new std::int64_t[n];
        std::memcpy(bigger, data(), size_ * sizeof(std::int64_t));
        release();
        heap_ = bigger;
        capacity_ = static_cast<std::uint32_t>(n);
    }
    void release() {
        delete[] heap_;
        heap_ = nullptr;
        capacity_ = kInline;
    }
    void take(IntList& o) {
        size_ = o.size_;
        if (o.on_heap()) {
            heap_ = std::exchange(o.heap_, nullptr);
            capacity_ = std::exchange(o.capacity_, kInline);
        } else {
            std::memcpy(inline_, o.inline_, size_ * sizeof(std::int64_t));
        }
        o.size_ = 0;
    }
    std::uint32_t size_ = 0;
    std::uint32_t capacity_ = kInline;
    std::int64_t* heap_ = nullptr; // when capacity_ > kInline
    std::int64_t inline_[kInline];
};

using Value = std::variant<std::int64_t, bool, std::string, IntList>;

// A name of the event model (an event's kind, a field's name): text that lives as long as the
// process, held without a copy. Built from a string literal, from text known to be static
// (Name::of_static: reimpl's signature tables), or from any text through Name::intern, which keeps
// one copy of each distinct text for the process's life. Events carry names for reports; building
// and comparing them costs no allocation and, for the same literal, no character compare.
class Name {
public:
    constexpr Name() = default;
    template <std::size_t N>
    constexpr Name(const char (&literal)[N]) : text_(literal, N - 1) {} // NOLINT: implicit from literals
    static constexpr Name of_static(std::string_view text) { return Name(text); }
    static Name intern(std::string_view text);

    constexpr std::string_view view() const { return text_; }
    constexpr operator std::string_view() const { return text_; } // NOLINT: implicit
    std::string str() const { return std::string(text_); }
    bool empty() const { return text_.empty(); }
    std::size_t size() const { return text_.size(); }
    friend bool operator==(Name a, Name b) {
        return (a.text_.data() == b.text_.data() && a.text_.size() == b.text_.size()) || a.text_ == b.text_;
    }
    friend bool operator==(Name a, std::string_view b) { return a.text_ == b; }
    friend bool operator==(Name a, const std::string& b) { return a.text_ == b; }
    friend bool operator==(Name a, const char* b) { return a.text_ == b; }
    friend auto operator<=>(Name a, Name b) { return a.text_ <=> b.text_; }

private:
    constexpr explicit Name(std::string_view text) : text_(text) {}
    std::string_view text_;
};

inline std::string operator+(const std::string& a, Name b) { return a + std::string(b.view()); }
inline std::string operator+(Name a, const std::string& b) { return std::string(a.view()) + b; }
inline std::string operator+(const char* a, Name b) { return a + std::string(b.view()); }

struct Field {
    Name name;
    Value value;
    friend bool operator==(const Field&, const Field&) = default;
};

// One side's own evidence that a documented cause concerns part of an event: the registry flag of
// the cause (divergences.hpp), the field, and the element of a list field (-1: the scalar field, or
// every element). The original's excuses come from its own execution and memory (the recorder's
// witnesses), the reimplementation's from its own fault detection; a difference is excused only
// where both sides carry the same excuse.
struct Excuse {
    std::uint32_t flag = 0;
    std::string_view field; // a static string: "face_level", "vertex_levels", "screen_x", ...
    std::int32_t element = -1;
    friend bool operator==(const Excuse&, const Excuse&) = default;
};

struct EventRecord {
    Name kind;                   // "face_draw", "attached_draw", "archive", "table", "instance", ...
    std::vector<Field> fields;   // in signature order; the first `key_fields` identify the event
    std::size_t key_fields = 0;  // fields that align the two streams (record, path, offset...)
    std::uint32_t flags = 0;     // documented-fault flags (see divergences.hpp)
    std::vector<Excuse> excuses; // this side's evidence of documented causes (see Excuse)

    const Value* find(std::string_view name) const;
    // Whether this side carries the cause `flag` for element `element` of `field` (an excuse for
    // the whole field covers every element).
    bool excuses_element(std::uint32_t flag, std::string_view field, std::int32_t element) const;
};

std::string to_string(const Value& v);
std::string key_of(const EventRecord& e); // kind + key fields, for alignment and messages
std::string to_string(const EventRecord& e);

} // namespace refcheck::harness
