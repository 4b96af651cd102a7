// Run level of the coverage reasons: the cases' annotations joined per image, the groups' tallies,
// stale reasons, and the HTML section that shows every unreached block with its cause.
#include "refcheck/harness/coverage_reasons.hpp"

#include <map>
#include <set>
#include <sstream>

namespace refcheck::harness {

namespace {

// Entries by address; the first case's copy of an entry is kept (every case keys blocks alike).
void collect(std::map<std::string, ojson>& into, const ojson& list) {
    for (const auto& e : list) into.try_emplace(e.at("address").get<std::string>(), e);
}

struct Tally {
    std::uint64_t routines = 0, blocks = 0, executed = 0, unreached = 0, explained = 0;
};

} // namespace

void merge_reasons(ojson& merged, const std::vector<const ojson*>& cases) {
    const ojson* with_reasons = nullptr;
    for (const ojson* c : cases) {
        if (c->contains("reasons")) with_reasons = c;
        if (c->contains("reasons_for_another_image"))
            merged["reasons_for_another_image"] = c->at("reasons_for_another_image");
    }
    if (!with_reasons) return;
    ojson stale = ojson::array();
    std::set<std::string> stale_seen;
    auto add_stale = [&](ojson j, const std::string& routine, const char* why) {
        if (!routine.empty()) j["routine"] = routine;
        j["why"] = why;
        if (stale_seen.insert(j.dump()).second) stale.push_back(std::move(j));
    };
    std::map<std::string, Tally> tallies;
    for (auto& [name, r] : merged["routines"].items()) {
        std::map<std::string, ojson> unreached, reached;
        ojson groups;
        for (const ojson* c : cases) {
            const ojson& cr = member(member(*c, "routines"), name.c_str());
            if (!cr.contains("groups")) continue;
            groups = cr.at("groups");
            collect(unreached, member(cr, "unreached"));
            collect(reached, member(cr, "reached_with_reason"));
        }
        if (groups.is_null()) continue;
        const std::set<std::string> missed(r.at("missed").begin(), r.at("missed").end());
        ojson list = ojson::array();
        std::uint64_t explained = 0;
        for (auto& [address, e] : unreached)
            if (missed.count(address)) explained += e.contains("cause"), list.push_back(e);
        for (auto& [address, e] : reached) {
            ojson j = {{"code", e.at("code")}};
            if (e.contains("occurrence")) j["occurrence"] = e.at("occurrence");
            j["cause"] = e.at("cause");
            add_stale(j, name, "reached");
        }
        r["groups"] = groups;
        r["unreached"] = list;
        for (const auto& g : groups) {
            Tally& t = tallies[g.get<std::string>()];
            t.routines += 1, t.blocks += r.at("blocks").get<std::uint64_t>(),
                t.executed += r.at("executed").get<std::uint64_t>();
            t.unreached += list.size(), t.explained += explained;
        }
    }
    for (const ojson* c : cases)
        for (const auto& u : member(member(*c, "reasons"), "unmatched")) add_stale(u, "", "names no block");
    ojson groups = ojson::object();
    std::uint64_t without = 0;
    for (const auto& [g, t] : tallies) {
        groups[g] = {{"routines", t.routines},     {"blocks", t.blocks},
                     {"executed", t.executed},     {"unreached", t.unreached},
                     {"with_reason", t.explained}, {"without_reason", t.unreached - t.explained}};
        without += t.unreached - t.explained;
    }
    const ojson& file = with_reasons->at("reasons");
    merged["reasons"] = {{"file", file.at("file")},     {"sha256", file.at("sha256")},
                         {"causes", file.at("causes")}, {"groups", groups},
                         {"without_reason", without},   {"stale", stale}};
}

namespace {

std::string reason_cell(const ojson& e) {
    if (!e.contains("cause")) return "<td class=divergent>no reason given</td>";
    std::string s = "<td><b>" + escape_markup(e.at("cause").get<std::string>()) + "</b>";
    if (e.contains("note")) s += ": " + escape_markup(e.at("note").get<std::string>());
    return s + "</td>";
}

} // namespace

std::string reasons_html(const ojson& image) {
    if (image.contains("reasons_for_another_image")) {
        const ojson& other = image.at("reasons_for_another_image");
        return "<p class=divergent>No coverage reasons apply to this image: " +
               escape_markup(other.at("file").get<std::string>()) + " is for " +
               escape_markup(other.at("image").get<std::string>()) + " with SHA-256 " +
               escape_markup(other.at("image_sha256").get<std::string>()) +
               ", so its unreached blocks stand without causes.</p>";
    }
    const ojson& reasons = member(image, "reasons");
    if (!reasons.is_object()) return "";
    std::ostringstream h;
    h << "<h3>Unreached blocks of the covered groups</h3><p>Causes from <code>"
      << escape_markup(reasons.at("file").get<std::string>()) << "</code> (SHA-256 "
      << escape_markup(reasons.at("sha256").get<std::string>()) << "). ";
    for (const auto& [g, t] : reasons.at("groups").items())
        h << escape_markup(g) << ": " << t.at("executed") << " of " << t.at("blocks") << " blocks in "
          << t.at("routines") << " routines, " << t.at("unreached") << " unreached ("
          << t.at("without_reason") << " without a reason). ";
    h << "</p><dl>";
    for (const auto& [id, text] : reasons.at("causes").items())
        h << "<dt><b>" << escape_markup(id) << "</b></dt><dd>" << escape_markup(text.get<std::string>())
          << "</dd>";
    h << "</dl><table><tr><th>routine</th><th>groups</th><th>offset</th><th>address</th><th>code</"
         "th><th>cause</th></tr>";
    for (const auto& [name, r] : member(image, "routines").items()) {
        if (!r.contains("groups")) continue;
        std::string groups;
        for (const auto& g : r.at("groups")) groups += (groups.empty() ? "" : " ") + g.get<std::string>();
        for (const auto& e : r.at("unreached"))
            h << "<tr><td>" << escape_markup(name) << "</td><td>" << escape_markup(groups) << "</td><td>+"
              << e.at("offset").get<std::string>() << "</td><td>" << e.at("address").get<std::string>()
              << "</td><td><code>" << escape_markup(e.at("code").get<std::string>()) << "</code></td>"
              << reason_cell(e) << "</tr>";
    }
    h << "</table>";
    if (!reasons.at("stale").empty()) {
        h << "<h4 class=divergent>Stale reasons (their block was reached, or no longer exists)</h4><ul>";
        for (const auto& s : reasons.at("stale"))
            h << "<li>" << escape_markup(s.value("routine", std::string())) << " <code>"
              << escape_markup(s.at("code").get<std::string>())
              << "</code>: " << escape_markup(s.at("why").get<std::string>()) << "</li>";
        h << "</ul>";
    }
    return h.str();
}

} // namespace refcheck::harness
