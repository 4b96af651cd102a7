#include "refcheck/harness/rule_predicates.hpp"

#include "refcheck/events.hpp"
#include "refcheck/harness/divergences.hpp"
#include "refcheck/reimpl/rasteriser.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <optional>

namespace refcheck::harness {

namespace {

constexpr FieldType I = FieldType::Int, B = FieldType::Bool, S = FieldType::String, L = FieldType::List;

} // namespace

// What the recorders (recorder.cpp, family_*.cpp, buffers.cpp) and Comparator::compare_frame put in
// the events the Comparator matches. The reimplementation's events are converted to the same shape.
const std::vector<EventKindFields>& event_kinds() {
    static const std::vector<EventKindFields> kinds = {
        {"face_draw",
         {{"record", I},
          {"path", L},
          {"offset", I},
          {"opcode", I},
          {"secondary", B},
          {"clipped", B},
          {"type", I},
          {"material", L},
          {"vertices", L},
          {"texture", I},
          {"u", L},
          {"v", L},
          {"face_normal", I},
          {"vertex_normals", L},
          {"face_level", I},
          {"vertex_levels", L},
          {"screen_x", L},
          {"screen_y", L},
          {"screen_z", L}}},
        {"attached_draw",
         {{"record", I}, {"path", L}, {"slot", I}, {"model", I}, {"position", L}, {"rotation", L}}},
        {"winding_decision", {{"record", I}, {"path", L}, {"winding", I}}},
        {"control_flow", {{"record", I}, {"path", L}, {"offset", I}, {"opcode", I}, {"next", I}}},
        {"archive", {{"name", S}, {"size", I}, {"sha256", S}}},
        {"table", {{"name", S}, {"size", I}, {"sha256", S}}},
        {"texture", {{"name", S}, {"size", I}, {"sha256", S}}},
        {"rejection", {{"routine", S}, {"result", I}, {"reason", S}}},
        {"instance",
         {{"root", I},
          {"placement", I},
          {"path", L},
          {"record", I},
          {"position", L},
          {"rotation", L},
          {"slots", I}}},
        {"queue_entry", {{"step", I}, {"index", I}, {"id", I}, {"op", S}}},
        {"sector_list", {{"step", I}, {"sector", I}, {"ids", L}, {"op", S}}},
        {"sector_map", {{"occupied", L}}},
        {"departed", {{"step", I}, {"id", I}, {"struct", L}, {"op", S}}},
        {"receiver_query",
         {{"query", I},
          {"caster", I},
          {"sun_y", I},
          {"over_clouds", I},
          {"at_bound", I},
          {"receiver", I},
          {"height", I}}},
        {"terrain_sample", {{"x", I}, {"z", I}, {"height", I}}},
        {"shadow_face",
         {{"mesh", I}, {"u", L}, {"v", L}, {"levels", L}, {"screen_x", L}, {"screen_y", L}, {"screen_z", L}}},
        {"terrain_face",
         {{"material", L},
          {"clipped", B},
          {"type", I},
          {"vertices", L},
          {"face_level", I},
          {"u", L},
          {"v", L},
          {"vertex_levels", L},
          {"screen_x", L},
          {"screen_y", L},
          {"screen_z", L}}},
        {"scene_queue", {{"index", I}, {"id", I}, {"built", I}}},
        {"plane_query", {{"caster", I}, {"terrain_height", I}, {"height", I}, {"receiver", I}}},
        {"shadow_draw", {{"caster", I}, {"plane_height", I}}},
        {"object_draw", {{"id", I}}},
        {"frame", {{"input", S}, {"size", I}, {"drawn_pixels", I}, {"types", L}}},
    };
    return kinds;
}

std::size_t frame_drawn_pixels(std::span<const std::uint8_t> pixels,
                               std::span<const std::uint8_t> background) {
    if (background.empty()) return reimpl::drawn_pixels(pixels);
    std::size_t drawn = 0;
    for (std::size_t p = 0; p < pixels.size(); ++p)
        drawn += p >= background.size() || pixels[p] != background[p];
    return drawn;
}

EventRecord matched_frame_event(const std::string& input, std::span<const std::uint8_t> pixels,
                                std::span<const std::uint8_t> background) {
    const std::size_t drawn = frame_drawn_pixels(pixels, background);
    return {"frame",
            {{"input", input},
             {"size", static_cast<std::int64_t>(pixels.size())},
             {"drawn_pixels", static_cast<std::int64_t>(drawn)},
             {"types", std::vector<std::int64_t>{}}},
            1,
            0};
}

bool RulePredicate::needs_coverage() const {
    return std::any_of(alternatives.begin(), alternatives.end(),
                       [](const auto& a) { return a.source == PredicateAlternative::Source::Routine; });
}

namespace {

using Op = PredicateCondition::Op;
using Scope = PredicateCondition::Scope;

// Blank-separated words; a double-quoted word may hold blanks (the quotes are dropped).
std::vector<std::string> words(std::string_view text) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto b = text.find_first_not_of(" \t", at);
        if (b == std::string_view::npos) break;
        if (text[b] == '"') {
            const auto e = text.find('"', b + 1);
            if (e == std::string_view::npos) throw PredicateError("a quoted word has no closing quote");
            out.emplace_back(text.substr(b + 1, e - b - 1));
            at = e + 1;
            continue;
        }
        const auto e = std::min(text.find_first_of(" \t", b), text.size());
        out.emplace_back(text.substr(b, e - b));
        at = e;
    }
    return out;
}

std::optional<std::int64_t> integer(std::string_view s) {
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

std::optional<Op> comparison(std::string_view s) {
    if (s == "=") return Op::Eq;
    if (s == "!=") return Op::Ne;
    if (s == "<") return Op::Lt;
    if (s == "<=") return Op::Le;
    if (s == ">") return Op::Gt;
    if (s == ">=") return Op::Ge;
    return std::nullopt;
}

std::vector<std::pair<std::int64_t, std::int64_t>> parse_list(const std::string& s) {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    std::size_t at = 0;
    while (at <= s.size()) {
        const auto comma = std::min(s.find(',', at), s.size());
        const std::string item = s.substr(at, comma - at);
        const auto dots = item.find("..");
        const auto lo = integer(dots == std::string::npos ? item : item.substr(0, dots));
        const auto hi = dots == std::string::npos ? lo : integer(item.substr(dots + 2));
        if (!lo || !hi || *hi < *lo)
            throw PredicateError("\"" + s + "\" is not a list of integers and ranges a..b (no blanks)");
        out.emplace_back(*lo, *hi);
        at = comma + 1;
    }
    return out;
}

const char* type_name(FieldType t) {
    switch (t) {
        case FieldType::Int: return "an integer";
        case FieldType::Bool: return "a bool";
        case FieldType::String: return "a string";
        case FieldType::List: return "a list";
    }
    return "?";
}

// One condition from words[i..] of an alternative of kind `kind`; advances i.
PredicateCondition parse_condition(const EventKindFields& kind, const std::vector<std::string>& w,
                                   std::size_t& i) {
    PredicateCondition c;
    auto next = [&](const char* what) -> const std::string& {
        if (i >= w.size()) throw PredicateError(std::string("expected ") + what + " at the end");
        return w[i++];
    };
    const std::string& first = next("a condition");
    if (first == "flag" || first == "noflag") {
        const std::string& name = next("a face flag name");
        c.op = first == "flag" ? Op::Flag : Op::NoFlag;
        c.word = name;
        for (const auto& [flag, n] : events::kFaceFlagNames)
            if (n == name) c.flag = static_cast<std::uint32_t>(flag);
        if (!c.flag) throw PredicateError("unknown face flag \"" + name + "\"");
        return c;
    }
    if (first == "any" || first == "len") c.scope = first == "any" ? Scope::Any : Scope::Len;
    c.field = c.scope == Scope::Value ? first : next("a field name");
    const auto f = std::find_if(kind.fields.begin(), kind.fields.end(),
                                [&](const auto& p) { return p.first == c.field; });
    if (f == kind.fields.end())
        throw PredicateError("event " + std::string(kind.kind) + " has no field \"" + c.field + "\"");
    c.type = f->second;
    c.slot = static_cast<std::size_t>(f - kind.fields.begin());
    if (c.scope != Scope::Value && c.type != FieldType::List)
        throw PredicateError("\"" + first + " " + c.field + "\": " + c.field + " is " + type_name(c.type) +
                             ", not a list");
    const std::string& op = next("an operator");
    if (op == "nonempty" || op == "empty") {
        if (c.scope != Scope::Value || (c.type != FieldType::List && c.type != FieldType::String))
            throw PredicateError("\"" + op + "\" needs a list or string field, " + c.field + " is " +
                                 type_name(c.type));
        c.op = op == "empty" ? Op::Empty : Op::NonEmpty;
        return c;
    }
    const FieldType compared = c.scope == Scope::Len || c.scope == Scope::Any ? FieldType::Int : c.type;
    const std::string& value = next("a value");
    if (op == "in") {
        if (compared != FieldType::Int)
            throw PredicateError("\"in\" needs integers, " + c.field + " is " + type_name(c.type));
        c.op = Op::In;
        c.ranges = parse_list(value);
        return c;
    }
    if (op == "starts" || op == "contains") {
        if (compared != FieldType::String)
            throw PredicateError("\"" + op + "\" needs a string field, " + c.field + " is " +
                                 type_name(c.type));
        c.op = op == "starts" ? Op::Starts : Op::Contains;
        c.word = value;
        return c;
    }
    const auto cmp = comparison(op);
    if (!cmp) throw PredicateError("unknown operator \"" + op + "\" after " + c.field);
    c.op = *cmp;
    switch (compared) {
        case FieldType::Int:
            if (const auto n = integer(value)) {
                c.number = *n;
            } else if (const auto o = std::find_if(kind.fields.begin(), kind.fields.end(),
                                                   [&](const auto& p) { return p.first == value; });
                       c.scope == Scope::Value && o != kind.fields.end() && o->second == FieldType::Int) {
                auto other = std::make_shared<PredicateCondition>();
                other->field = value;
                other->slot = static_cast<std::size_t>(o - kind.fields.begin());
                c.other = std::move(other);
            } else {
                throw PredicateError("\"" + value + "\" is not an integer nor an integer field of event " +
                                     std::string(kind.kind) + " (" + c.field + " is " + type_name(compared) +
                                     ")");
            }
            break;
        case FieldType::Bool:
            if (value != "true" && value != "false")
                throw PredicateError(c.field + " is a bool: compare it with true or false");
            if (c.op != Op::Eq && c.op != Op::Ne)
                throw PredicateError(c.field + " is a bool: only = and != apply");
            c.number = value == "true";
            break;
        case FieldType::String:
            if (c.op != Op::Eq && c.op != Op::Ne)
                throw PredicateError(c.field + " is a string: only =, !=, starts and contains apply");
            c.word = value;
            break;
        case FieldType::List: throw PredicateError(c.field + " is a list: use any, len, empty or nonempty");
    }
    return c;
}

bool compare_int(const PredicateCondition& c, std::int64_t x, std::int64_t y) {
    switch (c.op) {
        case Op::Eq: return x == y;
        case Op::Ne: return x != y;
        case Op::Lt: return x < y;
        case Op::Le: return x <= y;
        case Op::Gt: return x > y;
        case Op::Ge: return x >= y;
        case Op::In:
            return std::any_of(c.ranges.begin(), c.ranges.end(),
                               [&](const auto& r) { return r.first <= x && x <= r.second; });
        default: return false;
    }
}
bool compare_int(const PredicateCondition& c, std::int64_t x) { return compare_int(c, x, c.number); }

const Value* field_of(const PredicateCondition& c, const EventRecord& e) {
    if (c.slot < e.fields.size()) {
        const Field& f = e.fields[c.slot];
        if (f.name.c_str() == c.slot_name || f.name == c.field) {
            c.slot_name = f.name.c_str();
            return &f.value;
        }
    }
    for (std::size_t k = 0; k < e.fields.size(); ++k)
        if (e.fields[k].name == c.field) {
            c.slot = k;
            c.slot_name = e.fields[k].name.c_str();
            return &e.fields[k].value;
        }
    return nullptr;
}

bool holds(const PredicateCondition& c, const EventRecord& a, const EventRecord& b) {
    if (c.op == Op::Flag) return (a.flags & b.flags & c.flag) != 0;
    if (c.op == Op::NoFlag) return ((a.flags | b.flags) & c.flag) == 0;
    const Value* v = field_of(c, a);
    if (!v) return false;
    if (const auto* list = std::get_if<IntList>(v)) {
        if (c.op == Op::Empty) return list->empty();
        if (c.op == Op::NonEmpty) return !list->empty();
        if (c.scope == Scope::Len) return compare_int(c, static_cast<std::int64_t>(list->size()));
        if (c.scope == Scope::Any)
            return std::any_of(list->begin(), list->end(), [&](std::int64_t x) { return compare_int(c, x); });
        return false;
    }
    if (c.scope != Scope::Value) return false;
    if (c.other) { // another integer field of the same event
        const auto* n = std::get_if<std::int64_t>(v);
        const Value* w = field_of(*c.other, a);
        const auto* m = w ? std::get_if<std::int64_t>(w) : nullptr;
        return n && m && compare_int(c, *n, *m);
    }
    if (const auto* n = std::get_if<std::int64_t>(v)) return compare_int(c, *n);
    if (const auto* t = std::get_if<bool>(v)) return compare_int(c, *t ? 1 : 0);
    if (const auto* s = std::get_if<std::string>(v)) {
        // Only a string condition compares text: `type = 3` is not satisfied by a string field
        // (whose comparison word would be empty, and so equal to an empty string).
        if (c.type != FieldType::String) return false;
        switch (c.op) {
            case Op::Eq: return *s == c.word;
            case Op::Ne: return *s != c.word;
            case Op::Starts: return s->starts_with(c.word);
            case Op::Contains: return s->find(c.word) != std::string::npos;
            case Op::Empty: return s->empty();
            case Op::NonEmpty: return !s->empty();
            default: return false;
        }
    }
    return false;
}

} // namespace

RulePredicate parse_predicate(std::string_view text) {
    RulePredicate p;
    const auto w = words(text);
    for (const auto& x : w) p.text += (p.text.empty() ? "" : " ") + x;
    if (w.empty()) throw PredicateError("a rule needs a predicate (or \"none\" and a reason)");
    if (w[0] == "none" || w[0] == "none:") {
        p.none = true;
        for (std::size_t i = 1; i < w.size(); ++i) p.reason += (p.reason.empty() ? "" : " ") + w[i];
        if (!p.reason.empty() && p.reason.front() == ':')
            p.reason = p.reason.substr(p.reason.find_first_not_of(": "));
        if (p.reason.empty())
            throw PredicateError("\"none\" needs a reason: why no event or coverage can witness the rule");
        return p;
    }
    std::size_t i = 0;
    while (true) {
        if (i >= w.size()) throw PredicateError("expected \"event KIND\" or \"routine NAME\" at the end");
        const std::string& head = w[i++];
        if (head != "event" && head != "routine" && head != "known")
            throw PredicateError("expected \"event\", \"routine\", \"known\" or \"none\", got \"" + head +
                                 "\"");
        if (i >= w.size()) throw PredicateError("\"" + head + "\" needs a name");
        PredicateAlternative a;
        a.source = head == "event"     ? PredicateAlternative::Source::Event
                   : head == "routine" ? PredicateAlternative::Source::Routine
                                       : PredicateAlternative::Source::Known;
        a.name = w[i++];
        if (a.source == PredicateAlternative::Source::Known) {
            const auto& known = known_divergences();
            if (std::none_of(known.begin(), known.end(),
                             [&](const KnownDivergence& k) { return k.id == a.name; }))
                throw PredicateError("unknown known-divergence id \"" + a.name + "\"");
        }
        if (a.source == PredicateAlternative::Source::Event) {
            const auto& kinds = event_kinds();
            const auto k =
                std::find_if(kinds.begin(), kinds.end(), [&](const auto& e) { return e.kind == a.name; });
            if (k == kinds.end()) throw PredicateError("unknown event kind \"" + a.name + "\"");
            bool first = true;
            while (i < w.size() && w[i] != "or") {
                if (!first && w[i++] != "and")
                    throw PredicateError("conditions are joined by \"and\", got \"" + w[i - 1] + "\"");
                first = false;
                a.conditions.push_back(parse_condition(*k, w, i));
            }
        }
        p.alternatives.push_back(std::move(a));
        if (i >= w.size()) break;
        if (w[i] == "or")
            ++i;
        else
            throw PredicateError("unexpected \"" + w[i] + "\" after " + head + " " +
                                 p.alternatives.back().name);
    }
    return p;
}

namespace {
bool conditions_hold(const PredicateAlternative& a, const EventRecord& original, const EventRecord& reimpl,
                     std::size_t from = 0) {
    for (std::size_t i = from; i < a.conditions.size(); ++i)
        if (!holds(a.conditions[i], original, reimpl)) return false;
    return true;
}

// Whether a condition is `FIELD = N` on an integer or boolean field: what holds() then decides from
// the field's value alone (an integer equal to N, or a boolean whose 0 or 1 is N).
bool indexable(const PredicateCondition& c) {
    return c.op == Op::Eq && c.scope == Scope::Value && !c.other &&
           (c.type == FieldType::Int || c.type == FieldType::Bool);
}
} // namespace

bool satisfies(const PredicateAlternative& a, const EventRecord& original, const EventRecord& reimpl) {
    if (a.source != PredicateAlternative::Source::Event || original.kind != a.name) return false;
    return conditions_hold(a, original, reimpl);
}

ExerciseCounter::ExerciseCounter(std::vector<std::pair<std::string, const RulePredicate*>> rules)
    : rules_(std::move(rules)), counts_(rules_.size(), 0), counted_at_(rules_.size(), 0) {
    for (std::size_t r = 0; r < rules_.size(); ++r)
        for (const auto& a : rules_[r].second->alternatives) {
            if (a.source != PredicateAlternative::Source::Event) continue;
            KindWatches& k = by_kind_[a.name];
            const Watch w{r, &a};
            if (a.conditions.empty() || !indexable(a.conditions.front())) {
                k.general.push_back(w);
                continue;
            }
            const PredicateCondition& first = a.conditions.front();
            auto g = std::find_if(k.by_value.begin(), k.by_value.end(),
                                  [&](const ByValue& b) { return b.field.field == first.field; });
            if (g == k.by_value.end()) {
                g = k.by_value.insert(k.by_value.end(), ByValue{});
                g->field = first; // its field, and where parsing found it
            }
            g->watches[first.number].push_back(w);
            g->all.push_back(w);
        }
}

void ExerciseCounter::observe(const EventRecord& original, const EventRecord& reimpl) {
    ++matched_;
    if (original.kind == "face_draw") {
        if (const Value* t = original.find("type"); t && std::holds_alternative<std::int64_t>(*t)) {
            const std::int64_t type = std::get<std::int64_t>(*t);
            if (type >= 0 && type < 64) face_types_ |= std::uint64_t{1} << type;
        }
    } else if (original.kind == "frame") {
        EventRecord frame = original; // with the types of the faces compared since the last frame
        for (auto& f : frame.fields)
            if (f.name == "types") {
                std::vector<std::int64_t> types;
                for (std::int64_t k = 0; k < 64; ++k)
                    if (face_types_ >> k & 1) types.push_back(k);
                f.value = std::move(types);
            }
        face_types_ = 0;
        count(frame, reimpl);
        return;
    }
    count(original, reimpl);
}

void ExerciseCounter::count(const EventRecord& original, const EventRecord& reimpl) {
    if (!last_ || original.kind != last_kind_) {
        const auto it = by_kind_.find(original.kind.view());
        static const KindWatches kNone;
        last_ = it == by_kind_.end() ? &kNone : &it->second;
        last_kind_ = original.kind;
    }
    // The watches of this kind's event alternatives (by_kind_): the kind needs no second compare.
    for (const Watch& w : last_->general)
        if (conditions_hold(*w.alternative, original, reimpl)) bump(w.rule);
    for (const ByValue& g : last_->by_value) {
        const Value* v = field_of(g.field, original);
        if (!v) continue; // no such field: no `FIELD = N` holds
        std::int64_t n = 0;
        if (const auto* i = std::get_if<std::int64_t>(v)) {
            n = *i;
        } else if (const auto* b = std::get_if<bool>(v)) {
            n = *b ? 1 : 0;
        } else {
            // A value of another type: holds() decides, condition by condition, as for any watch.
            for (const Watch& w : g.all)
                if (conditions_hold(*w.alternative, original, reimpl)) bump(w.rule);
            continue;
        }
        const auto it = g.watches.find(n);
        if (it == g.watches.end()) continue;
        for (const Watch& w : it->second)
            if (conditions_hold(*w.alternative, original, reimpl, 1)) bump(w.rule);
    }
}

void ExerciseCounter::absorb(const std::vector<std::uint64_t>& observed, std::uint64_t matched) {
    if (observed.size() != counts_.size())
        throw std::runtime_error("exercise counts of " + std::to_string(observed.size()) +
                                 " rules, the case claims " + std::to_string(counts_.size()));
    for (std::size_t r = 0; r < counts_.size(); ++r) counts_[r] += observed[r];
    matched_ += matched;
}

ojson ExerciseCounter::json(const ojson& report) const {
    ojson out = ojson::object();
    const ojson& routines = member(member(report, "coverage"), "routines");
    const ojson& known = member(member(report, "counts"), "known_by_cause");
    auto count_in = [](const ojson& table, const std::string& name, const char* key) -> std::uint64_t {
        if (!table.is_object() || !table.contains(name)) return 0;
        const ojson& v = key ? member(table.at(name), key) : table.at(name);
        return v.is_number_integer() && v.get<std::int64_t>() > 0 ? v.get<std::uint64_t>() : 0;
    };
    for (std::size_t r = 0; r < rules_.size(); ++r) {
        std::uint64_t n = counts_[r];
        for (const auto& a : rules_[r].second->alternatives) {
            if (a.source == PredicateAlternative::Source::Known) n += count_in(known, a.name, nullptr);
            if (a.source == PredicateAlternative::Source::Routine && matched_ > 0 && !narrowed_)
                n += count_in(routines, a.name, "executed");
        }
        out[rules_[r].first] = n;
    }
    return out;
}

} // namespace refcheck::harness
