// Stream comparison: align the original's and the reimplementation's events, compare the fields of
// each aligned pair, classify every difference as matched, known divergence or unexplained.
#pragma once

#include "refcheck/harness/record.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <set>
#include <string>
#include <vector>

namespace refcheck::harness {

struct FieldDiff {
    std::string name;
    std::string original;
    std::string reimpl;
};

// OriginalFault: the original faulted (unmapped access, invalid instruction, budget or wall limit,
// unimplemented import) or an initialiser the case needs failed; never explained by the registry.
enum class DivergenceKind { FieldMismatch, MissingInReimpl, ExtraInReimpl, OriginalFault };

struct Divergence {
    DivergenceKind kind = DivergenceKind::FieldMismatch;
    std::string input;              // which input of the case (record, view, light, state)
    std::size_t original_index = 0; // event index in the original's stream (of this input)
    std::size_t reimpl_index = 0;
    std::optional<EventRecord> original;
    std::optional<EventRecord> reimpl;
    std::vector<FieldDiff> fields;                            // differing fields, `original -> reimpl`
    std::vector<std::string> explained_by;                    // registry ids when known
    std::vector<EventRecord> original_before, original_after; // five events of context each side
    std::vector<EventRecord> reimpl_before, reimpl_after;
    // A frame's: the pixel the "pixels" field names (x, y in rows of the compared width) and its
    // value on each side; bisect watches who wrote it.
    struct Pixel {
        std::uint32_t x = 0, y = 0;
        std::uint8_t original = 0, reimpl = 0;
    };
    std::optional<Pixel> pixel;
};

struct Counts {
    std::uint64_t compared = 0; // aligned pairs + unaligned events
    std::uint64_t matched = 0;
    std::uint64_t known = 0;
    std::uint64_t unexplained = 0; // includes faults
    std::uint64_t faults = 0;      // faults of the original (each also unexplained)
    // The unexplained divergences that are not faults, by kind: an event of the original the
    // reimplementation lacks, one only the reimplementation has, an aligned pair (or frame) that
    // differs. unexplained = missing + extra + changed + faults.
    std::uint64_t missing = 0, extra = 0, changed = 0;
    std::uint64_t inputs = 0;       // inputs whose streams or frames were compared
    std::uint64_t blank_frames = 0; // blank frames on both sides, set aside (not compared)
    std::map<std::string, std::uint64_t> known_by_cause;
    std::map<std::string, std::uint64_t> by_kind; // events compared per event kind
    // Matched pairs whose documented-fault flags differ (the original's from its own memory,
    // FaceWitness::classify; the reimplementation's from its own computation), per registry id:
    // flagged by the original only, by the reimplementation only. The events agree, so the verdict
    // stands, but the sides disagree on which documented fault applies: a flag rule counts neither
    // such pair (both must flag), and an excuse needs both sides' flag.
    std::map<std::string, std::uint64_t> flag_original_only, flag_reimpl_only;
    void add(const Counts& other);
};

struct CompareOptions {
    std::vector<std::string> allowed; // registry ids the case allows
    std::int64_t tolerance = 0;       // for tolerance entries (e.g. grid rounding)
    std::size_t context = 5;
    std::size_t window = 64; // look-ahead of the greedy re-alignment, past max_edits edits in one input
    // Frames: the colour a blank frame holds, and whether a blank frame compared with a blank frame
    // counts (Case::blank_frames); when not, such a pair is set aside (Counts::blank_frames).
    std::optional<std::uint8_t> clear_colour = {};
    bool blank_frames_count = false;
    // One input's streams are aligned by Myers' shortest edit script over event keys (after their
    // common prefix and suffix) up to this many missing + extra events; past it, greedily.
    std::size_t max_edits = 1024;
};

struct FrameComparison {
    std::size_t differing = 0;           // pixels that differ
    std::size_t unexplained = 0;         // of those, pixels no allowed registry entry explains
    std::vector<std::uint8_t> explained; // per pixel: 1 when it differs and is explained
    std::vector<std::string> causes;     // registry ids that explain the explained pixels
};

// The events of an input that a frame follows: each side's stream as compare() was given it.
struct FrameEvents {
    const std::vector<EventRecord>* original = nullptr;
    const std::vector<EventRecord>* reimpl = nullptr;
};

// Accumulates the comparison of many streams (one per input); keeps the first unexplained divergence
// in full and a bounded sample of known ones.
class Comparator {
public:
    explicit Comparator(CompareOptions options);
    void compare(const std::string& input, const std::vector<EventRecord>& original,
                 const std::vector<EventRecord>& reimpl);
    const Counts& counts() const { return counts_; }
    // Adds the counts of streams compared elsewhere: the parts of a case split below the case level
    // (run/case_part.hpp), added by the run that finishes it.
    void absorb(const Counts& counts) { counts_.add(counts); }
    const std::optional<Divergence>& first_unexplained() const { return first_unexplained_; }
    const std::optional<Divergence>& first_known() const { return first_known_; }
    // Narrowing (Case::only): streams of every input but `input` are not compared (empty: all are).
    void only(std::string input) { only_ = std::move(input); }
    // Whether a stream of the input named by only() was given (so that a narrowing to an input the
    // case lacks is an error, not an empty success).
    bool saw_only() const { return saw_only_; }
    // The inputs whose events were dropped by only(), only_set() or only_matching(), by name.
    const std::set<std::string>& left_out() const { return left_out_; }
    // Narrowing to a set of inputs (Case::only_inputs): streams of other inputs are not compared.
    void only_set(std::set<std::string> inputs) { only_set_ = std::move(inputs); }
    // Narrowing by a predicate over input names (Case::filter): streams of other inputs are not compared.
    void only_matching(std::function<bool(const std::string&)> selects) {
        only_matching_ = std::move(selects);
    }

    // A fault of the original (or a failed initialiser) while the case ran: an unexplained
    // divergence of its own, whose input is the one compared next (the fault happened while that
    // input's original side ran), or `input` when given. `fault` is an event of kind "fault" whose
    // fields carry the routine, the fault kind, EIP, message, registers and disassembly. Until
    // that compare it is filed under the input that began last (begin_input): a family that stops
    // at the fault compares nothing more, and the fault was filed under no input ("").
    void fault(EventRecord fault, std::string input = {});
    // The family's work for `input` begins (CaseContext::begins, for families that run every input
    // in turn): a fault from now on is filed under it until an input is compared. The input counts
    // as reached for only(): it exists. An empty `input` (CaseContext::selected) files faults under
    // no input until the next compare names one.
    void begin_input(const std::string& input) {
        current_input_ = input;
        if (!input.empty() && input == only_) saw_only_ = true;
    }
    // A fault awaiting its input belongs to `input`, though nothing of it will be compared: the
    // original failed in work that input needed (a record's construction), and the input compared
    // next is another's. Its index is 0: the original produced no event of it. The input counts as
    // reached for only(): it exists, and the fault is what became of it.
    void label_faults(const std::string& input);
    // Called with both events of every fully matched pair (all fields equal), and for a matched
    // frame with the synthetic "frame" event of rule_predicates.hpp on both sides (the evidence
    // ledger's predicates count these; run_case.cpp).
    using MatchObserver = std::function<void(const EventRecord& original, const EventRecord& reimpl)>;
    void observe_matches(MatchObserver observer) { observer_ = std::move(observer); }
    // Called when the first stream or frame of an input is compared (an input counted once, as in
    // counts.inputs), before any of its events reach the match observer.
    using InputObserver = std::function<void(const std::string& input)>;
    void observe_inputs(InputObserver observer) { input_observer_ = std::move(observer); }

    // One frame as one event (name, size, SHA-256) per side. A differing frame is a known divergence
    // only when, at every differing pixel, both sides' taints (per-pixel flag sets: `taint` the
    // reimplementation's, `original_taint` the pixels the original wrote while drawing a face whose
    // cause it was witnessed to carry) hold the flag of one allowed registry entry that may explain
    // "pixels". `background`: what both framebuffers held before the draw, when not all the clear
    // colour (a blank frame and a matched frame's drawn pixels are counted against it).
    // `events`: the input's event streams the frame follows (compared by compare() just before), so
    // that a divergent frame stands after them, with them as its context: it was put at event #0,
    // with no events before it, whatever the input had drawn.
    FrameComparison compare_frame(const std::string& input, const FrameEvents& events,
                                  std::span<const std::uint8_t> original,
                                  std::span<const std::uint8_t> reimpl, std::span<const std::uint8_t> taint,
                                  std::span<const std::uint8_t> original_taint, std::uint32_t width,
                                  std::span<const std::uint8_t> background = {});

private:
    void record(Divergence d, const std::vector<EventRecord>& a, const std::vector<EventRecord>& b);
    void set_context(Divergence& d, const std::vector<EventRecord>& a,
                     const std::vector<EventRecord>& b) const;
    bool classify(Divergence& d) const;
    void count_flag_disagreement(std::uint32_t original, std::uint32_t reimpl);
    bool skipped(const std::string& input); // not the input only() names
    CompareOptions options_;
    Counts counts_;
    std::optional<Divergence> first_unexplained_;
    std::optional<Divergence> first_known_;
    // Labels a fault awaiting its input with `input`; with the input's streams `a` and `b`, the fault
    // stands after the original's events of it (they came before it in the call it ended), with
    // them as its context, at the reimplementation's event of the same index.
    void label_pending_faults(const std::string& input, const std::vector<EventRecord>* a,
                              const std::vector<EventRecord>* b);
    std::string only_;
    std::set<std::string> only_set_;
    std::set<std::string> left_out_;
    std::function<bool(const std::string&)> only_matching_;
    bool saw_only_ = false;
    // The input counts.inputs last counted: a stream and a frame compared for one input count once.
    std::string counted_input_;
    void count_input(const std::string& input) {
        if (counts_.inputs != 0 && input == counted_input_) return;
        ++counts_.inputs;
        counted_input_ = input;
        if (input_observer_) input_observer_(input);
    }
    bool fault_pending_input_ = false; // the first unexplained divergence is a fault awaiting its input
    std::string current_input_;        // begin_input's
    MatchObserver observer_;
    InputObserver input_observer_;
};

} // namespace refcheck::harness
