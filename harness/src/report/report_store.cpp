// A case report as it is written, and as it is read back: what every report of a run would repeat
// is written once, in run.json. That is the rule index of its evidence (the ledger's rows carry it)
// and the coverage of the routines the case never entered (each such entry is the same in every
// case of one image: all blocks missed; run.json's "image_coverage" holds it once, with the
// coverage reasons' header).
#include "refcheck/harness/report.hpp"

#include <algorithm>
#include <stdexcept>

namespace refcheck::harness {

namespace {

std::pair<std::string, std::string> image_key(const ojson& report) {
    const ojson& c = member(report, "coverage");
    const ojson& sha = member(member(member(report, "inputs"), "image"), "sha256");
    return {member(c, "image").is_string() ? c.at("image").get<std::string>() : "",
            sha.is_string() ? sha.get<std::string>() : ""};
}

bool entered(const ojson& routine) {
    const ojson& e = member(routine, "executed");
    return e.is_number() && e.get<std::uint64_t>() > 0;
}

} // namespace

ojson SharedCoverage::store(const ojson& report) {
    ojson out = report;
    if (ojson& e = out["evidence"]; e.is_object() && e.contains("rules"))
        e.erase("rules");
    else if (e.is_null())
        out.erase("evidence");
    ojson& c = out["coverage"];
    if (!c.is_object() || !c.contains("routines")) {
        if (c.is_null()) out.erase("coverage");
        return out;
    }
    Image& image = images_[image_key(report)];
    if (c.contains("reasons")) {
        image.reasons = c.at("reasons");
        c.erase("reasons");
    }
    ojson kept = ojson::object();
    std::uint64_t left = 0;
    for (const auto& [name, r] : c.at("routines").items()) {
        if (entered(r)) {
            kept[name] = r;
        } else {
            image.routines.try_emplace(name, r);
            ++left;
        }
    }
    c["routines"] = std::move(kept);
    c["not_entered"] = left;
    return out;
}

void SharedCoverage::add(const ojson& image_coverage) {
    for (const auto& i : image_coverage) {
        Image& image = images_[{i.at("image").get<std::string>(), i.at("sha256").get<std::string>()}];
        if (i.contains("reasons")) image.reasons = i.at("reasons");
        for (const auto& [name, r] : i.at("routines").items()) image.routines.try_emplace(name, r);
    }
}

ojson SharedCoverage::json() const {
    ojson out = ojson::array();
    for (const auto& [key, image] : images_) {
        // By address, then name: the same order whichever cases (or shards) contributed.
        std::vector<std::pair<std::string, std::string>> order;
        for (const auto& [name, r] : image.routines)
            order.emplace_back(r.value("address", std::string()), name);
        std::sort(order.begin(), order.end());
        ojson routines = ojson::object();
        for (const auto& [address, name] : order) routines[name] = image.routines.at(name);
        ojson j = {{"image", key.first}, {"sha256", key.second}};
        if (!image.reasons.is_null()) j["reasons"] = image.reasons;
        j["routines"] = std::move(routines);
        out.push_back(std::move(j));
    }
    return out;
}

ojson SharedCoverage::restore(const ojson& stored, const ojson& evidence) const {
    ojson out = stored;
    if (ojson& e = out["evidence"]; e.is_object() && !e.contains("rules") && evidence.is_object())
        e["rules"] = evidence.at("rules");
    else if (e.is_null())
        out.erase("evidence");
    ojson& c = out["coverage"];
    if (!c.is_object() || !c.contains("not_entered")) {
        if (c.is_null()) out.erase("coverage");
        return out;
    }
    const auto it = images_.find(image_key(stored));
    if (it == images_.end())
        throw std::runtime_error("case " + stored.value("case", std::string()) +
                                 ": run.json's image_coverage lacks its image");
    for (const auto& [name, r] : it->second.routines)
        if (!c.at("routines").contains(name)) c["routines"][name] = r;
    if (!it->second.reasons.is_null()) c["reasons"] = it->second.reasons;
    c.erase("not_entered");
    return out;
}

ojson evidence_from_ledger(const ojson& ledger) {
    if (!ledger.is_object()) return ojson();
    ojson rules = ojson::object();
    for (const auto& row : member(ledger, "rules"))
        rules[row.at("id").get<std::string>()] = {
            {"level", row.at("level")}, {"section", row.at("section")}, {"predicate", row.at("predicate")}};
    return {{"document", ledger.at("document")}, {"sha256", ledger.at("sha256")}, {"rules", rules}};
}

} // namespace refcheck::harness
