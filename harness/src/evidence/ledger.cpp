#include "refcheck/harness/ledger.hpp"

#include "refcheck/harness/hash.hpp"

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <span>
#include <sstream>

namespace refcheck::harness {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kIndexHeading = "## Index of rule ids";
constexpr const char* kStatuses[] = {"Proven", "Chosen-unproven", "Sourced-unproven", "Unknown"};

std::string trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return "";
    const auto e = s.find_last_not_of(" \t\r");
    return std::string(s.substr(b, e - b + 1));
}

// "| a | b | c |" -> {"a", "b", "c"}
std::vector<std::string> cells(const std::string& line) {
    std::vector<std::string> out;
    std::size_t at = line.find('|');
    while (at != std::string::npos) {
        const std::size_t next = line.find('|', at + 1);
        if (next == std::string::npos) break;
        out.push_back(trim(std::string_view(line).substr(at + 1, next - at - 1)));
        at = next;
    }
    return out;
}

[[noreturn]] void fail(const fs::path& file, std::size_t line, const std::string& what) {
    throw LedgerError(file.string() + ":" + std::to_string(line) + ": " + what);
}

RuleEntry parse_row(const fs::path& file, std::size_t n, const std::string& line) {
    const auto c = cells(line);
    if (c.size() != 4) fail(file, n, "a rule index row has 4 cells (id, level, section, predicate)");
    const std::string& id = c[0];
    if (id.size() < 3 || id.front() != '`' || id.back() != '`' || id.find('`', 1) != id.size() - 1)
        fail(file, n, "a rule id is written in backticks, got " + id);
    if (c[1] != "Sourced" && c[1] != "Chosen" && c[1] != "Unknown")
        fail(file, n, "unknown evidence level \"" + c[1] + "\" (Sourced, Chosen or Unknown)");
    std::string text = c[3];
    if (text.size() >= 2 && text.front() == '`' && text.back() == '`') text = text.substr(1, text.size() - 2);
    try {
        return {id.substr(1, id.size() - 2), c[1], c[2], parse_predicate(text)};
    } catch (const PredicateError& e) {
        fail(file, n, "predicate of " + id + ": " + e.what());
    }
}

} // namespace

const RuleEntry* RuleIndex::find(std::string_view id) const {
    for (const auto& r : rules)
        if (r.id == id) return &r;
    return nullptr;
}

RuleIndex load_rule_index(const fs::path& document) {
    // Read once: the rules parsed and the SHA-256 the ledger names are of the same bytes.
    std::ifstream file(document, std::ios::binary);
    if (!file) throw LedgerError("cannot read the rule document " + document.string());
    const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (file.bad()) throw LedgerError("cannot read the rule document " + document.string());
    std::istringstream in(bytes);
    RuleIndex index;
    index.file = document;
    index.sha256 = sha256_hex(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
    std::set<std::string> seen;
    std::string line;
    std::size_t n = 0;
    enum class State { Before, Header, Rows } state = State::Before;
    while (std::getline(in, line)) {
        ++n;
        if (state == State::Before) {
            if (trim(line) == kIndexHeading) state = State::Header;
            continue;
        }
        if (trim(line).empty() && state == State::Header) continue;
        if (trim(line).rfind('|', 0) != 0) {
            if (state == State::Rows) break; // the table ended
            fail(document, n, "expected the rule index table after \"" + std::string(kIndexHeading) + "\"");
        }
        const auto c = cells(line);
        if (state == State::Header) {
            if (c.size() != 4 || c[0] != "id" || c[1] != "level" || c[2] != "section" || c[3] != "predicate")
                fail(document, n, "the rule index header is | id | level | section | predicate |");
            state = State::Rows;
            continue;
        }
        if (!c.empty() && c[0].find_first_not_of("-: ") == std::string::npos) continue; // | --- |
        RuleEntry r = parse_row(document, n, line);
        if (!seen.insert(r.id).second) fail(document, n, "rule id \"" + r.id + "\" is listed twice");
        index.rules.push_back(std::move(r));
    }
    if (state == State::Before)
        throw LedgerError(document.string() + " has no \"" + std::string(kIndexHeading) + "\" section");
    if (index.rules.empty()) throw LedgerError(document.string() + ": the rule index lists no rule");
    return index;
}

std::vector<std::string> unknown_rule_ids(const Case& c, const RuleIndex& index) {
    std::vector<std::string> out;
    for (const auto& id : c.rules)
        if (!index.find(id))
            out.push_back("case " + c.name + " (" + c.file.string() + ") names rule id \"" + id +
                          "\", which " + index.file.filename().string() + " does not list");
    return out;
}

ojson evidence_json(const RuleIndex& index) {
    ojson rules = ojson::object();
    for (const auto& r : index.rules)
        rules[r.id] = {{"level", r.level}, {"section", r.section}, {"predicate", r.predicate.text}};
    return {{"document", index.file.filename().string()}, {"sha256", index.sha256}, {"rules", rules}};
}

std::string ledger_status(const std::string& level, bool proven) {
    if (proven) return "Proven";
    return level == "Unknown" ? "Unknown" : level + "-unproven";
}

namespace {

// The count a case report gives a rule it claims ("exercised"), 0 when it gives none.
std::uint64_t exercised_count(const ojson& report, const std::string& id) {
    const ojson& x = member(report, "exercised");
    if (!x.is_object() || !x.contains(id) || !x.at(id).is_number_integer() ||
        x.at(id).get<std::int64_t>() <= 0)
        return 0;
    return x.at(id).get<std::uint64_t>();
}

} // namespace

ExerciseCounter exercise_counter(const Case& c, const RuleIndex& index) {
    std::vector<std::pair<std::string, const RulePredicate*>> rules;
    std::set<std::string> seen;
    for (const auto& id : c.rules)
        if (const RuleEntry* r = index.find(id); r && seen.insert(id).second)
            rules.emplace_back(id, &r->predicate);
    return ExerciseCounter(std::move(rules));
}

ojson make_ledger(const std::vector<ojson>& reports) {
    const ojson* evidence = nullptr;
    std::set<std::string> documents, injected, narrowed;
    std::map<std::string, std::set<std::string>> proven_by, exercised_by, claimed_by, not_exercised,
        disputed_by;
    std::map<std::string, std::set<std::pair<std::string, std::string>>> proven_on; // rule -> images
    std::set<std::pair<std::string, std::string>> proving_images;
    std::map<std::string, std::uint64_t> proving_count;
    for (const auto& r : reports) {
        const ojson& e = member(r, "evidence");
        if (!e.is_object()) continue;
        if (!evidence) evidence = &e;
        documents.insert(e.value("sha256", std::string()));
        const std::string name = r.at("case").get<std::string>();
        // A case with seeded faults (--patch, --inject-reimpl-light-swap) proves nothing.
        const bool seeded = r.contains("injected");
        if (seeded) injected.insert(name);
        // Nor does a case a narrowing left inputs out of (--only, an input --filter): the inputs it
        // did not compare may diverge on events that satisfy the same predicates.
        const bool partial = !member(member(r, "selection"), "inputs_left_out").is_null();
        if (partial) narrowed.insert(name);
        const bool equivalent = r.value("status", std::string()) == "equivalent" && !seeded && !partial;
        // A case without seeded faults that diverged is a counterexample, as far as the run can tell,
        // to every rule it claims: while one stands, another case's agreement proves none of them (a
        // bound broken in one case was Proven by a case whose inputs never met it). An error is no
        // verdict either way (nothing compared, an emulator limit): it proves and disputes nothing.
        const bool disputes = !seeded && r.value("status", std::string()) == "divergent";
        const ojson& image = member(member(r, "inputs"), "image");
        const std::pair<std::string, std::string> ran_on = {
            member(image, "file").is_string() ? image.at("file").get<std::string>() : "",
            member(image, "sha256").is_string() ? image.at("sha256").get<std::string>() : ""};
        for (const auto& j : member(r, "rules")) {
            const std::string id = j.get<std::string>();
            claimed_by[id].insert(name);
            if (disputes) disputed_by[id].insert(name);
            const std::uint64_t n = exercised_count(r, id);
            if (n == 0) {
                not_exercised[id].insert(name);
                continue;
            }
            exercised_by[id].insert(name);
            if (equivalent) {
                proven_by[id].insert(name);
                proven_on[id].insert(ran_on);
                proving_count[id] += n;
            }
        }
    }
    if (!evidence) return ojson();
    ojson ledger;
    ledger["document"] = evidence->at("document");
    ledger["sha256"] = evidence->at("sha256");
    // Reports counted under different rule documents counted under different predicates: none of
    // their counts proves a rule of the first document's (levels and rows are the first's).
    const bool one_document = documents.size() == 1;
    if (!one_document) {
        ledger["error"] = "the case reports cite " + std::to_string(documents.size()) +
                          " different versions of the rule document; levels are those of the first, and "
                          "nothing is proven: each report's counts are of its own document's predicates";
        proven_by.clear();
        proving_count.clear();
    }
    if (!injected.empty()) ledger["injected"] = injected;
    if (!narrowed.empty()) ledger["narrowed"] = narrowed;
    auto names = [](const std::map<std::string, std::set<std::string>>& m, const std::string& id) {
        const auto it = m.find(id);
        return it == m.end() ? ojson::array() : ojson(it->second);
    };
    std::map<std::string, std::uint64_t> counts;
    std::uint64_t disputed = 0; // rules a divergent case claims
    ojson rows = ojson::array();
    ojson unexercised = ojson::array();
    for (const auto& [id, rule] : evidence->at("rules").items()) {
        const std::string level = rule.at("level").get<std::string>();
        ojson row;
        row["id"] = id;
        row["level"] = level;
        row["section"] = rule.at("section");
        row["predicate"] = rule.value("predicate", std::string());
        const bool proven = proven_by.count(id) != 0 && !disputed_by.count(id);
        row["status"] = ledger_status(level, proven);
        row["exercised"] = proving_count[id];
        row["proven_by"] = names(proven_by, id);
        // The images the proving cases ran on (a run may hold cases of several: the stand-in and the
        // retail stand-in), so that Proven says for which.
        ojson on = ojson::array();
        if (const auto it = proven_on.find(id); it != proven_on.end())
            for (const auto& [file, sha] : it->second) {
                on.push_back({{"file", file}, {"sha256", sha}});
                if (proven) proving_images.insert({file, sha});
            }
        row["proven_on"] = std::move(on);
        row["disputed_by"] = names(disputed_by, id);
        if (!row["disputed_by"].empty()) ++disputed;
        row["exercised_by"] = names(exercised_by, id);
        row["claimed_by"] = names(claimed_by, id);
        row["claimed_not_exercised"] = names(not_exercised, id);
        for (const auto& c : row["claimed_not_exercised"]) unexercised.push_back({{"rule", id}, {"case", c}});
        ++counts[row["status"].get<std::string>()];
        rows.push_back(std::move(row));
    }
    ojson c = ojson::object();
    for (const char* s : kStatuses) c[s] = counts[s];
    if (disputed) ledger["disputed"] = disputed;
    ojson images = ojson::array();
    for (const auto& [file, sha] : proving_images) images.push_back({{"file", file}, {"sha256", sha}});
    ledger["proven_on"] = std::move(images);
    ledger["rules_total"] = rows.size();
    ledger["counts"] = c;
    ledger["claimed_not_exercised"] = std::move(unexercised);
    ledger["rules"] = std::move(rows);
    return ledger;
}

namespace {
std::string joined(const ojson& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n.get<std::string>();
    return out;
}
} // namespace

std::string ledger_summary(const ojson& ledger) {
    std::string line = "evidence ledger (" + ledger.value("document", std::string()) +
                       "): " + std::to_string(ledger.value("rules_total", 0ull)) + " rule ids:";
    bool first = true;
    for (const auto& [status, n] : member(ledger, "counts").items()) {
        line += (first ? " " : ", ") + std::to_string(n.get<std::uint64_t>()) + " " + status;
        first = false;
    }
    const ojson& missing = member(ledger, "claimed_not_exercised");
    if (missing.is_array() && !missing.empty()) {
        line += "; " + std::to_string(missing.size()) + " claimed, not exercised:";
        std::size_t shown = 0;
        for (const auto& m : missing) {
            if (shown++ == 8) {
                line += " ...";
                break;
            }
            line += (shown == 1 ? " " : ", ") + m.at("case").get<std::string>() + ":" +
                    m.at("rule").get<std::string>();
        }
    }
    if (ledger.contains("injected"))
        line += "; nothing proven by " + std::to_string(ledger.at("injected").size()) +
                " case(s) with seeded faults";
    if (ledger.contains("narrowed"))
        line += "; nothing proven by " + std::to_string(ledger.at("narrowed").size()) +
                " case(s) narrowed to some of their inputs";
    if (ledger.contains("disputed"))
        line += "; " + std::to_string(ledger.at("disputed").get<std::uint64_t>()) +
                " rule(s) not Proven while a divergent case claims them";
    if (const ojson& on = member(ledger, "proven_on"); on.is_array() && on.size() > 1) {
        line += "; Proven on " + std::to_string(on.size()) + " images (";
        for (std::size_t k = 0; k < on.size(); ++k)
            line += (k ? ", " : "") + on[k].at("file").get<std::string>();
        line += "): each rule's proven_on says which";
    }
    if (ledger.contains("error")) line += "; " + ledger.at("error").get<std::string>();
    return line;
}

std::string ledger_html(const ojson& ledger) {
    std::ostringstream h;
    h << "<p>" << escape_markup(ledger_summary(ledger)) << ". Document SHA-256 "
      << escape_markup(ledger.value("sha256", std::string()))
      << ". A rule is Proven when an equivalent case, without seeded faults and not narrowed to some of its "
         "inputs, that claims it compared at least "
         "one "
         "matched event satisfying its predicate (the count is of such events over those cases), and no "
         "case without seeded faults that claims it diverged.</p>";
    if (ledger.contains("error"))
        h << "<p class=error>" << escape_markup(ledger.at("error").get<std::string>()) << "</p>";
    if (ledger.contains("injected"))
        h << "<p class=error>Seeded faults in " << escape_markup(joined(ledger.at("injected")))
          << ": these cases prove nothing.</p>";
    if (ledger.contains("narrowed"))
        h << "<p class=error>Narrowed to some of their inputs (--only, --filter) in "
          << escape_markup(joined(ledger.at("narrowed"))) << ": these cases prove nothing.</p>";
    h << "<table><tr><th>rule "
         "id</th><th>level</th><th>section</th><th>predicate</th><th>status</th><th>exercised</th>"
         "<th>proven by</th><th>claimed, not exercised</th></tr>";
    for (const auto& row : member(ledger, "rules")) {
        const std::string status = row.at("status").get<std::string>();
        const bool unexercised = !row.at("claimed_not_exercised").empty();
        h << "<tr"
          << (status == "Proven" ? " class=equivalent"
              : unexercised      ? " class=divergent"
                                 : "")
          << "><td><code>" << escape_markup(row.at("id").get<std::string>()) << "</code></td><td>"
          << escape_markup(row.at("level").get<std::string>()) << "</td><td>"
          << escape_markup(row.at("section").get<std::string>()) << "</td><td><code>"
          << escape_markup(row.at("predicate").get<std::string>()) << "</code></td><td>"
          << escape_markup(status) << "</td><td>" << row.at("exercised").get<std::uint64_t>() << "</td><td>"
          << escape_markup(joined(row.at("proven_by"))) << "</td><td>"
          << escape_markup(joined(row.at("claimed_not_exercised"))) << "</td></tr>";
    }
    h << "</table>";
    return h.str();
}

} // namespace refcheck::harness
