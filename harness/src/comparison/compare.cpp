#include "refcheck/harness/compare.hpp"

#include "comparison/align.hpp"
#include "refcheck/harness/divergences.hpp"
#include "refcheck/harness/rule_predicates.hpp"

#include <algorithm>
#include <cstdlib>

namespace refcheck::harness {

void Counts::add(const Counts& o) {
    compared += o.compared;
    matched += o.matched;
    known += o.known;
    unexplained += o.unexplained;
    faults += o.faults;
    missing += o.missing;
    extra += o.extra;
    changed += o.changed;
    inputs += o.inputs;
    blank_frames += o.blank_frames;
    for (const auto& [k, v] : o.known_by_cause) known_by_cause[k] += v;
    for (const auto& [k, v] : o.by_kind) by_kind[k] += v;
    for (const auto& [k, v] : o.flag_original_only) flag_original_only[k] += v;
    for (const auto& [k, v] : o.flag_reimpl_only) flag_reimpl_only[k] += v;
}

Comparator::Comparator(CompareOptions options) : options_(std::move(options)) {}

void Comparator::count_flag_disagreement(std::uint32_t original, std::uint32_t reimpl) {
    for (const KnownDivergence& k : known_divergences()) {
        if ((original & k.flag) && !(reimpl & k.flag)) ++counts_.flag_original_only[std::string(k.id)];
        if ((reimpl & k.flag) && !(original & k.flag)) ++counts_.flag_reimpl_only[std::string(k.id)];
    }
}

namespace {

// An event's flags as the registry ids they stand for ("(none)" for none), as a divergence shows them.
std::string flag_names(std::uint32_t flags) {
    std::string out;
    for (const KnownDivergence& k : known_divergences())
        if (flags & k.flag) out += (out.empty() ? "" : ", ") + std::string(k.id);
    return out.empty() ? "(none)" : out;
}

// Value equality with the integer and list alternatives (nearly every field) tested directly, not
// through std::variant's generic visit.
bool same_value(const Value& a, const Value& b) {
    if (a.index() != b.index()) return false;
    if (const auto* x = std::get_if<std::int64_t>(&a)) return *x == *std::get_if<std::int64_t>(&b);
    if (const auto* x = std::get_if<IntList>(&a)) return *x == *std::get_if<IntList>(&b);
    if (const auto* x = std::get_if<bool>(&a)) return *x == *std::get_if<bool>(&b);
    return a == b;
}

std::vector<FieldDiff> diff_fields(const EventRecord& a, const EventRecord& b) {
    // The common case first: both sides list the same fields in the same order (as every family
    // builds them) with the same values. Nothing differs, and no field is looked up by name.
    if (a.fields.size() == b.fields.size()) {
        bool same = true;
        for (std::size_t i = 0; same && i < a.fields.size(); ++i)
            same = same_value(a.fields[i].value, b.fields[i].value) && a.fields[i].name == b.fields[i].name;
        if (same) return {};
    }
    // By name, a repeated name by occurrence: the k-th field of a name on one side against the k-th
    // of that name on the other (looking each name up once let [x=1] equal [x=1, x=2]).
    const auto occurrence = [](const EventRecord& e, std::size_t i) {
        std::size_t k = 0;
        for (std::size_t j = 0; j < i; ++j) k += e.fields[j].name == e.fields[i].name ? 1 : 0;
        return k;
    };
    const auto nth = [](const EventRecord& e, const Name& name, std::size_t k) -> const Value* {
        for (const auto& f : e.fields)
            if (f.name == name && k-- == 0) return &f.value;
        return nullptr;
    };
    const auto label = [](const Name& name, std::size_t k) {
        return k == 0 ? name.str() : name.str() + " (occurrence " + std::to_string(k + 1) + ")";
    };
    std::vector<FieldDiff> out;
    for (std::size_t i = 0; i < a.fields.size(); ++i) {
        const auto& fa = a.fields[i];
        const std::size_t k = occurrence(a, i);
        const Value* vb = nth(b, fa.name, k);
        if (!vb) {
            out.push_back({label(fa.name, k), to_string(fa.value), "(absent)"});
        } else if (!(*vb == fa.value)) {
            out.push_back({label(fa.name, k), to_string(fa.value), to_string(*vb)});
        }
    }
    for (std::size_t i = 0; i < b.fields.size(); ++i) {
        const std::size_t k = occurrence(b, i);
        if (!nth(a, b.fields[i].name, k))
            out.push_back({label(b.fields[i].name, k), "(absent)", to_string(b.fields[i].value)});
    }
    return out;
}

// Element `e` of an integer value (-1: the scalar itself); nullopt when there is none.
std::optional<std::int64_t> element_of(const Value& v, std::int32_t e) {
    if (const auto* x = std::get_if<std::int64_t>(&v)) return e == -1 ? std::optional(*x) : std::nullopt;
    const auto* xs = std::get_if<IntList>(&v);
    if (!xs || e < 0 || static_cast<std::size_t>(e) >= xs->size()) return std::nullopt;
    return (*xs)[static_cast<std::size_t>(e)];
}

std::vector<EventRecord> slice(const std::vector<EventRecord>& s, std::size_t from, std::size_t to) {
    from = std::min(from, s.size());
    to = std::min(to, s.size());
    return {s.begin() + static_cast<std::ptrdiff_t>(from), s.begin() + static_cast<std::ptrdiff_t>(to)};
}

} // namespace

// The elements in which two values differ: {-1} for a scalar; nullopt when two lists differ in
// length (no element-wise excuse can cover that).
std::optional<std::vector<std::int32_t>> differing_elements(const Value& a, const Value& b) {
    const auto* xs = std::get_if<IntList>(&a);
    const auto* ys = std::get_if<IntList>(&b);
    if (!xs || !ys) return std::vector<std::int32_t>{-1};
    if (xs->size() != ys->size()) return std::nullopt;
    std::vector<std::int32_t> out;
    for (std::size_t i = 0; i < xs->size(); ++i)
        if ((*xs)[i] != (*ys)[i]) out.push_back(static_cast<std::int32_t>(i));
    return out;
}

// A field mismatch is known when every differing element of every differing field is explained by
// an allowed registry entry that names the field and whose cause BOTH sides carry for that element
// (EventRecord::excuses: the original's from its own execution and memory, the reimplementation's
// from its own fault detection). Missing or extra events are never explained.
bool Comparator::classify(Divergence& d) const {
    if (d.kind != DivergenceKind::FieldMismatch) return false;
    std::vector<std::string> used;
    for (const auto& diff : d.fields) {
        const Value* va = d.original->find(diff.name);
        const Value* vb = d.reimpl->find(diff.name);
        if (!va || !vb) return false;
        const auto elements = differing_elements(*va, *vb);
        if (!elements) return false;
        bool explained = false;
        for (const auto& id : options_.allowed) {
            const KnownDivergence* k = find_known_divergence(id);
            if (!k || std::find(k->fields.begin(), k->fields.end(), diff.name) == k->fields.end()) continue;
            // A tolerance entry (div.grid_tolerance) explains an element only when the original's
            // value lies within the projected box the case's tolerance draws around the
            // reimplementation's camera-space point for it.
            auto admitted = [&](std::int32_t e) {
                if (!k->tolerance) return true;
                const auto camera = d.reimpl->camera_of(k->flag, diff.name, e);
                const auto value = element_of(*va, e);
                return camera && value &&
                       within_grid_tolerance(diff.name, *camera, options_.tolerance, *value);
            };
            const bool both = std::all_of(elements->begin(), elements->end(), [&](std::int32_t e) {
                return d.original->excuses_element(k->flag, diff.name, e) &&
                       d.reimpl->excuses_element(k->flag, diff.name, e) && admitted(e);
            });
            if (!both) continue;
            explained = true;
            if (std::find(used.begin(), used.end(), k->id) == used.end()) used.emplace_back(k->id);
            break;
        }
        if (!explained) return false;
    }
    d.explained_by = std::move(used);
    return true;
}

void Comparator::record(Divergence d, const std::vector<EventRecord>& a, const std::vector<EventRecord>& b) {
    const bool known = classify(d);
    if (known) {
        ++counts_.known;
        for (const auto& id : d.explained_by) ++counts_.known_by_cause[id];
    } else {
        ++counts_.unexplained;
        ++(d.kind == DivergenceKind::MissingInReimpl ? counts_.missing
           : d.kind == DivergenceKind::ExtraInReimpl ? counts_.extra
                                                     : counts_.changed);
    }
    auto& slot = known ? first_known_ : first_unexplained_;
    if (slot) return;
    set_context(d, a, b);
    slot = std::move(d);
}

void Comparator::set_context(Divergence& d, const std::vector<EventRecord>& a,
                             const std::vector<EventRecord>& b) const {
    const std::size_t c = options_.context;
    d.original_before = slice(a, d.original_index >= c ? d.original_index - c : 0, d.original_index);
    d.original_after = slice(a, d.original_index + 1, d.original_index + 1 + c);
    d.reimpl_before = slice(b, d.reimpl_index >= c ? d.reimpl_index - c : 0, d.reimpl_index);
    d.reimpl_after = slice(b, d.reimpl_index + 1, d.reimpl_index + 1 + c);
}

bool Comparator::skipped(const std::string& input) {
    const auto leave_out = [this, &input] {
        left_out_.insert(input);
        return true;
    };
    if (only_matching_ && !only_matching_(input)) return leave_out();
    if (!only_set_.empty()) return only_set_.count(input) == 0 ? leave_out() : false;
    if (only_.empty()) return false;
    if (input != only_) return leave_out();
    saw_only_ = true;
    return false;
}

void Comparator::fault(EventRecord fault, std::string input) {
    ++counts_.faults;
    ++counts_.unexplained;
    if (first_unexplained_) return;
    Divergence d;
    d.kind = DivergenceKind::OriginalFault;
    fault_pending_input_ = input.empty();
    d.input = input.empty() ? current_input_ : std::move(input);
    d.original = std::move(fault);
    first_unexplained_ = std::move(d);
}

void Comparator::label_faults(const std::string& input) {
    if (input == only_) saw_only_ = true;
    label_pending_faults(input, nullptr, nullptr);
}

void Comparator::label_pending_faults(const std::string& input, const std::vector<EventRecord>* a,
                                      const std::vector<EventRecord>* b) {
    if (!fault_pending_input_) return;
    Divergence& d = *first_unexplained_;
    d.input = input;
    fault_pending_input_ = false;
    // It was put at event #0, with no events before it, whatever the call had recorded first.
    if (a && b) {
        d.original_index = a->size();
        d.reimpl_index = std::min(a->size(), b->size());
        set_context(d, *a, *b);
        // No event of the reimplementation's is the fault's counterpart: the one at its index is
        // context, the first after the fault.
        d.reimpl_after = slice(*b, d.reimpl_index, d.reimpl_index + options_.context);
    }
}

void Comparator::compare(const std::string& input, const std::vector<EventRecord>& a,
                         const std::vector<EventRecord>& b) {
    label_pending_faults(input, &a, &b);
    if (skipped(input)) return;
    count_input(input);
    // Events come in runs of one kind: the last kind's counter is reused without a map lookup.
    auto last = counts_.by_kind.end();
    auto count_kind = [&](const EventRecord& e) {
        if (last == counts_.by_kind.end() || last->first != e.kind)
            last = counts_.by_kind.try_emplace(e.kind.str()).first;
        ++last->second;
    };
    for (const AlignStep& step : align_streams(a, b, options_.max_edits, options_.window)) {
        ++counts_.compared;
        std::vector<FieldDiff> diffs;
        if (step.kind == AlignStep::Pair) {
            count_kind(a[step.original]);
            diffs = diff_fields(a[step.original], b[step.reimpl]);
            const std::uint32_t of = a[step.original].flags, rf = b[step.reimpl].flags;
            if (diffs.empty() && of == rf) {
                ++counts_.matched;
                if (observer_) observer_(a[step.original], b[step.reimpl]);
                continue;
            }
            // Different flags: the sides disagree on which documented fault the event shows (each
            // classified it from its own execution and memory), so one of them, or the profile's
            // layout the original's witness read it by, is wrong. A difference no registry entry
            // explains, whether or not other fields differ too: with equal fields it was counted
            // beside a match, and beside fields the element excuses explain it was lost.
            if (of != rf) {
                count_flag_disagreement(of, rf);
                diffs.push_back({"flags", flag_names(of), flag_names(rf)});
            }
        }
        // A divergence: built only here, matched pairs cost no copies.
        Divergence d;
        d.input = input;
        d.original_index = step.original;
        d.reimpl_index = step.reimpl;
        if (step.kind == AlignStep::Pair) {
            const EventRecord& x = a[step.original];
            const EventRecord& y = b[step.reimpl];
            d.original = x;
            d.reimpl = y;
            d.fields = std::move(diffs);
        } else if (step.kind == AlignStep::Missing) {
            d.kind = DivergenceKind::MissingInReimpl;
            d.original = a[step.original];
            count_kind(a[step.original]);
        } else {
            d.kind = DivergenceKind::ExtraInReimpl;
            d.reimpl = b[step.reimpl];
            count_kind(b[step.reimpl]);
        }
        record(std::move(d), a, b);
    }
}

} // namespace refcheck::harness

namespace refcheck::harness {

FrameComparison Comparator::compare_frame(const std::string& input, const FrameEvents& events,
                                          std::span<const std::uint8_t> original,
                                          std::span<const std::uint8_t> reimpl,
                                          std::span<const std::uint8_t> taint,
                                          std::span<const std::uint8_t> original_taint, std::uint32_t width,
                                          std::span<const std::uint8_t> background) {
    FrameComparison fc;
    fc.explained.assign(original.size(), 0);
    label_pending_faults(input, events.original, events.reimpl);
    if (skipped(input)) return fc;
    count_input(input);
    if (options_.clear_colour && !options_.blank_frames_count && original.size() == reimpl.size()) {
        const std::uint8_t clear = *options_.clear_colour;
        auto blank = [clear, background](std::span<const std::uint8_t> px) {
            if (!background.empty())
                return std::equal(px.begin(), px.end(), background.begin(), background.end());
            return std::all_of(px.begin(), px.end(), [clear](std::uint8_t p) { return p == clear; });
        };
        if (blank(original) && blank(reimpl)) {
            ++counts_.blank_frames;
            return fc;
        }
    }
    std::uint32_t pixel_flags = 0; // flags of allowed entries that may explain pixels
    for (const auto& id : options_.allowed)
        if (const KnownDivergence* k = find_known_divergence(id))
            if (std::find(k->fields.begin(), k->fields.end(), "pixels") != k->fields.end())
                pixel_flags |= k->flag;
    std::uint32_t used_flags = 0;
    // The pixel the divergence names: the first unexplained one, or the first differing one when
    // every difference is explained (an unexplained frame once named an explained pixel first).
    std::optional<std::size_t> first, first_differing;
    for (std::size_t p = 0; p < original.size() && p < reimpl.size(); ++p) {
        if (original[p] == reimpl[p]) continue;
        ++fc.differing;
        if (!first_differing) first_differing = p;
        // Excused only where both sides' per-pixel evidence carries the same allowed cause.
        const std::uint32_t t =
            (p < taint.size() ? taint[p] : 0) & (p < original_taint.size() ? original_taint[p] : 0);
        if (t & pixel_flags) {
            fc.explained[p] = 1;
            used_flags |= t & pixel_flags;
        } else {
            ++fc.unexplained;
            if (!first) first = p;
        }
    }
    if (!first) first = first_differing;
    for (const auto& k : known_divergences())
        if (used_flags & k.flag) fc.causes.emplace_back(k.id);
    if (original.size() != reimpl.size()) ++fc.unexplained;
    ++counts_.compared;
    ++counts_.by_kind["frame"];
    if (fc.differing == 0 && original.size() == reimpl.size()) {
        ++counts_.matched;
        if (observer_) {
            const EventRecord e = matched_frame_event(input, original, background);
            observer_(e, e);
        }
        return fc;
    }
    Divergence d;
    d.input = input;
    // The frame follows the input's events on each side: it stands after them, with them before it.
    static const std::vector<EventRecord> none;
    const std::vector<EventRecord>& a = events.original ? *events.original : none;
    const std::vector<EventRecord>& b = events.reimpl ? *events.reimpl : none;
    d.original_index = a.size();
    d.reimpl_index = b.size();
    // Each side's frame by its own facts: its size and the pixels it drew. The count of pixels that
    // differ is the comparison's, in the field diff; it was shown as a field of both sides' events,
    // equal, as if each had produced it.
    auto event = [&](std::span<const std::uint8_t> px) {
        EventRecord e = {"frame",
                         {{"size", static_cast<std::int64_t>(px.size())},
                          {"drawn_pixels", static_cast<std::int64_t>(frame_drawn_pixels(px, background))}},
                         0,
                         0};
        return e;
    };
    d.original = event(original);
    d.reimpl = event(reimpl);
    if (original.size() != reimpl.size())
        d.fields.push_back({"size", std::to_string(original.size()), std::to_string(reimpl.size())});
    if (first) {
        const std::size_t p = *first;
        d.pixel = Divergence::Pixel{static_cast<std::uint32_t>(p % width),
                                    static_cast<std::uint32_t>(p / width), original[p], reimpl[p]};
        d.fields.push_back({"pixels",
                            std::to_string(fc.differing) + " pixels differ; first at (" +
                                std::to_string(p % width) + "," + std::to_string(p / width) +
                                "): " + std::to_string(original[p]),
                            std::to_string(reimpl[p])});
    }
    auto keep = [&](std::optional<Divergence>& slot) {
        if (slot) return;
        set_context(d, a, b);
        slot = std::move(d);
    };
    if (fc.unexplained == 0) {
        d.explained_by = fc.causes;
        ++counts_.known;
        for (const auto& id : d.explained_by) ++counts_.known_by_cause[id];
        keep(first_known_);
    } else {
        ++counts_.unexplained;
        ++counts_.changed;
        keep(first_unexplained_);
    }
    return fc;
}

} // namespace refcheck::harness
