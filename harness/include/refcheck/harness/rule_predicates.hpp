// Observable predicates of the rule ids: what a compared event (or the original's coverage) must
// show for a case to have exercised a rule. Each rule of docs/formats/apache-3d.md's index has one,
// in the index's fourth column; a rule is Proven for an image only when an equivalent case claimed
// it and compared at least one matched event satisfying its predicate (ledger.hpp).
//
// The language (one cell; words separated by blanks):
//
//   predicate   := "none" REASON...                      never witnessed: the reason says why
//                | alternative ("or" alternative)*        counts add up over the alternatives
//   alternative := "event" KIND (condition ("and" condition)*)?
//                | "routine" NAME                         executed blocks of that routine of the
//                                                         original (the case report's coverage),
//                                                         counted only when the case matched at
//                                                         least one event
//                | "known" ID                             compared pairs that the known divergence
//                                                         ID explained (counts.known_by_cause)
//   condition   := FIELD OP INT          integer (or bool, as 0/1) field: = != < <= > >=
//                | FIELD in LIST         LIST: comma-separated integers and ranges a..b, no blanks
//                | FIELD = WORD | FIELD != WORD | FIELD starts WORD | FIELD contains WORD
//                                        string field; "a quoted word" may hold blanks
//                | FIELD = true|false    bool field
//                | any FIELD OP INT | any FIELD in LIST                some element of a list field
//                | len FIELD OP INT      the number of elements of a list field
//                | FIELD nonempty | FIELD empty                        list or string field
//                | flag NAME             both sides' events carry the face flag NAME (missing_normal,
//                                        tex_right_edge, tex_past_alloc, grid_rounding): the
//                                        reimplementation's own, the original's from its memory
//                                        (FaceWitness::classify)
//                | noflag NAME           neither side's event carries it
//
// KIND and FIELD are checked against the events the harness compares (event_kinds()); an unknown
// kind, field, operator or flag, or a condition that does not fit the field's type, is an error.
#pragma once

#include "refcheck/harness/record.hpp"
#include "refcheck/harness/report.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace refcheck::harness {

struct PredicateError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

enum class FieldType { Int, Bool, String, List };

// The event kinds the harness compares and their fields (the synthetic "frame" event of a matched
// frame included: input, size, drawn_pixels = pixels not of the clear colour, types = the packet
// types of the matched face_draw events of the frame's own input, filled by the ExerciseCounter:
// the program family compares an input's events, then its frame).
struct EventKindFields {
    std::string_view kind;
    std::vector<std::pair<std::string_view, FieldType>> fields;
};
const std::vector<EventKindFields>& event_kinds();

// The synthetic event of a matched frame (Comparator::compare_frame): {input, size, drawn_pixels},
// drawn_pixels counting the pixels not of the clear colour, or not as `background` holds them.
EventRecord matched_frame_event(const std::string& input, std::span<const std::uint8_t> pixels,
                                std::span<const std::uint8_t> background = {});
// Those drawn pixels of one frame: not of the clear colour, or not as `background` holds them.
std::size_t frame_drawn_pixels(std::span<const std::uint8_t> pixels,
                               std::span<const std::uint8_t> background);

struct PredicateCondition {
    enum class Op { Eq, Ne, Lt, Le, Gt, Ge, In, Starts, Contains, NonEmpty, Empty, Flag, NoFlag };
    enum class Scope { Value, Any, Len };
    std::string field;
    Scope scope = Scope::Value;
    Op op = Op::Eq;
    std::int64_t number = 0;
    std::string word;                                          // string comparisons
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges; // In: inclusive ranges
    std::uint32_t flag = 0;                                    // Flag: the face flag's bit
    FieldType type = FieldType::Int;                           // of the field (checked at parse)
    mutable std::size_t slot = 0;                              // cached field position
    // The text of the field's Name last found at `slot`: event names are static or interned text
    // that never moves, so the same address is the same name and needs no character compare.
    mutable const char* slot_name = nullptr;
    // `FIELD OP OTHER`: an integer field compared with another integer field of the same event
    // (`next < offset`: a walk going to an earlier offset) rather than with a number.
    std::shared_ptr<const PredicateCondition> other;
};

struct PredicateAlternative {
    enum class Source { Event, Routine, Known };
    Source source = Source::Event;
    std::string name; // event kind, routine name, or known-divergence id
    std::vector<PredicateCondition> conditions;
};

struct RulePredicate {
    std::string text;   // as written
    bool none = false;  // never witnessed
    std::string reason; // why, for "none"
    std::vector<PredicateAlternative> alternatives;
    bool needs_coverage() const;
};

// Throws PredicateError with what is wrong (the caller adds file and line).
RulePredicate parse_predicate(std::string_view text);

// Whether one matched pair satisfies an event alternative: fields are the original's; `flag` needs
// the flag on both sides (the original's classification from its own memory, the
// reimplementation's own), `noflag` on neither: a rule resting on a flag never rests on one side's
// classification of the input alone.
bool satisfies(const PredicateAlternative& a, const EventRecord& original, const EventRecord& reimpl);

// Counts, for one case, how many matched pairs satisfy each claimed rule's predicate.
class ExerciseCounter {
public:
    // `rules`: {rule id, predicate} of the rules the case claims (unknown ids are left out by the
    // caller; preflight reports them).
    explicit ExerciseCounter(std::vector<std::pair<std::string, const RulePredicate*>> rules);
    // One fully matched pair (Comparator::observe_matches).
    void observe(const EventRecord& original, const EventRecord& reimpl);
    std::uint64_t matched() const { return matched_; }
    // The counts observe() made, rule by rule in the order given, and the matched pairs: what a part
    // of a split case hands to the run that finishes it (run/case_part.hpp), which adds them.
    const std::vector<std::uint64_t>& observed() const { return counts_; }
    void absorb(const std::vector<std::uint64_t>& observed, std::uint64_t matched);
    // An input begins (Comparator::observe_inputs): a matched frame takes the types of its own
    // input's matched faces, never those of an earlier input whose frame did not match (blank,
    // excused or divergent).
    void begin_input() { face_types_ = 0; }
    // The case's narrowing left inputs out (--only, an input --filter): the original's coverage then
    // counts blocks run by inputs that were played but not compared (a mobile case plays every step
    // to build the selected one's state), so routine alternatives count nothing.
    void set_narrowed() { narrowed_ = true; }
    // {rule id: count} for every claimed rule (0 when not exercised). Routine alternatives read the
    // case report's "coverage" (routines -> executed) and count only when the case matched at least
    // one event and was not narrowed; known alternatives read its "counts" (known_by_cause).
    ojson json(const ojson& report) const;

private:
    bool narrowed_ = false;
    struct Watch {
        std::size_t rule;
        const PredicateAlternative* alternative;
    };
    // The watches of one event kind. Those whose first condition is `FIELD = N` on an integer or
    // boolean field are indexed by FIELD and N: the field is read once per event and only the
    // watches of its value are tried, from their second condition on (a face event used to try each
    // of the 22 `type = N` rules). The others are tried in full.
    struct ByValue {
        PredicateCondition field;                                     // FIELD's lookup (its slot cache)
        std::unordered_map<std::int64_t, std::vector<Watch>> watches; // by N
        std::vector<Watch> all;                                       // for a value of another type
    };
    struct KindWatches {
        std::vector<Watch> general;
        std::vector<ByValue> by_value;
    };
    std::vector<std::pair<std::string, const RulePredicate*>> rules_;
    std::vector<std::uint64_t> counts_;
    std::map<std::string, KindWatches, std::less<>> by_kind_;
    Name last_kind_;
    const KindWatches* last_ = nullptr;
    std::uint64_t matched_ = 0;
    std::uint64_t face_types_ = 0;          // bit t: a matched face_draw of type t in this input
    std::vector<std::uint64_t> counted_at_; // per rule: the matched_ of the event it last counted
    void count(const EventRecord& original, const EventRecord& reimpl);
    // Counts `rule` for the event being observed, once however many of its alternatives it satisfies.
    void bump(std::size_t rule) {
        if (counted_at_[rule] == matched_) return;
        counted_at_[rule] = matched_;
        ++counts_[rule];
    }
};

} // namespace refcheck::harness
