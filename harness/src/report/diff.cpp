#include "refcheck/harness/diff.hpp"

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace refcheck::harness {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCountFields[] = {"compared", "matched", "known", "unexplained"};

int rank(const std::string& status) { return status == "equivalent" ? 0 : status == "divergent" ? 1 : 2; }

std::map<std::string, const ojson*> rows_by_case(const ojson& index) {
    std::map<std::string, const ojson*> rows;
    for (const auto& row : member(index, "cases")) rows[row.at("case").get<std::string>()] = &row;
    return rows;
}

// A count as an index holds it: absent reads as 0; anything but a whole number in [0, 2^63) is an
// error, so the delta of two counts never overflows (a count of -2^63 against one of 2^63 - 1 did;
// found by fuzz/report_diff).
std::int64_t count_of(const ojson& counts, const char* key) {
    const ojson& v = member(counts, key);
    if (v.is_null()) return 0;
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
        return static_cast<std::int64_t>(v.get<std::uint64_t>());
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() >= 0)
        return v.get<std::int64_t>();
    throw DiffError("\"" + std::string(key) + "\": " + v.dump() + " is not a count");
}

// {field: {old, new, delta}} for each of compared/matched/known/unexplained that differs.
ojson count_changes(const ojson& before, const ojson& after) {
    ojson out = ojson::object();
    for (const char* k : kCountFields) {
        const std::int64_t a = count_of(before, k), b = count_of(after, k);
        if (a != b) out[k] = {{"old", a}, {"new", b}, {"delta", b - a}};
    }
    return out;
}

// {metric: {old, new}} for each metric added, removed or changed (null when absent).
ojson metric_changes(const ojson& before, const ojson& after) {
    std::map<std::string, std::pair<ojson, ojson>> all;
    for (const auto& [k, v] : member(before, "metrics").items()) all[k].first = v;
    for (const auto& [k, v] : member(after, "metrics").items()) all[k].second = v;
    ojson out = ojson::object();
    for (const auto& [k, v] : all)
        if (v.first != v.second) out[k] = {{"old", v.first}, {"new", v.second}};
    return out;
}

// What differs between two rows' bases (make_run_index's "basis": the case file, the image, profile
// and archives by hash, the narrowing, the seeded faults); a row without one has an unknown basis.
std::vector<std::string> basis_changes(const ojson& before, const ojson& after) {
    const ojson &a = member(before, "basis"), &b = member(after, "basis");
    if (!a.is_object() || !b.is_object()) return {"basis not recorded"};
    static constexpr std::pair<const char*, const char*> kParts[] = {
        {"case_sha256", "case file"}, {"image_sha256", "image"},  {"profile_sha256", "profile"},
        {"archives", "archives"},     {"narrowing", "narrowing"}, {"seeded", "seeded faults"}};
    std::vector<std::string> out;
    for (const auto& [key, what] : kParts)
        if (member(a, key) != member(b, key)) out.emplace_back(what);
    return out;
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
    return out;
}

void diff_cases(const ojson& old_index, const ojson& new_index, ojson& d) {
    const auto before = rows_by_case(old_index), after = rows_by_case(new_index);
    ojson added = ojson::array(), removed = ojson::array(), fixed = ojson::array(), newly = ojson::array(),
          changes = ojson::array(), counts = ojson::array(), metrics = ojson::array(), worse = ojson::array(),
          rebased = ojson::array();
    for (const auto& [name, row] : after)
        if (!before.count(name)) added.push_back({{"case", name}, {"status", row->at("status")}});
    for (const auto& [name, row] : before) {
        const auto it = after.find(name);
        if (it == after.end()) {
            removed.push_back({{"case", name}, {"status", row->at("status")}});
            continue;
        }
        const std::string s0 = row->at("status").get<std::string>(),
                          s1 = it->second->at("status").get<std::string>();
        const ojson change = {{"case", name}, {"old", s0}, {"new", s1}};
        const std::vector<std::string> basis = basis_changes(*row, *it->second);
        if (!basis.empty()) rebased.push_back({{"case", name}, {"old", s0}, {"new", s1}, {"changed", basis}});
        if (s0 != s1) changes.push_back(change);
        // A fix is the same case on the same image, data, narrowing and seeding now equivalent: one
        // that was only narrowed to an input that agrees, or no longer seeded, fixed nothing.
        if (s0 != "equivalent" && s1 == "equivalent" && basis.empty()) fixed.push_back(change);
        if (s0 != "divergent" && s1 == "divergent") newly.push_back(change);
        const ojson c = count_changes(member(*row, "counts"), member(*it->second, "counts"));
        if (!c.empty()) counts.push_back({{"case", name}, {"changes", c}});
        const ojson m = metric_changes(*row, *it->second);
        if (!m.empty()) metrics.push_back({{"case", name}, {"changes", m}});
        std::string why;
        if (rank(s1) > rank(s0))
            why = "status " + s0 + " -> " + s1;
        else if (c.contains("unexplained") && c["unexplained"]["delta"].get<std::int64_t>() > 0)
            why = "unexplained " + c["unexplained"]["old"].dump() + " -> " + c["unexplained"]["new"].dump();
        // The same case on the same basis proving less: fewer events compared, or fewer matched (a
        // harness or reimplementation that stops looking, or excuses more, stayed "no case got
        // worse" while its status held).
        else if (basis.empty())
            for (const char* k : {"compared", "matched"})
                if (c.contains(k) && c[k]["delta"].get<std::int64_t>() < 0) {
                    why = std::string(k) + " " + c[k]["old"].dump() + " -> " + c[k]["new"].dump() +
                          " on the same basis";
                    break;
                }
        if (!why.empty() && !basis.empty()) why += " (on another basis: " + joined(basis) + ")";
        if (!why.empty()) worse.push_back({{"case", name}, {"why", why}});
    }
    d["cases_new"] = added;
    d["cases_removed"] = removed;
    d["fixed"] = fixed;
    d["basis_changed"] = rebased;
    d["newly_divergent"] = newly;
    d["status_changes"] = changes;
    d["counts_changed"] = counts;
    d["totals_changed"] = count_changes(member(member(old_index, "totals"), "counts"),
                                        member(member(new_index, "totals"), "counts"));
    d["metrics_changed"] = metrics;
    d["regressions"] = worse;
}

std::map<std::string, const ojson*> ledger_rows(const ojson& index) {
    std::map<std::string, const ojson*> rows;
    for (const auto& row : member(member(index, "ledger"), "rules"))
        rows[row.at("id").get<std::string>()] = &row;
    return rows;
}

ojson diff_ledger(const ojson& old_index, const ojson& new_index) {
    const auto before = ledger_rows(old_index), after = ledger_rows(new_index);
    ojson out = ojson::array();
    auto status = [](const std::map<std::string, const ojson*>& rows, const std::string& id) {
        const auto it = rows.find(id);
        return it == rows.end() ? ojson() : it->second->at("status");
    };
    // In the new document's order, then ids only the old one lists.
    for (const auto& row : member(member(new_index, "ledger"), "rules")) {
        const std::string id = row.at("id").get<std::string>();
        if (status(before, id) != row.at("status"))
            out.push_back({{"id", id}, {"old", status(before, id)}, {"new", row.at("status")}});
    }
    for (const auto& row : member(member(old_index, "ledger"), "rules")) {
        const std::string id = row.at("id").get<std::string>();
        if (!after.count(id)) out.push_back({{"id", id}, {"old", row.at("status")}, {"new", nullptr}});
    }
    return out;
}

// Coverage entries of the run index are matched by image file name, routines by name.
ojson diff_coverage(const ojson& old_index, const ojson& new_index) {
    std::map<std::string, const ojson*> before;
    for (const auto& image : member(old_index, "coverage"))
        before[image.at("image").get<std::string>()] = &image;
    ojson out = ojson::array();
    auto figures = [](const ojson& r) {
        return ojson{{"blocks", r.at("blocks")}, {"executed", r.at("executed")}};
    };
    for (const auto& image : member(new_index, "coverage")) {
        const std::string file = image.at("image").get<std::string>();
        const auto it = before.find(file);
        const ojson& old_routines = it == before.end() ? ojson() : member(*it->second, "routines");
        for (const auto& [name, r] : member(image, "routines").items()) {
            const ojson& o = member(old_routines, name.c_str());
            const ojson was = o.is_object() ? figures(o) : ojson();
            if (was != figures(r))
                out.push_back({{"image", file}, {"routine", name}, {"old", was}, {"new", figures(r)}});
        }
    }
    return out;
}

std::string case_list(const char* title, const ojson& items) {
    if (items.empty()) return "";
    std::ostringstream s;
    s << title << " (" << items.size() << "):\n";
    for (const auto& i : items) {
        s << "  " << i.at("case").get<std::string>();
        if (i.contains("status")) s << "  " << i.at("status").get<std::string>();
        if (i.contains("old"))
            s << "  " << i.at("old").get<std::string>() << " -> " << i.at("new").get<std::string>();
        if (i.contains("why")) s << "  " << i.at("why").get<std::string>();
        if (i.contains("changed")) {
            std::vector<std::string> parts;
            for (const auto& p : i.at("changed")) parts.push_back(p.get<std::string>());
            s << "  (" << joined(parts) << ")";
        }
        s << "\n";
    }
    return s.str();
}

// Status changes that are neither a fix nor a new divergence (e.g. divergent -> error).
ojson other_changes(const ojson& d) {
    ojson out = ojson::array();
    for (const auto& c : d["status_changes"])
        if (c["new"] != "equivalent" && c["new"] != "divergent") out.push_back(c);
    return out;
}

std::string signed_text(std::int64_t v) { return (v > 0 ? "+" : "") + std::to_string(v); }

std::string changes_line(const ojson& changes) {
    std::string line;
    for (const auto& [k, v] : changes.items()) {
        line += (line.empty() ? "" : ", ") + k + " " + v.at("old").dump() + " -> " + v.at("new").dump();
        if (v.contains("delta")) line += " (" + signed_text(v.at("delta").get<std::int64_t>()) + ")";
    }
    return line;
}

// The members of a run index that diff reads, checked where the file is loaded, so that a malformed
// one is named with its file and the member that is wrong (as a JSON pointer, "/cases/3/status"):
// diff_runs reads them with at() and get(), and a string where a row belongs gave nlohmann's bare
// "cannot use at() with string".
void check_index_shape(const ojson& index, const fs::path& file) {
    const auto bad = [&](const std::string& where, const std::string& what) {
        throw DiffError(file.string() + ": " + where + " " + what + ", which no refcheck run index has");
    };
    const auto string_at = [&](const ojson& j, const char* key, const std::string& where, bool required) {
        const ojson& v = member(j, key);
        if ((required || !v.is_null()) && !v.is_string())
            bad(where + "/" + key, v.is_null() ? "is missing" : "is " + v.dump() + ", not a string");
    };
    const auto object_at = [&](const ojson& v, const std::string& where) {
        if (!v.is_null() && !v.is_object())
            bad(where, "is " + std::string(v.type_name()) + ", not an object");
    };
    const auto array_at = [&](const ojson& v, const std::string& where) {
        if (!v.is_null() && !v.is_array()) bad(where, "is " + std::string(v.type_name()) + ", not an array");
    };
    const auto counts_at = [&](const ojson& counts, const std::string& where) {
        object_at(counts, where);
        try {
            for (const char* k : kCountFields) count_of(counts, k);
        } catch (const DiffError& e) {
            bad(where, std::string("has ") + e.what());
        }
    };
    string_at(index, "status", "", false);
    const ojson& cases = index.at("cases");
    array_at(cases, "/cases");
    if (cases.is_null()) bad("/cases", "is null");
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const ojson& row = cases[i];
        const std::string where = "/cases/" + std::to_string(i);
        if (!row.is_object())
            bad(where, "is " + std::string(row.type_name()) + ", not a case row (an object)");
        string_at(row, "case", where, true);
        string_at(row, "status", where, true);
        counts_at(member(row, "counts"), where + "/counts");
    }
    object_at(member(index, "totals"), "/totals");
    counts_at(member(member(index, "totals"), "counts"), "/totals/counts");
    object_at(member(index, "ledger"), "/ledger");
    const ojson& rules = member(member(index, "ledger"), "rules");
    array_at(rules, "/ledger/rules");
    for (std::size_t i = 0; i < rules.size(); ++i) {
        const std::string where = "/ledger/rules/" + std::to_string(i);
        if (!rules[i].is_object()) bad(where, "is " + std::string(rules[i].type_name()) + ", not a rule row");
        string_at(rules[i], "id", where, true);
        string_at(rules[i], "status", where, true);
    }
    const ojson& coverage = member(index, "coverage");
    array_at(coverage, "/coverage");
    for (std::size_t i = 0; i < coverage.size(); ++i) {
        const std::string where = "/coverage/" + std::to_string(i);
        if (!coverage[i].is_object())
            bad(where, "is " + std::string(coverage[i].type_name()) + ", not an image's coverage");
        string_at(coverage[i], "image", where, true);
        const ojson& routines = member(coverage[i], "routines");
        object_at(routines, where + "/routines");
        for (const auto& [name, r] : routines.items())
            if (!r.is_object() || !r.contains("blocks") || !r.contains("executed"))
                bad(where + "/routines/" + name, "is not an object with \"blocks\" and \"executed\"");
    }
}

} // namespace

ojson load_run_index(const fs::path& given) {
    const fs::path file = fs::is_directory(given) ? given / "run.json" : given;
    if (!fs::is_regular_file(file)) throw DiffError("no run index at " + file.string());
    ojson index;
    try {
        index = read_json(file);
    } catch (const std::exception& e) {
        throw DiffError(e.what()); // read_json names the file
    }
    if (!index.is_object() || index.value("schema", std::string()) != kRunIndexSchema ||
        !index.contains("cases"))
        throw DiffError(file.string() + " is not a refcheck run index (" + kRunIndexSchema + ")");
    check_index_shape(index, file);
    return index;
}

ojson diff_runs(const ojson& old_index, const ojson& new_index) {
    ojson d;
    d["schema"] = "refcheck-run-diff/1";
    d["old"] = {{"status", old_index.value("status", std::string())},
                {"cases", member(old_index, "cases").size()}};
    d["new"] = {{"status", new_index.value("status", std::string())},
                {"cases", member(new_index, "cases").size()}};
    diff_cases(old_index, new_index, d);
    // The run's own status worse is worse even when no case row says so (a case row that does is the
    // regression listed): a shard's output whose parts of split cases diverged lists no row for them
    // (its run.json status and "parts" say it).
    const std::string s0 = d["old"]["status"].get<std::string>(), s1 = d["new"]["status"].get<std::string>();
    if (rank(s1) > rank(s0) && d["regressions"].empty()) {
        std::string why = "the run's status " + s0 + " -> " + s1;
        if (const ojson& parts = member(new_index, "parts"); parts.is_array() && !parts.empty())
            why += " (the new run is a shard's output holding " + std::to_string(parts.size()) +
                   " part(s) of split cases, which no case row shows)";
        d["regressions"].push_back({{"case", "(the run)"}, {"why", why}});
    }
    d["ledger_changed"] = diff_ledger(old_index, new_index);
    d["coverage_changed"] = diff_coverage(old_index, new_index);
    return d;
}

bool regressed(const ojson& diff) { return !member(diff, "regressions").empty(); }

std::string diff_text(const ojson& d) {
    std::ostringstream s;
    s << "refcheck diff: old run " << d["old"]["status"].get<std::string>() << " (" << d["old"]["cases"]
      << " cases) -> new run " << d["new"]["status"].get<std::string>() << " (" << d["new"]["cases"]
      << " cases)\n";
    s << case_list("new cases", d["cases_new"]) << case_list("removed cases", d["cases_removed"])
      << case_list("fixed", d["fixed"]) << case_list("newly divergent", d["newly_divergent"])
      << case_list("on another basis (never counted as fixed)", d["basis_changed"])
      << case_list("other status changes", other_changes(d));
    if (!d["counts_changed"].empty() || !d["totals_changed"].empty()) {
        s << "counts changed:\n";
        for (const auto& c : d["counts_changed"])
            s << "  " << c["case"].get<std::string>() << ": " << changes_line(c["changes"]) << "\n";
        if (!d["totals_changed"].empty()) s << "  (total): " << changes_line(d["totals_changed"]) << "\n";
    }
    if (!d["metrics_changed"].empty()) {
        s << "metrics changed:\n";
        for (const auto& c : d["metrics_changed"])
            s << "  " << c["case"].get<std::string>() << ": " << changes_line(c["changes"]) << "\n";
    }
    if (!d["ledger_changed"].empty()) {
        s << "ledger changed (" << d["ledger_changed"].size() << " rule ids):\n";
        for (const auto& r : d["ledger_changed"])
            s << "  " << r["id"].get<std::string>() << ": "
              << (r["old"].is_null() ? "(absent)" : r["old"].get<std::string>()) << " -> "
              << (r["new"].is_null() ? "(absent)" : r["new"].get<std::string>()) << "\n";
    }
    if (!d["coverage_changed"].empty()) {
        s << "coverage changed (" << d["coverage_changed"].size()
          << " routines, blocks executed of blocks):\n";
        auto fig = [](const ojson& f) {
            return f.is_null() ? std::string("(absent)") : f["executed"].dump() + "/" + f["blocks"].dump();
        };
        for (const auto& r : d["coverage_changed"])
            s << "  " << r["image"].get<std::string>() << " " << r["routine"].get<std::string>() << ": "
              << fig(r["old"]) << " -> " << fig(r["new"]) << "\n";
    }
    s << case_list("REGRESSIONS", d["regressions"]);
    s << (regressed(d) ? "refcheck diff: " + std::to_string(d["regressions"].size()) + " case(s) got worse\n"
                       : std::string("refcheck diff: no case got worse\n"));
    return s.str();
}

} // namespace refcheck::harness
