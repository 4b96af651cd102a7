#include "refcheck/harness/coverage_reasons.hpp"
#include "refcheck/harness/json_bounded.hpp"

#include "refcheck/harness/hash.hpp"

#include <capstone/capstone.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <regex>
#include <set>

namespace refcheck::harness {

namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
    throw CoverageReasonsError(file.string() + ": " + what);
}

std::string text_of(const ojson& j, const char* key, const std::filesystem::path& file,
                    const std::string& where) {
    const ojson& v = member(j, key);
    if (!v.is_string() || v.get<std::string>().empty())
        fail(file, where + ": \"" + key + "\" must be a non-empty string");
    return v.get<std::string>();
}

std::vector<std::pair<std::string, std::vector<std::string>>> groups_of(const ojson& j,
                                                                        const std::filesystem::path& file) {
    if (!j.is_object() || j.empty()) fail(file, "\"groups\" must be an object of entry-routine lists");
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    for (const auto& [name, entries] : j.items()) {
        if (!entries.is_array() || entries.empty())
            fail(file, "group \"" + name + "\" must list its entry routines");
        std::vector<std::string> list;
        for (const auto& e : entries) {
            if (!e.is_string()) fail(file, "group \"" + name + "\": entries are routine names");
            list.push_back(e.get<std::string>());
        }
        out.emplace_back(name, std::move(list));
    }
    return out;
}

CoverageReason reason_of(const ojson& j, std::size_t i, const std::map<std::string, std::string>& causes,
                         const std::filesystem::path& file) {
    const std::string where = "blocks[" + std::to_string(i) + "]";
    if (!j.is_object()) fail(file, where + " must be an object");
    for (const auto& [k, v] : j.items())
        if (k != "routine" && k != "code" && k != "occurrence" && k != "cause" && k != "note")
            fail(file, where + ": unknown key \"" + k + "\"");
    CoverageReason r;
    r.key.routine = text_of(j, "routine", file, where);
    r.key.code = text_of(j, "code", file, where);
    if (j.contains("occurrence")) {
        if (!j.at("occurrence").is_number_unsigned() || j.at("occurrence").get<std::uint32_t>() < 2)
            fail(file, where + ": \"occurrence\" is 2 or more (leave it out for the first)");
        r.key.occurrence = j.at("occurrence").get<std::uint32_t>();
    }
    r.cause = text_of(j, "cause", file, where);
    if (!causes.count(r.cause)) fail(file, where + ": cause \"" + r.cause + "\" is not in \"causes\"");
    if (j.contains("note")) r.note = text_of(j, "note", file, where);
    return r;
}

} // namespace

CoverageReasons load_coverage_reasons(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) fail(file, "cannot read the coverage reasons");
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    ojson j;
    try {
        j = parse_json_bounded<ojson>(bytes);
    } catch (const std::exception& e) {
        fail(file, std::string("not valid JSON: ") + e.what());
    }
    if (!j.is_object() || member(j, "schema") != kCoverageReasonsSchema)
        fail(file, std::string("\"schema\" must be \"") + kCoverageReasonsSchema + "\"");
    for (const auto& [k, v] : j.items())
        if (k != "schema" && k != "image" && k != "image_sha256" && k != "description" && k != "groups" &&
            k != "causes" && k != "blocks")
            fail(file, "unknown key \"" + k + "\"");
    CoverageReasons r;
    r.file = file.filename().string();
    r.sha256 = sha256_hex(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
    r.image = text_of(j, "image", file, "the file");
    r.image_sha256 = text_of(j, "image_sha256", file, "the file");
    if (r.image_sha256.size() != 64 ||
        r.image_sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
        fail(file, "\"image_sha256\" must be the 64 lower-case hex digits of the image's SHA-256");
    r.groups = groups_of(member(j, "groups"), file);
    if (!member(j, "causes").is_object()) fail(file, "\"causes\" must be an object of id: explanation");
    for (const auto& [id, text] : j.at("causes").items()) {
        if (!text.is_string() || text.get<std::string>().empty())
            fail(file, "cause \"" + id + "\" needs its explanation");
        r.causes.emplace(id, text.get<std::string>());
    }
    if (!member(j, "blocks").is_array()) fail(file, "\"blocks\" must be an array");
    std::set<BlockKey> seen;
    for (std::size_t i = 0; i < j.at("blocks").size(); ++i) {
        r.blocks.push_back(reason_of(j.at("blocks").at(i), i, r.causes, file));
        if (!seen.insert(r.blocks.back().key).second)
            fail(file, "blocks[" + std::to_string(i) + "] repeats the key of an earlier entry");
    }
    return r;
}

// ---- block keys ----

std::string block_code(const emu::Machine& m, const StaticBlock& block,
                       const std::map<emu::Address, std::string>& names) {
    struct Capstone {
        csh handle = 0;
        Capstone() {
            if (cs_open(CS_ARCH_X86, CS_MODE_32, &handle) != CS_ERR_OK)
                throw std::runtime_error("Capstone: cannot open x86-32");
        }
        ~Capstone() { cs_close(&handle); }
    };
    static thread_local Capstone capstone;
    const csh cs = capstone.handle;
    static const std::regex number("0x[0-9a-f]+");
    const emu::Range image = m.image().range();
    const std::vector<std::uint8_t> bytes = m.read_bytes(block.address, block.size);
    cs_insn* insn = nullptr;
    const std::size_t n = cs_disasm(cs, bytes.data(), bytes.size(), block.address, 0, &insn);
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        std::string ops;
        const std::string text = insn[i].op_str;
        std::size_t last = 0;
        for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator();
             ++it) {
            const auto v = std::stoull(it->str(), nullptr, 16);
            ops += text.substr(last, static_cast<std::size_t>(it->position()) - last);
            const auto name = names.find(static_cast<emu::Address>(v));
            ops += v > 0xffffffffull || !image.contains(static_cast<emu::Address>(v)) ? it->str()
                   : name != names.end()                                              ? name->second
                                                                                      : "@";
            last = static_cast<std::size_t>(it->position() + it->length());
        }
        ops += text.substr(last);
        out += (out.empty() ? "" : "; ") + std::string(insn[i].mnemonic) + (ops.empty() ? "" : " " + ops);
    }
    if (insn) cs_free(insn, n);
    return out;
}

std::vector<KeyedBlock> keyed_blocks(const emu::Machine& m, const std::vector<RoutineBlocks>& routines,
                                     const CoverageReasons& reasons) {
    std::map<std::string, std::size_t> by_name;
    std::map<std::uint32_t, std::size_t> by_start;
    for (std::size_t i = 0; i < routines.size(); ++i)
        by_name.emplace(routines[i].name, i), by_start.emplace(routines[i].range.begin, i);
    std::map<std::size_t, std::vector<std::string>> member_of; // routine index -> groups, file order
    for (const auto& [group, entries] : reasons.groups) {
        std::deque<std::size_t> work;
        for (const auto& e : entries)
            if (const auto it = by_name.find(e); it != by_name.end()) work.push_back(it->second);
        std::set<std::size_t> seen;
        while (!work.empty()) {
            const std::size_t r = work.front();
            work.pop_front();
            if (!seen.insert(r).second) continue;
            member_of[r].push_back(group);
            for (std::uint32_t t : routines[r].calls)
                if (const auto it = by_start.find(t); it != by_start.end()) work.push_back(it->second);
        }
    }
    const auto names = emu::address_names(m.image());
    std::vector<KeyedBlock> out;
    for (const auto& [r, groups] : member_of) {
        std::map<std::string, std::uint32_t> seen;
        for (const StaticBlock& b : routines[r].blocks) {
            KeyedBlock k{b.address,
                         b.address - routines[r].range.begin,
                         {routines[r].name, block_code(m, b, names)},
                         groups};
            k.key.occurrence = ++seen[k.key.code];
            out.push_back(std::move(k));
        }
    }
    return out;
}

// ---- case reports ----

namespace {

ojson key_json(const BlockKey& k) {
    ojson j = {{"routine", k.routine}, {"code", k.code}};
    if (k.occurrence > 1) j["occurrence"] = k.occurrence;
    return j;
}

ojson block_json(const KeyedBlock& b, const CoverageReason* reason) {
    ojson j = {{"address", emu::hex(b.address)}, {"offset", emu::hex(b.offset)}, {"code", b.key.code}};
    if (b.key.occurrence > 1) j["occurrence"] = b.key.occurrence;
    if (reason) {
        j["cause"] = reason->cause;
        if (!reason->note.empty()) j["note"] = reason->note;
    }
    return j;
}

} // namespace

void annotate_coverage(ojson& coverage, const std::vector<KeyedBlock>& blocks,
                       const CoverageReasons& reasons) {
    std::map<BlockKey, const CoverageReason*> by_key;
    for (const auto& r : reasons.blocks) by_key.emplace(r.key, &r);
    std::set<BlockKey> matched;
    ojson& routines = coverage["routines"];
    // The blocks come routine by routine: each routine's entry is found (a linear search in an
    // ordered object) and its missed blocks gathered once, not once a block.
    ojson* r_at = nullptr;
    const std::string* r_name = nullptr;
    std::set<std::string> missed;
    for (const KeyedBlock& b : blocks) {
        if (!r_name || *r_name != b.key.routine) {
            r_name = &b.key.routine;
            r_at = &routines[b.key.routine];
            missed.clear();
            for (const ojson& m : member(*r_at, "missed")) missed.insert(m.get<std::string>());
        }
        ojson& r = *r_at;
        if (!r.contains("groups")) r["groups"] = b.groups, r["unreached"] = ojson::array();
        const bool unreached = missed.count(emu::hex(b.address)) > 0;
        const auto reason = by_key.find(b.key);
        if (reason != by_key.end()) matched.insert(b.key);
        const CoverageReason* why = reason != by_key.end() ? reason->second : nullptr;
        if (unreached)
            r["unreached"].push_back(block_json(b, why));
        else if (why)
            r["reached_with_reason"].push_back(block_json(b, why));
    }
    ojson unmatched = ojson::array();
    for (const auto& r : reasons.blocks)
        if (!matched.count(r.key)) {
            ojson j = key_json(r.key);
            j["cause"] = r.cause;
            unmatched.push_back(j);
        }
    ojson causes = ojson::object();
    for (const auto& [id, text] : reasons.causes) causes[id] = text;
    coverage["reasons"] = {
        {"file", reasons.file}, {"sha256", reasons.sha256}, {"causes", causes}, {"unmatched", unmatched}};
}

void note_reasons_for_another_image(ojson& coverage, const CoverageReasons& reasons) {
    coverage["reasons_for_another_image"] = {{"file", reasons.file},
                                             {"sha256", reasons.sha256},
                                             {"image", reasons.image},
                                             {"image_sha256", reasons.image_sha256}};
}

} // namespace refcheck::harness
