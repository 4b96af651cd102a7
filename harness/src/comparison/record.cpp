#include "refcheck/harness/record.hpp"

#include <mutex>
#include <set>
#include <sstream>

namespace refcheck::harness {

Name Name::intern(std::string_view text) {
    static std::mutex mutex;
    static auto* pool = new std::set<std::string, std::less<>>(); // never freed: names live on
    std::lock_guard lock(mutex);
    auto it = pool->find(text);
    if (it == pool->end()) it = pool->emplace(text).first;
    return Name(Held{}, it->c_str());
}

const Value* EventRecord::find(std::string_view name) const {
    for (const auto& f : fields)
        if (f.name == name) return &f.value;
    return nullptr;
}

bool EventRecord::excuses_element(std::uint32_t flag, std::string_view field, std::int32_t element) const {
    for (const auto& x : excuses)
        if ((x.flag & flag) && x.field == field && (x.element == -1 || x.element == element)) return true;
    return false;
}

std::optional<std::array<std::int32_t, 3>> EventRecord::camera_of(std::uint32_t flag, std::string_view field,
                                                                  std::int32_t element) const {
    for (const auto& x : excuses)
        if ((x.flag & flag) && x.field == field && x.element == element && x.camera) return x.camera;
    return std::nullopt;
}

std::string to_string(const Value& v) {
    struct Visitor {
        std::string operator()(std::int64_t i) const { return std::to_string(i); }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(const std::string& s) const { return s; }
        std::string operator()(const IntList& xs) const {
            std::string out = "[";
            for (std::size_t i = 0; i < xs.size(); ++i) {
                if (i) out += ",";
                out += std::to_string(xs[i]);
            }
            return out + "]";
        }
    };
    return std::visit(Visitor{}, v);
}

std::string key_of(const EventRecord& e) {
    std::string out = e.kind.str();
    for (std::size_t i = 0; i < e.key_fields && i < e.fields.size(); ++i)
        out += " " + e.fields[i].name + "=" + to_string(e.fields[i].value);
    return out;
}

std::string to_string(const EventRecord& e) {
    std::string out = e.kind.str();
    for (const auto& f : e.fields) out += " " + f.name + "=" + to_string(f.value);
    return out;
}

} // namespace refcheck::harness
