// The routine families a case can run. Each compares one kind of output of the original with the
// reimplementation's, feeding a Comparator and filling the family's part of the case report.
#pragma once

#include "refcheck/harness/filter.hpp"

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/compare.hpp"
#include "refcheck/harness/original.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/harness/run.hpp"
#include "refcheck/events.hpp"
#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/rasteriser.hpp"
#include "run/case_observer.hpp"
#include "run/workers.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace refcheck::harness {

// Watches the original's side of the one input a narrowed re-run selects (bisect; never on a
// default run). The program family calls begin() just before that input's draw call, event(k) from
// the recorder's hook just before the original's event #k of the input is recorded (the guest
// stopped there), end() after the call, and streams() with the input's two compared streams and
// the reimplementation's events as emitted (with program offsets and control flow).
class InputProbe {
public:
    virtual ~InputProbe() = default;
    virtual void begin(Original& original) = 0;
    virtual void event(Original& original, std::size_t index) = 0;
    virtual void end(Original& original) = 0;
    virtual void streams(const std::vector<EventRecord>& original, const std::vector<EventRecord>& reimpl,
                         const std::vector<events::Event>& emitted) = 0;
};

// The original failed where the case needs it to succeed (a fault, or an initialiser returning
// failure): already recorded in the comparator as an unexplained divergence; the family stops, and
// the case is divergent (run_case catches it).
struct OriginalFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What both sides start from: the original booted (objects initialised), the archive bytes read.
struct CaseContext {
    const Case& c;
    const Environment& env;
    Original& original;
    std::vector<std::uint8_t> models;   // 3DDATA/3DOBJS.BIN
    std::vector<std::uint8_t> textures; // 3DDATA/OBJTEXT.BIN
    std::vector<std::uint8_t> palette;  // 3DPAL.RGB
    Comparator& comparator;
    ojson& report;                        // the family adds "metrics", "buffers", ...
    std::uint64_t events = 0;             // events produced by both sides
    const Injection* injection = nullptr; // seeded faults (tests)
    std::vector<std::pair<std::string, std::vector<std::uint8_t>>>* files = nullptr; // pictures to write
    InputProbe* probe = nullptr; // bisect's narrowed re-run only
    bool inputs_started = false; // the boot is over: faults belong to the inputs that follow
    // The reimplementation's refusal of each archive the data root lacks (reimpl::read_archive);
    // that archive's bytes above are then empty.
    std::vector<reimpl::FormatError> missing = {};
    // How many times a narrowing (Case::only, only_inputs, filter, a case observer) left an input or
    // a group of inputs out. A case is narrowed when this is not zero, not merely when a narrowing
    // is set: `--filter '*'` narrows nothing, so the checks that need every input (every kind in
    // "compares" compared, an invalid program's break reached) still apply.
    // The inputs (or groups of inputs: "record 12 ") a narrowing left out, by name: a family that
    // skips an input's work and the Comparator that drops an input's events may both see it, and it
    // counts once (left_out_count()). Nothing is added on a run that is not narrowed.
    mutable std::set<std::string> left_out{};
    std::uint64_t left_out_count() const {
        std::uint64_t n = left_out.size();
        for (const auto& input : comparator.left_out()) n += left_out.count(input) ? 0 : 1;
        return n;
    }
    bool narrowed() const { return !left_out.empty() || !comparator.left_out().empty(); }

    std::optional<reimpl::FormatError> missing_archive(std::string_view archive) const {
        for (const auto& e : missing)
            if (e.where().archive == archive) return e;
        return std::nullopt;
    }

    // Case::only narrows a case to one input: whether `input` is compared, and whether any input
    // whose name starts with `prefix` ("record 12 ") is (families skip the work of the others).
    // A selected input is about to run: a worker's breadcrumb notes it (workers.hpp).
    // A case observer (refcheck mutate, case_observer.hpp) may skip a selected input.
    bool selected(std::string_view input) const {
        stop_after_overrun();
        bool yes = narrowed_to(input);
        if (yes)
            if (CaseObserver* observer = case_observer()) yes = observer->input(input, true);
        if (yes) {
            note_input(input);
            // Its faults await the compare that names them, as before any begins(): work shared
            // between inputs runs after the last one selected (the next record's construction), and
            // its fault was filed under that input, whose narrowed re-run never reaches it.
            comparator.begin_input({});
        } else {
            left_out.emplace(input);
        }
        return yes;
    }
    // Whether Case::only, Case::only_inputs and Case::filter leave `input` to be compared (nobody is
    // told: for a family that has announced it with begins()).
    bool narrowed_to(std::string_view input) const {
        bool yes = c.only_inputs.empty() ? c.only.empty() || c.only == input
                                         : c.only_inputs.count(std::string(input)) != 0;
        if (yes && c.filter) yes = c.filter->selects_input(c.name, input);
        if (!yes) left_out.emplace(input);
        return yes;
    }
    // An input of a family that runs every input (its state carries on to the next: mobile steps,
    // receiver queries, construction, palettes) begins, before any of its work: a case observer and
    // a worker's breadcrumb are told.
    void begins(std::string_view input) const {
        stop_after_overrun();
        if (CaseObserver* observer = case_observer()) observer->input(input, false);
        note_input(input);
        comparator.begin_input(std::string(input));
    }
    // The first call over its instruction budget stops the case at the next input (its fault is
    // already a divergence).
    void stop_after_overrun() const {
        if (original.overran())
            throw OriginalFailed("a call of the original ran over its instruction budget (limits: " +
                                 std::to_string(c.instructions_per_call) + " per call, " +
                                 std::to_string(c.instructions_per_case) + " per case)");
    }
    bool selects_within(std::string_view prefix) const {
        bool yes = true;
        if (CaseObserver* observer = case_observer(); observer && !observer->within(prefix)) {
            yes = false;
        } else if (!c.only_inputs.empty()) {
            const auto it = c.only_inputs.lower_bound(std::string(prefix));
            yes = it != c.only_inputs.end() && it->starts_with(prefix);
        } else {
            yes = c.only.empty() || c.only.starts_with(prefix);
        }
        if (!yes) left_out.emplace(prefix);
        return yes;
    }
};

// Checks the result of a call the case needs to succeed: a fault is already a divergence (see
// Original::on_fault); a value other than `expected` (or, with expected = nonzero, a zero) becomes
// one, an event of kind "fault" with fault "returned_failure". Throws OriginalFailed in both cases.
enum class Expect { Zero, Nonzero };
void require_success(CaseContext& ctx, const emu::CallResult& r, const std::string& call, Expect expect);

// run_case with a probe on the selected input (harness/src/bisect/bisect.cpp; run_case passes none).
CaseResult run_case_with(const Case& c, const Environment& env, const Injection& injection,
                         InputProbe* probe);

// The head every case report starts with (schema, case, family, description, rules, allow,
// compares; status "error" until the case says otherwise).
ojson case_report_head(const Case& c);

// Routines and globals each family needs from the profile (checked before anything runs).
std::vector<std::string> needed_symbols(Family f);

void run_loader(CaseContext& ctx);
void run_palette(CaseContext& ctx);
void run_construct(CaseContext& ctx);
void run_program(CaseContext& ctx);
void run_shadow(CaseContext& ctx);
void run_mobile(CaseContext& ctx);
void run_receiver(CaseContext& ctx);
void run_scene(CaseContext& ctx);

// Which frames a case shows (the report's "frame_selection", stated on the HTML page): every frame
// that differs, plus a sample of those that do not (`sample_rule` says which, e.g. "the first drawn
// frame").
class FramePictures {
public:
    FramePictures(std::string sample_rule, std::size_t samples)
        : sample_rule_(std::move(sample_rule)), samples_(samples) {}
    // Counts the frame; whether its pictures are to be saved (it differs, or it is a candidate for
    // the sample and the sample is not yet full).
    bool choose(bool differing, bool sample_candidate);
    ojson json() const;

private:
    std::string sample_rule_;
    std::size_t samples_;
    std::uint64_t compared_ = 0, differing_ = 0, shown_differing_ = 0, shown_sample_ = 0;
};

// The original's framebuffer where and as large as the profile says (data "framebuffer": fb.size on
// the original's side), cleared to the clear colour before a draw and read after it. The
// reimplementation's frame is 320 x 200 (fb.size): a profile giving another size makes every frame
// differ in size, an unexplained divergence, and the frame's `size` says so on each side.
class GuestFramebuffer {
public:
    explicit GuestFramebuffer(Original& original);
    // Fills it with background(): where every frame of the program, shadow and scene families starts.
    void fill_background() const;
    // marked_background at the framebuffer's size (the profile's).
    const std::vector<std::uint8_t>& background() const { return background_; }
    // Writes `pixels` from the framebuffer's start (at most its size).
    void fill(std::span<const std::uint8_t> pixels) const;
    std::vector<std::uint8_t> read() const;
    std::uint32_t size() const { return size_; }

private:
    Original& o_;
    std::uint32_t address_ = 0, size_ = 0;
    std::vector<std::uint8_t> background_;
};

// Starting pixels that show a routine clearing the framebuffer (scene.clear, fb.clear): the clear
// colour with a mark (the next index) at every 8th pixel of every 8th row (rows of 320, fb.size).
// A clear to any one colour erases the marks nothing paints over; with both sides started at the
// clear colour alone, an original clearing to it looked like one that never clears.
std::vector<std::uint8_t> marked_background(std::size_t size);
// A reimplementation frame started from marked_background (its pixels; taint clear).
reimpl::Frame marked_frame();
// Pixels that differ from `background` (a pixel past it counts): what a draw changed.
std::size_t changed_pixels(std::span<const std::uint8_t> pixels, std::span<const std::uint8_t> background);

// Writes the original / reimplementation / difference pictures of a 320x200 frame beside the report
// and lists them under the report's "frames" (a frame of another size is pictured as its first
// 320 x 200 pixels, padded with the clear colour).
void save_frame_pictures(CaseContext& ctx, const std::string& input, std::size_t n,
                         std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                         const FrameComparison& fc, std::span<const std::uint8_t> palette);

// A report figure as each side holds it: {"original": ..., "reimpl": ...} (a census the two sides
// count for themselves, never one side's figure printed for both).
inline ojson two_sided(std::uint64_t original, std::uint64_t reimpl) {
    return {{"original", original}, {"reimpl", reimpl}};
}

// A routine's result compared as one event: what both sides must refuse (or accept) with the
// result each gives (abi.init_objects, abi.init_palette, scene.params.valid), keyed by the routine.
// `reason`: why the side refused, when the case compares it (Rejection::reason).
EventRecord rejection_event(const std::string& routine, std::int64_t result,
                            std::optional<std::string> reason = std::nullopt);
// Why the original says it refused, where its profile can say: the name its `initialise_error`
// value has among the profile's "values" ("(unnamed: N)" for a value it names nothing). nullopt
// when the profile has no such global with an address, or no entry `expected` (the reason the
// caller would compare): the image's number for it is not known, and the reason is not compared.
std::optional<std::string> initialise_error_name(const Original& original, const std::string& expected);

// A large buffer as one event: its name, size and SHA-256 (apitrace's blob comparison).
EventRecord buffer_event(const std::string& kind, const std::string& name,
                         std::span<const std::uint8_t> bytes);
// Differing byte ranges [begin, end) of two buffers (at most `limit`), for the report.
ojson differing_ranges(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                       std::size_t limit = 16);
// Compares two buffers as one event each, as the input "KIND NAME", and records their differing
// ranges when they differ.
void compare_buffers(CaseContext& ctx, const std::string& kind, const std::string& name,
                     std::span<const std::uint8_t> original, std::span<const std::uint8_t> reimpl);
// One buffer of each side, compared as one event each.
struct BufferPair {
    std::string kind, name;
    std::span<const std::uint8_t> original, reimpl;
};
// Compares buffers as one input: each side's stream is `leading` (events before them, e.g. a
// rejection) then one event per buffer, in order, so a divergence's index counts within the input;
// records each pair's differing ranges when they differ.
void compare_buffers(CaseContext& ctx, const std::string& input, const std::vector<BufferPair>& buffers,
                     std::vector<EventRecord> original_leading = {},
                     std::vector<EventRecord> reimpl_leading = {});

} // namespace refcheck::harness
