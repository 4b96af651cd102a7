#include "refcheck/harness/report.hpp"
#include "refcheck/harness/json_bounded.hpp"

#include "refcheck/harness/coverage.hpp"
#include "refcheck/harness/divergences.hpp"
#include "refcheck/harness/ledger.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <unistd.h>
#include <stdexcept>

namespace refcheck::harness {

std::string_view status_name(Status s) {
    switch (s) {
        case Status::Equivalent: return "equivalent";
        case Status::Divergent: return "divergent";
        case Status::Error: return "error";
    }
    return "error";
}

Status parse_status(std::string_view s) {
    if (s == "equivalent") return Status::Equivalent;
    if (s == "divergent") return Status::Divergent;
    return Status::Error;
}

std::string escape_markup(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string url_path(const std::string& s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' ||
            c == '.' || c == '_' || c == '~' || c == '/') {
            out += c;
        } else {
            out += '%';
            out += kHex[u >> 4];
            out += kHex[u & 15];
        }
    }
    return out;
}

const ojson& member(const ojson& j, const char* key) {
    static const ojson kNone;
    if (!j.is_object()) return kNone;
    auto it = j.find(key);
    return it == j.end() ? kNone : *it;
}

ojson to_json(const Value& v) {
    struct Visitor {
        ojson operator()(std::int64_t i) const { return i; }
        ojson operator()(bool b) const { return b; }
        ojson operator()(const std::string& s) const { return s; }
        ojson operator()(const IntList& xs) const {
            ojson out = ojson::array();
            for (std::int64_t x : xs) out.push_back(x);
            return out;
        }
    };
    return std::visit(Visitor{}, v);
}

ojson to_json(const EventRecord& e) {
    ojson j;
    j["kind"] = e.kind;
    ojson fields = ojson::object();
    for (const auto& f : e.fields) fields[f.name] = to_json(f.value);
    j["fields"] = fields;
    if (e.flags) j["flags"] = e.flags;
    if (!e.excuses.empty()) {
        ojson x = ojson::array();
        for (const auto& ex : e.excuses) {
            std::string cause;
            for (const auto& k : known_divergences())
                if (ex.flag & k.flag) cause = std::string(k.id);
            ojson one = {{"cause", cause}, {"field", std::string(ex.field)}, {"element", ex.element}};
            if (ex.camera) one["camera"] = *ex.camera; // div.grid_tolerance's box is drawn around it
            x.push_back(std::move(one));
        }
        j["excuses"] = x;
    }
    return j;
}

ojson to_json(const Counts& c) {
    ojson j;
    j["compared"] = c.compared;
    j["matched"] = c.matched;
    j["known"] = c.known;
    j["unexplained"] = c.unexplained;
    j["faults"] = c.faults;
    j["missing_in_reimpl"] = c.missing;
    j["extra_in_reimpl"] = c.extra;
    j["changed"] = c.changed;
    j["inputs"] = c.inputs;
    j["blank_frames"] = c.blank_frames;
    j["known_by_cause"] = ojson::object();
    for (const auto& [k, v] : c.known_by_cause) j["known_by_cause"][k] = v;
    j["by_kind"] = ojson::object();
    for (const auto& [k, v] : c.by_kind) j["by_kind"][k] = v;
    // Only when the sides disagreed on a matched pair's flags (Counts::flag_original_only).
    if (!c.flag_original_only.empty() || !c.flag_reimpl_only.empty()) {
        ojson& d =
            j["flags_disagree"] = {{"original_only", ojson::object()}, {"reimpl_only", ojson::object()}};
        for (const auto& [k, v] : c.flag_original_only) d["original_only"][k] = v;
        for (const auto& [k, v] : c.flag_reimpl_only) d["reimpl_only"][k] = v;
    }
    return j;
}

Counts counts_from_json(const ojson& j) {
    Counts c;
    const auto n = [&](const char* key) { return j.at(key).get<std::uint64_t>(); };
    c.compared = n("compared");
    c.matched = n("matched");
    c.known = n("known");
    c.unexplained = n("unexplained");
    c.faults = n("faults");
    c.missing = n("missing_in_reimpl");
    c.extra = n("extra_in_reimpl");
    c.changed = n("changed");
    c.inputs = n("inputs");
    c.blank_frames = n("blank_frames");
    for (const auto& [k, v] : j.at("known_by_cause").items()) c.known_by_cause[k] = v.get<std::uint64_t>();
    for (const auto& [k, v] : j.at("by_kind").items()) c.by_kind[k] = v.get<std::uint64_t>();
    if (j.contains("flags_disagree")) {
        const ojson& d = j.at("flags_disagree");
        for (const auto& [k, v] : d.at("original_only").items())
            c.flag_original_only[k] = v.get<std::uint64_t>();
        for (const auto& [k, v] : d.at("reimpl_only").items()) c.flag_reimpl_only[k] = v.get<std::uint64_t>();
    }
    return c;
}

namespace {
ojson events(const std::vector<EventRecord>& es) {
    ojson a = ojson::array();
    for (const auto& e : es) a.push_back(to_json(e));
    return a;
}
std::string_view kind_name(DivergenceKind k) {
    switch (k) {
        case DivergenceKind::FieldMismatch: return "field_mismatch";
        case DivergenceKind::MissingInReimpl: return "missing_in_reimpl";
        case DivergenceKind::ExtraInReimpl: return "extra_in_reimpl";
        case DivergenceKind::OriginalFault: return "original_fault";
    }
    return "?";
}
} // namespace

ojson to_json(const Divergence& d) {
    ojson j;
    j["kind"] = kind_name(d.kind);
    j["input"] = d.input;
    j["original_index"] = d.original_index;
    j["reimpl_index"] = d.reimpl_index;
    j["original"] = d.original ? to_json(*d.original) : ojson();
    j["reimpl"] = d.reimpl ? to_json(*d.reimpl) : ojson();
    ojson fields = ojson::array();
    for (const auto& f : d.fields)
        fields.push_back({{"field", f.name},
                          {"original", f.original},
                          {"reimpl", f.reimpl},
                          {"diff", f.original + " -> " + f.reimpl}});
    j["fields"] = fields;
    if (!d.explained_by.empty()) j["explained_by"] = d.explained_by;
    if (d.pixel)
        j["pixel"] = {{"x", d.pixel->x},
                      {"y", d.pixel->y},
                      {"original", d.pixel->original},
                      {"reimpl", d.pixel->reimpl}};
    j["context"] = {{"original_before", events(d.original_before)},
                    {"original_after", events(d.original_after)},
                    {"reimpl_before", events(d.reimpl_before)},
                    {"reimpl_after", events(d.reimpl_after)}};
    return j;
}

void write_file_atomically(const std::filesystem::path& file, std::string_view bytes) {
    std::filesystem::create_directories(file.parent_path());
    std::filesystem::path temporary = file;
    temporary += ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot write " + temporary.string());
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.flush();
        if (!out) throw std::runtime_error("cannot write " + temporary.string());
    }
    std::error_code ec;
    std::filesystem::rename(temporary, file, ec);
    if (ec) {
        std::filesystem::remove(temporary);
        throw std::runtime_error("cannot write " + file.string() + ": " + ec.message());
    }
}

void write_json(const std::filesystem::path& file, const ojson& j) {
    write_file_atomically(file, j.dump(1) + '\n');
}

namespace {

// The JSON pointer of the first fractional number in `j` (depth first, in document order), or
// nullopt. Iterative: a document nested a million deep must not overflow the stack.
std::optional<ojson::json_pointer> first_fraction(const ojson& j) {
    struct Step {
        const ojson* node;
        ojson::json_pointer pointer;
    };
    std::vector<Step> pending;
    pending.push_back({&j, ojson::json_pointer()});
    while (!pending.empty()) {
        Step s = std::move(pending.back());
        pending.pop_back();
        if (s.node->is_number_float()) return s.pointer;
        const std::size_t first = pending.size();
        if (s.node->is_object()) {
            for (const auto& [k, v] : s.node->items())
                if (v.is_structured() || v.is_number_float()) pending.push_back({&v, s.pointer / k});
        } else if (s.node->is_array()) {
            for (std::size_t i = 0; i < s.node->size(); ++i)
                if (const ojson& v = (*s.node)[i]; v.is_structured() || v.is_number_float())
                    pending.push_back({&v, s.pointer / i});
        }
        std::reverse(pending.begin() + static_cast<std::ptrdiff_t>(first), pending.end()); // document order
    }
    return std::nullopt;
}

} // namespace

ojson read_json(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    ojson j;
    try {
        j = parse_json_bounded<ojson>(in);
    } catch (const std::exception& e) {
        // nlohmann's text is "[json.exception.parse_error.101] parse error at line 1, column 1: ...".
        std::string what = e.what();
        if (const auto at = what.find("parse error"); at != std::string::npos) what = what.substr(at);
        throw std::runtime_error(file.string() + " is not JSON refcheck reads (" + what + ")");
    }
    if (const auto at = first_fraction(j))
        throw std::runtime_error(file.string() + ": " + (at->empty() ? "the document" : at->to_string()) +
                                 " is " + j.at(*at).dump() +
                                 ", not a whole number of 64 bits (refcheck's documents hold no others)");
    return j;
}

ojson seeded_effect(const std::vector<ojson>& reports, const ojson& seeded_faults) {
    // One row per patch given, whether or not any case got as far as applying it.
    ojson patches = ojson::array();
    for (const ojson& g : member(seeded_faults, "given"))
        patches.push_back(
            {{"where", g.at("where")}, {"ran", 0}, {"not_run", 0}, {"cannot_tell", 0}, {"stopped", 0}});
    std::uint64_t light_changed = 0;
    bool light_swapped = false;
    for (const auto& r : reports) {
        const ojson& injected = member(r, "injected");
        // A case that stopped before its coverage (a crashed or timed-out worker, whose report the
        // coordinator wrote; an error before the patches were judged) cannot say whether a patch
        // ran: counted as stopped. It was counted nowhere, and the summary said no case ran it.
        if (!injected.contains("patches"))
            for (ojson& p : patches) p["stopped"] = p["stopped"].get<std::uint64_t>() + 1;
        if (injected.contains("patches")) {
            const ojson& applied = injected.at("patches");
            const auto name = [&] {
                return "case " + r.value("case", std::string("?")) + ": its report's injected";
            };
            if (applied.size() != patches.size())
                throw std::runtime_error(name() + " lists " + std::to_string(applied.size()) +
                                         " patch(es), the run's seeded_faults gives " +
                                         std::to_string(patches.size()));
            for (std::size_t k = 0; k < applied.size(); ++k) {
                if (applied.at(k).at("where") != patches[k].at("where"))
                    throw std::runtime_error(name() + " patch " + std::to_string(k) + " is at " +
                                             applied.at(k).at("where").dump() +
                                             ", the run's seeded_faults at " + patches[k].at("where").dump());
                if (!applied.at(k).contains("executed")) { // the case stopped before its coverage
                    patches[k]["stopped"] = patches[k]["stopped"].get<std::uint64_t>() + 1;
                    continue;
                }
                const ojson& executed = applied.at(k).at("executed");
                const char* key = executed.is_null()     ? "cannot_tell"
                                  : executed.get<bool>() ? "ran"
                                                         : "not_run";
                patches[k][key] = patches[k][key].get<std::uint64_t>() + 1;
            }
        }
        if (injected.contains("reimpl_lights_changed")) {
            light_swapped = true;
            if (injected.at("reimpl_lights_changed").get<std::uint64_t>() > 0) ++light_changed;
        }
    }
    ojson effect = {{"cases", reports.size()}};
    if (!patches.empty()) effect["patches"] = patches;
    if (light_swapped || seeded_faults.value("reimpl_input_modified", false))
        effect["reimpl_light_changed_in"] = light_changed;
    return effect;
}

std::string seeded_fault_summary(const ojson& seeded, const ojson& effect) {
    std::vector<std::string> parts;
    const std::size_t patches = member(seeded, "given").size(); // as given, not per image
    const std::string cases =
        effect.contains("cases") ? std::to_string(effect.at("cases").get<std::uint64_t>()) : "";
    if (seeded.value("original_modified", false)) {
        std::string ran;
        for (const auto& p : member(effect, "patches"))
            ran += "; " + p.at("where").get<std::string>() + " ran in " +
                   std::to_string(p.at("ran").get<std::uint64_t>()) + " of " + cases + " case(s)" +
                   (p.value("stopped", 0ull) ? ", " + std::to_string(p.at("stopped").get<std::uint64_t>()) +
                                                   " stopped before their coverage could tell"
                                             : "");
        parts.push_back("the original is modified (" + std::to_string(patches) +
                        (patches == 1 ? " patch" : " patches") + ran + ")");
    }
    if (seeded.value("reimpl_input_modified", false)) {
        std::string changed;
        if (effect.contains("reimpl_light_changed_in"))
            changed = "; another light in " +
                      std::to_string(effect.at("reimpl_light_changed_in").get<std::uint64_t>()) + " of " +
                      cases + " case(s)";
        parts.push_back("the reimplementation's input is modified (light " +
                        seeded.value("reimpl_light", std::string("changed")) + changed + ")");
    }
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
    return out.empty() ? "seeded faults" : out;
}

namespace {
// What a case's verdict was reached on (refcheck diff calls a case fixed only on the same basis):
// the case file, the image, profile and archives by hash, its narrowing when it left inputs out
// (--only, an input --filter: the selection's inputs_left_out), and the run's seeded faults.
ojson case_basis(const ojson& r, const ojson& seeded_faults) {
    const ojson& inputs = member(r, "inputs");
    const ojson& selection = member(r, "selection");
    ojson narrowing; // null: no input of the selection was left out
    if (!member(selection, "inputs_left_out").is_null())
        narrowing = {{"only", member(selection, "only")},
                     {"filter", member(selection, "filter")},
                     {"inputs_left_out", member(selection, "inputs_left_out")}};
    return {{"case_sha256", member(r, "case_sha256")},
            {"image_sha256", member(member(inputs, "image"), "sha256")},
            {"profile_sha256", member(member(inputs, "profile"), "sha256")},
            {"archives", member(inputs, "archives")},
            {"narrowing", narrowing},
            {"seeded", seeded_faults}};
}
} // namespace

ojson make_run_index(const std::vector<ojson>& reports, const ojson& seeded_faults) {
    ojson index;
    index["schema"] = kRunIndexSchema;
    index["refcheck_version"] = refcheck_version(); // fixed per build: the index stays deterministic
    index["status"] = "error";                      // set below; first, so that the seeded faults follow it
    if (!seeded_faults.is_null()) {
        index["seeded_faults"] = seeded_faults;
        index["seeded_effect"] =
            seeded_effect(reports, seeded_faults); // what the seeded faults did, by the case reports
    }
    index["reimpl_source_sha256"] = reimpl_source_sha256(); // fixed per build, like the version
    ojson cases = ojson::array();
    Counts total;
    std::uint64_t equivalent = 0, divergent = 0, errors = 0;
    for (const auto& r : reports) {
        ojson row;
        row["case"] = r.at("case");
        row["family"] = r.at("family");
        row["status"] = r.at("status");
        row["report"] = r.at("case").get<std::string>() + ".json";
        row["counts"] = r.value("counts", ojson::object());
        if (r.contains("metrics")) row["metrics"] = r.at("metrics");
        row["basis"] = case_basis(r, seeded_faults);
        cases.push_back(row);
        const auto st = parse_status(r.at("status").get<std::string>());
        (st == Status::Equivalent ? equivalent : st == Status::Divergent ? divergent : errors)++;
        const ojson c = r.value("counts", ojson::object());
        total.compared += c.value("compared", 0ull);
        total.matched += c.value("matched", 0ull);
        total.known += c.value("known", 0ull);
        total.unexplained += c.value("unexplained", 0ull);
        total.faults += c.value("faults", 0ull);
        total.missing += c.value("missing_in_reimpl", 0ull);
        total.extra += c.value("extra_in_reimpl", 0ull);
        total.changed += c.value("changed", 0ull);
        total.inputs += c.value("inputs", 0ull);
        total.blank_frames += c.value("blank_frames", 0ull);
        for (const auto& [k, v] : member(c, "known_by_cause").items())
            total.known_by_cause[k] += v.get<std::uint64_t>();
        for (const auto& [k, v] : member(c, "by_kind").items()) total.by_kind[k] += v.get<std::uint64_t>();
        const ojson& disagree = member(c, "flags_disagree");
        for (const auto& [k, v] : member(disagree, "original_only").items())
            total.flag_original_only[k] += v.get<std::uint64_t>();
        for (const auto& [k, v] : member(disagree, "reimpl_only").items())
            total.flag_reimpl_only[k] += v.get<std::uint64_t>();
    }
    index["status"] = errors ? "error" : divergent ? "divergent" : "equivalent";
    index["cases"] = cases;
    index["totals"] = {{"cases", reports.size()},
                       {"equivalent", equivalent},
                       {"divergent", divergent},
                       {"error", errors},
                       {"counts", to_json(total)}};
    if (ojson ledger = make_ledger(reports); !ledger.is_null()) index["ledger"] = std::move(ledger);
    if (ojson coverage = merge_coverage(reports); !coverage.empty()) index["coverage"] = std::move(coverage);
    return index;
}

} // namespace refcheck::harness
