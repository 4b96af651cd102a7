#include "workbench/workbench_link.hpp"

#include <regex>
#include <set>

namespace refcheck::harness {

using ojson = nlohmann::ordered_json;

std::string workbench_query(const ojson& d, const ojson& inputs) {
    long record = -1;
    std::set<long> faces;
    for (const char* side : {"original", "reimpl"}) {
        if (!d.contains(side) || !d.at(side).is_object()) continue;
        const ojson& e = d.at(side);
        const ojson fields = e.value("fields", ojson::object());
        if (record < 0 && fields.contains("record") && fields.at("record").is_number_integer())
            record = fields.at("record").get<long>();
        if (e.value("kind", std::string()) == "face_draw" && fields.contains("offset") &&
            fields.at("offset").is_number_integer())
            faces.insert(fields.at("offset").get<long>());
    }
    const std::string input = d.value("input", std::string());
    std::smatch m;
    if (record < 0 && std::regex_search(input, m, std::regex("^record (\\d+)"))) record = std::stol(m[1]);
    if (record < 0) return "";
    std::string q = "record.html?r=" + std::to_string(record);
    if (std::regex_search(input, m, std::regex(" state (\\d+)"))) q += "&state=" + m[1].str();
    if (!faces.empty()) {
        q += "&faces=";
        for (auto it = faces.begin(); it != faces.end(); ++it)
            q += (it == faces.begin() ? "" : ",") + std::to_string(*it);
    }
    // The run's model archive by hash: a site built from other archives says so (record r there may
    // be another model). Hex only, so it needs no escaping.
    if (inputs.is_object() && inputs.contains("archives") && inputs.at("archives").is_object()) {
        const ojson& objs = inputs.at("archives").value("3DDATA/3DOBJS.BIN", ojson());
        if (objs.is_string() && std::regex_match(objs.get<std::string>(), std::regex("[0-9a-f]{64}")))
            q += "&objs=" + objs.get<std::string>();
    }
    return q;
}

std::string workbench_link_html(const ojson& d, const ojson& inputs) {
    const std::string q = workbench_query(d, inputs);
    if (q.empty()) return "";
    std::string href = std::string(kWorkbenchFromReport) + q;
    std::string escaped;
    for (const char c : href) escaped += c == '&' ? std::string("&amp;") : std::string(1, c);
    return "<p>In the workbench (<code>refcheck workbench --data DATA --out out/workbench</code>, DATA the "
           "run's data root; a site built from other archives says so): <a href=\"" +
           escaped + "\">the divergent record, its divergent faces highlighted</a></p>";
}

} // namespace refcheck::harness
