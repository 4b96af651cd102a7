#include "refcheck/harness/run.hpp"

#include "family/families.hpp"
#include "refcheck/harness/bisect.hpp"
#include "refcheck/harness/coverage_reasons.hpp"
#include "refcheck/harness/hash.hpp"
#include "refcheck/harness/ledger.hpp"
#include "refcheck/harness/original.hpp"
#include "refcheck/harness/out_folder.hpp"
#include "refcheck/harness/profile.hpp"
#include "run/case_observer.hpp"
#include "run/case_part.hpp"
#include "run/workers.hpp"
#include "refcheck/harness/filter.hpp"

#include <algorithm>
#include <csignal>
#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>

namespace refcheck::harness {

namespace fs = std::filesystem;

namespace {
fs::path pick(const std::optional<fs::path>& override_path, const std::string& case_value,
              const fs::path& case_file, const fs::path& fallback, const RunOptions& o,
              fs::path Environment::*field) {
    if (override_path) return *override_path;
    if (const auto named = o.stand_ins.find(case_value); named != o.stand_ins.end())
        return named->second.*field;
    if (case_value != "default") {
        fs::path p = case_value;
        return p.is_absolute() ? p : case_file.parent_path() / p;
    }
    return fallback;
}

// A case's data root: "generated:NAME" is a root the build generates beside the default one
// (build/data/NAME, e.g. the hostile roots of tools/synth/hostile.hpp); it is the case's input
// itself, so --data does not replace it.
fs::path pick_data(const RunOptions& o, const Case& c) {
    constexpr std::string_view kGenerated = "generated:";
    if (c.data.starts_with(kGenerated))
        return o.defaults.data.parent_path() / c.data.substr(kGenerated.size());
    return pick(o.data, c.data, c.file, o.defaults.data, o, &Environment::data);
}
} // namespace

Environment resolve_environment(const Case& c, const RunOptions& o) {
    return {pick(o.image, c.image, c.file, o.defaults.image, o, &Environment::image),
            pick(o.profile, c.profile, c.file, o.defaults.profile, o, &Environment::profile), pick_data(o, c),
            o.coverage_reasons, nullptr};
}

namespace {
std::vector<std::uint8_t> parse_hex(const std::string& hex, const std::string& text) {
    if (hex.empty() || hex.size() % 2 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        throw std::invalid_argument("patch bytes must be pairs of hex digits, got \"" + hex + "\" in \"" +
                                    text + "\"");
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i < hex.size(); i += 2)
        out.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
    return out;
}
} // namespace

std::uint64_t patch_number(const std::string& text) {
    const bool hex = text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0;
    return std::stoull(hex ? text.substr(2) : text, nullptr, hex ? 16 : 10); // never octal: "010" is ten
}

namespace {
// WHERE: 0xADDRESS or a symbol, optionally +OFFSET (0x-hex or decimal); checked here so that a
// bad one is named before anything runs (Original::resolve then only looks the symbol up).
void check_patch_where(const std::string& where, const std::string& text) {
    auto fail = [&](const std::string& what) {
        throw std::invalid_argument("the place \"" + where + "\" in \"" + text + "\" " + what +
                                    " (WHERE is a symbol or 0xADDRESS, optionally +OFFSET, e.g. "
                                    "op_secondary+0x70)");
    };
    const auto plus = where.find('+');
    const std::string base = where.substr(0, plus);
    auto is_number = [](const std::string& n) {
        if (n.rfind("0x", 0) == 0 || n.rfind("0X", 0) == 0)
            return n.size() > 2 && n.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos &&
                   n.size() <= 10;
        return !n.empty() && n.size() <= 10 && n.find_first_not_of("0123456789") == std::string::npos;
    };
    if (base.empty()) fail("has no symbol or address");
    if (base.rfind("0x", 0) == 0 || base.rfind("0X", 0) == 0) {
        if (!is_number(base)) fail("has an address that is not 1 to 8 hex digits after 0x");
    } else if (base.find_first_of("+:- \t") != std::string::npos) {
        fail("has a symbol with a space or sign in it");
    }
    if (plus != std::string::npos && !is_number(where.substr(plus + 1)))
        fail("has an offset \"" + where.substr(plus + 1) + "\" that is not a number (0x1f or 31)");
    // Ten decimal digits reach past 2^32 - 1: such an offset wrapped (op_secondary+4294967296 patched
    // op_secondary itself).
    if (plus != std::string::npos && patch_number(where.substr(plus + 1)) > 0xffffffffull)
        fail("has an offset " + where.substr(plus + 1) + " that does not fit 32 bits (the address space's)");
}
} // namespace

std::string hex_string(std::span<const std::uint8_t> bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (const std::uint8_t b : bytes) out += digits[b >> 4], out += digits[b & 15];
    return out;
}

std::string Patch::text() const {
    return where + ":" + (expected.empty() ? "" : hex_string(expected) + "->") + hex_string(bytes);
}

Patch parse_patch(const std::string& text) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0)
        throw std::invalid_argument("a patch is WHERE:HEXBYTES or WHERE:OLDHEX->NEWHEX, got \"" + text +
                                    "\"");
    Patch p;
    p.where = text.substr(0, colon);
    check_patch_where(p.where, text);
    const std::string value = text.substr(colon + 1);
    if (const auto arrow = value.find("->"); arrow != std::string::npos) {
        p.expected = parse_hex(value.substr(0, arrow), text);
        p.bytes = parse_hex(value.substr(arrow + 2), text);
        if (p.expected.size() != p.bytes.size())
            throw std::invalid_argument(
                "a patch replaces as many bytes as it states: " + std::to_string(p.expected.size()) +
                " old and " + std::to_string(p.bytes.size()) + " new in \"" + text + "\"");
    } else {
        p.bytes = parse_hex(value, text);
    }
    return p;
}

std::vector<std::string> seeded_fault_banner(const Injection& injection) {
    std::vector<std::string> lines;
    if (injection.empty()) return lines;
    lines.push_back(
        "refcheck: SEEDED FAULTS — this run does not test the unmodified original and reimplementation:");
    for (const Patch& p : injection.patches)
        lines.push_back("  the original is modified: " + std::to_string(p.bytes.size()) + " byte(s) at " +
                        p.where + " overwritten with " + hex_string(p.bytes) +
                        (p.expected.empty() ? " (the bytes it replaces are not stated)"
                                            : " (stated to replace " + hex_string(p.expected) + ")"));
    if (injection.reimpl_light_swapped)
        lines.push_back("  the reimplementation's input is modified: its light has x and z swapped");
    return lines;
}

// A patch as given on the command line: the part every record of it shares.
static ojson given_patch_json(const Patch& p) {
    ojson entry = {{"where", p.where}, {"bytes", hex_string(p.bytes)}};
    if (!p.expected.empty()) entry["expected"] = hex_string(p.expected);
    return entry;
}

// Resolved patches (seeded_faults "patches") by image, then address.
void sort_patch_sites(ojson& sites) {
    std::stable_sort(sites.begin(), sites.end(), [](const ojson& a, const ojson& b) {
        return std::tie(a.at("image").get_ref<const std::string&>(),
                        a.at("address").get_ref<const std::string&>()) <
               std::tie(b.at("image").get_ref<const std::string&>(),
                        b.at("address").get_ref<const std::string&>());
    });
}

ojson seeded_faults_json(const Injection& injection, const std::vector<PatchSite>& sites) {
    if (injection.empty()) return nullptr;
    ojson j = ojson::object();
    ojson patches = ojson::array();
    for (const PatchSite& s : sites) {
        const AppliedPatch& a = s.applied;
        ojson entry = given_patch_json(a.patch);
        entry["image"] = s.image;
        entry["address"] = emu::hex(a.address);
        entry["replaced"] = hex_string(a.replaced);
        patches.push_back(entry);
    }
    // The patches as given, once each: seeded_effect's rows (`patches` holds one per image).
    ojson given = ojson::array();
    for (const Patch& p : injection.patches) given.push_back(given_patch_json(p));
    j["original_modified"] = !injection.patches.empty();
    j["reimpl_input_modified"] = injection.reimpl_light_swapped;
    if (!given.empty()) j["given"] = given;
    // By image, then address: the order a merge of shards (each resolving the patches on the images
    // of its own cases) rebuilds.
    sort_patch_sites(patches);
    if (!patches.empty()) j["patches"] = patches;
    if (injection.reimpl_light_swapped) j["reimpl_light"] = "x and z swapped";
    return j;
}

ojson write_run_outputs(const fs::path& out, const std::vector<ojson>& reports, const Shard& shard,
                        const ojson& seeded_faults, const std::map<std::string, double>& seconds,
                        const ojson& image_coverage, const ojson& parts, const ojson& plan) {
    ojson index = make_run_index(reports, seeded_faults);
    if (!image_coverage.empty()) index["image_coverage"] = image_coverage;
    if (shard.count > 1) {
        index["shard"] = {{"index", shard.index}, {"count", shard.count}};
        if (!plan.is_null()) index["shard"]["plan"] = plan;
        // More shards than cases: this one got no case and no part of one (its status is then
        // equivalent over nothing, which the flag says in so many words).
        if (reports.empty() && (!parts.is_array() || parts.empty())) index["shard"]["empty"] = true;
    }
    if (parts.is_array() && !parts.empty()) {
        index["parts"] = parts;
        // A shard's status is its parts' too: a part not equivalent is not hidden until the merge.
        for (const ojson& p : parts) {
            const std::string part = p.at("status").get<std::string>(),
                              now = index.at("status").get<std::string>();
            if (part == "error" || (part == "divergent" && now == "equivalent")) index["status"] = part;
        }
    }
    // The index last: a folder whose run.json is there holds a complete run.
    write_junit(out / "junit.xml", index, reports, seconds);
    write_html(out / "index.html", index, reports, out);
    write_json(out / "run.json", index);
    return index;
}

// Every patch resolved on every image the cases run on, in the order of the cases' images.
static void resolve_patches(const std::vector<Case>& cases, const RunOptions& options,
                            std::vector<std::string>& problems, std::vector<PatchSite>* sites) {
    std::set<std::pair<fs::path, fs::path>> seen; // image, profile
    for (const Case& c : cases) {
        const Environment env = resolve_environment(c, options);
        if (!seen.insert({env.image, env.profile}).second) continue;
        try {
            const Profile profile = load_profile(env.profile);
            Original original(env, profile);
            for (const Patch& p : options.injection.patches) {
                try {
                    AppliedPatch a = original.patch(p);
                    if (sites) sites->push_back({env.image.filename().string(), std::move(a)});
                } catch (const std::exception& e) {
                    problems.push_back(env.image.filename().string() + ": " + e.what());
                }
            }
        } catch (const std::exception& e) {
            problems.push_back("cannot resolve the patches on " + env.image.string() + ": " + e.what());
        }
    }
}

std::vector<std::string> preflight(const std::vector<Case>& cases, const RunOptions& options,
                                   std::vector<PatchSite>* sites) {
    std::vector<std::string> problems;
    std::map<fs::path, std::set<std::string>> needed; // profile -> names its cases need
    std::set<std::pair<fs::path, fs::path>> pairs;    // (image, profile) the cases run
    std::set<fs::path> seen;
    for (const Case& c : cases) {
        const Environment env = resolve_environment(c, options);
        if (!fs::is_regular_file(env.image) && seen.insert(env.image).second)
            problems.push_back("image not found: " + env.image.string());
        if (!fs::is_directory(env.data) && seen.insert(env.data).second)
            problems.push_back("data root not found: " + env.data.string());
        for (const auto& n : needed_symbols(c.family)) needed[env.profile].insert(n);
        if (c.scene.terrain_map) needed[env.profile].insert("terrain_map"); // scene.sampler.standin
        pairs.insert({env.image, env.profile});
    }
    // A profile tied to an image (its "image_sha256") is used with that image only.
    for (const auto& [image, profile] : pairs) {
        if (!fs::is_regular_file(image) || !fs::is_regular_file(profile)) continue; // said above or below
        try {
            const std::string mismatch =
                profile_image_mismatch(load_profile(profile), profile, image, sha256_file(image));
            if (!mismatch.empty()) problems.push_back(mismatch);
        } catch (const std::exception&) {
            // a bad profile is reported once, with the checks below
        }
    }
    for (const auto& [file, names] : needed) {
        try {
            const Profile p = load_profile(file);
            std::vector<std::string> all(names.begin(), names.end());
            for (auto& n : p.needed_by_boot()) all.push_back(std::move(n));
            const auto missing = p.missing(all);
            if (missing.empty()) continue;
            std::string list;
            for (const auto& m : missing) list += "\n  " + m;
            problems.push_back(file.string() + " has no address for " + std::to_string(missing.size()) +
                               " routine(s)/global(s) the cases need:" + list);
        } catch (const std::exception& e) {
            problems.push_back(e.what());
        }
    }
    if (options.coverage_reasons) {
        try {
            load_coverage_reasons(*options.coverage_reasons);
        } catch (const CoverageReasonsError& e) {
            problems.push_back(e.what());
        }
    }
    if (options.rules_document) {
        try {
            const RuleIndex index = load_rule_index(*options.rules_document);
            for (const Case& c : cases)
                for (auto& p : unknown_rule_ids(c, index)) problems.push_back(std::move(p));
        } catch (const LedgerError& e) {
            problems.push_back(e.what());
        }
    }
    // The patches need the images and profiles the checks above are about.
    if (problems.empty() && !options.injection.patches.empty())
        resolve_patches(cases, options, problems, sites);
    return problems;
}

namespace {
// A case a run runs and, in one shard of a split run, the part of it the shard holds: the shard
// compares that share of the case's inputs and writes what it compared for refcheck merge, which
// finishes the case from all its parts.
struct Planned {
    Case c;
    std::optional<CasePart> shard_part;
};

// The parts a case is split into across the shards of a run: as across workers (case_parts, with a
// shard for a worker), so 1 for a small or unsplittable case, which one shard runs whole.
std::size_t shard_parts(const Case& c, const RunOptions& o) {
    return o.shard.count > 1 ? case_parts(c, o.injection, o.shard.count) : 1;
}

// The cases a run runs: the shard's, those the filter selects, narrowed as the options say, sorted
// by name (reports are ordered by case name, so a sharded run merges into the same index). Case file
// i goes whole to shard i mod N; part p of a split one to shard (i + p) mod N, so its parts go to
// different shards. `whole_run`, when given, receives every selected case of the whole run (name,
// case file SHA-256 as parsed), whichever shard holds it: the plan of a sharded run.
using PlannedNames = std::vector<std::pair<std::string, std::string>>;
std::vector<Planned> plan_cases(const std::vector<fs::path>& case_files, const RunOptions& options,
                                PlannedNames* whole_run = nullptr) {
    const Shard shard = options.shard;
    check_case_names(case_files); // every shard sees every file: each refuses alike
    std::vector<Planned> out;
    for (std::size_t i = 0; i < case_files.size(); ++i) {
        Case c = load_case(case_files[i]); // every file: whether it is split depends on the case
        if (options.filter && !options.filter->selects_case(c.name)) continue;
        if (whole_run) whole_run->emplace_back(c.name, c.sha256);
        c.only = options.only;
        c.filter = options.filter;
        const std::size_t n = shard_parts(c, options);
        if (n == 1) {
            if (shard.count <= 1 || i % shard.count == shard.index)
                out.push_back({std::move(c), std::nullopt});
            continue;
        }
        const std::size_t p = (shard.index + shard.count - i % shard.count) % shard.count;
        if (p < n) out.push_back({std::move(c), CasePart{p, n}});
    }
    std::sort(out.begin(), out.end(), [](const Planned& a, const Planned& b) { return a.c.name < b.c.name; });
    return out;
}
} // namespace

// What the whole of a sharded run compares, the same in every shard: each case the filter selects
// (name and file SHA-256 as parsed by plan_cases, by name: the files are read once) and the
// narrowing. merge refuses shards whose plans differ and a planned case that no shard output holds.
static ojson run_plan_json(PlannedNames planned, const RunOptions& options) {
    std::sort(planned.begin(), planned.end());
    ojson cases = ojson::array();
    for (const auto& [name, sha] : planned) cases.push_back({{"case", name}, {"case_sha256", sha}});
    ojson plan = {{"cases", cases}};
    if (options.filter) plan["filter"] = options.filter->pattern();
    if (!options.only.empty()) plan["only"] = options.only;
    return plan;
}

std::vector<Case> run_cases(const std::vector<fs::path>& case_files, const RunOptions& options) {
    std::vector<Case> cases;
    for (Planned& p : plan_cases(case_files, options)) cases.push_back(std::move(p.c));
    return cases;
}

std::vector<std::string> run_case_names(const std::vector<fs::path>& case_files, const RunOptions& options) {
    std::vector<std::string> names;
    for (const Case& c : run_cases(case_files, options)) names.push_back(c.name);
    return names;
}

namespace {
// Lists the inputs a case's family reaches and skips every one (refcheck run --list).
class ListingObserver : public CaseObserver {
public:
    explicit ListingObserver(const Case& c) : c_(c) {}
    void booted(Original&, Comparator&) override {}
    bool input(std::string_view name, bool) override {
        if (!c_.filter || c_.filter->selects_input(c_.name, name)) inputs.emplace_back(name);
        return false;
    }
    void finished(Original&, const ojson&) override {}
    std::vector<std::string> inputs;

private:
    const Case& c_;
};
} // namespace

std::vector<std::pair<std::string, std::vector<std::string>>>
list_inputs(const std::vector<fs::path>& case_files, const RunOptions& options) {
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    for (const Planned& planned : plan_cases(case_files, options)) {
        const Case& c = planned.c;
        ListingObserver observer(c);
        set_case_observer(&observer);
        Environment env = resolve_environment(c, options);
        const CasePartScope scope(planned.shard_part ? &*planned.shard_part : nullptr);
        const CaseResult r = run_case(c, env, {});
        set_case_observer(nullptr);
        std::vector<std::string> inputs = std::move(observer.inputs);
        // Families that run every input in turn (construction, palettes, scenes) name each once.
        std::vector<std::string> unique;
        std::set<std::string> seen;
        for (auto& i : inputs)
            if (seen.insert(i).second) unique.push_back(std::move(i));
        if (r.report.contains("error") && unique.empty())
            throw std::runtime_error("--list: case " + c.name + ": " +
                                     r.report.at("error").get<std::string>());
        out.emplace_back(c.name, std::move(unique));
    }
    return out;
}

namespace {
// Runs case `c` (or a part of it, or its finish) and times it; a divergent whole case or finish gets
// its drill-down (bisect).
CaseResult run_timed(const Case& c, const RunOptions& options, const std::shared_ptr<const RuleIndex>& rules,
                     const CasePart* part) {
    const auto t0 = std::chrono::steady_clock::now();
    Environment env = resolve_environment(c, options);
    env.rules = rules;
    const CasePartScope scope(part);
    CaseResult r = run_case(c, env, options.injection);
    if (r.status == Status::Divergent && (!part || part->finishing())) attach_drill_down(r, c, options);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

// A case run as parts (across the workers of a run, or across shards), with its parts' results.
struct SplitCase {
    const Case* c;
    std::vector<CaseResult> parts;
};

// Finishes each split case from its parts, one a worker (`callbacks` gives the tick and how the run
// is told), or runs it again whole when its parts cannot be merged; `lines` gets what became of
// each. Throws RunInterrupted on SIGINT/SIGTERM (its indices: into `split`).
std::vector<CaseResult> finish_split_cases(std::vector<SplitCase>& split, const RunOptions& options,
                                           const std::shared_ptr<const RuleIndex>& rules,
                                           WorkerCallbacks callbacks, std::vector<std::string>& lines) {
    std::vector<double> part_seconds(split.size(), 0.0);
    // A part whose worker died (a crash, a timeout), by split case: when the whole run does not die
    // too, its report still says so (the run's stderr line alone went unseen by reports).
    std::vector<ojson> died(split.size());
    // What each part that could not be merged ran on (image, profile, archives by SHA-256): the case
    // run whole must have run on the same, or parts of another run (refcheck merge with another
    // --image or --data) turned into a verdict of the merge's own environment.
    std::vector<std::vector<ojson>> dropped_inputs(split.size());
    for (std::size_t j = 0; j < split.size(); ++j) {
        for (const CaseResult& p : split[j].parts) part_seconds[j] += p.seconds;
        std::string why;
        const std::size_t n = split[j].parts.size();
        const std::string ran = split[j].c->name + " ran as " + std::to_string(n) + " parts over its records";
        if (parts_mergeable(*split[j].c, split[j].parts, &why)) {
            lines.push_back(ran + ", merged");
        } else {
            for (std::size_t k = 0; k < n && died[j].is_null(); ++k)
                if (const ojson& p = split[j].parts[k].report; p.contains("crash"))
                    died[j] = {
                        {"part", k + 1}, {"of", n}, {"error", member(p, "error")}, {"crash", p.at("crash")}};
            for (const CaseResult& p : split[j].parts)
                dropped_inputs[j].push_back(member(p.report, "inputs"));
            split[j].parts.clear(); // runs whole
            lines.push_back(ran + "; they could not be merged (" + why + "): it ran again whole");
        }
    }
    callbacks.name = [&](std::size_t j) { return split[j].c->name; };
    callbacks.run = [&](std::size_t j) {
        if (split[j].parts.empty()) return run_timed(*split[j].c, options, rules, nullptr);
        const CasePart part{0, 1, &split[j].parts};
        CaseResult r = run_timed(*split[j].c, options, rules, &part);
        r.seconds += part_seconds[j];
        return r;
    };
    callbacks.case_seconds = options.case_timeout;
    callbacks.died = [&](std::size_t j, const WorkerDeath& d) {
        return crash_result(*split[j].c, options, d);
    };
    callbacks.done = [&](std::size_t j) {
        if (options.progress) options.progress(split[j].c->name);
    };
    callbacks.handed = nullptr;
    std::vector<CaseResult> results = run_in_workers(split.size(), options.jobs, callbacks);
    for (std::size_t j = 0; j < split.size(); ++j) {
        const ojson& whole = member(results[j].report, "inputs");
        for (std::size_t k = 0; k < dropped_inputs[j].size(); ++k) {
            const ojson& ran = dropped_inputs[j][k];
            if (ran.is_null() || whole.is_null() || ran == whole) continue; // a part that named none
            results[j].status = Status::Error;
            results[j].report["status"] = std::string(status_name(Status::Error));
            results[j].report["error"] =
                "part " + std::to_string(k + 1) + " of " + std::to_string(dropped_inputs[j].size()) +
                " ran on other inputs than the case run whole here (image, profile or archives by SHA-256: " +
                ran.dump() + " against " + whole.dump() +
                "): its results are not this case's; give merge the --image, --profile and --data the shards "
                "ran with";
            lines.push_back(split[j].c->name + ": " + results[j].report["error"].get<std::string>());
            break;
        }
    }
    for (std::size_t j = 0; j < split.size(); ++j) {
        if (died[j].is_null() || results[j].report.contains("crash")) continue; // it died again: said
        results[j].report["part_died"] = died[j];
        lines.push_back(split[j].c->name + ": the worker running part " + died[j].at("part").dump() + " of " +
                        died[j].at("of").dump() +
                        " died, and the case run whole did not: its report keeps the crash (part_died)");
    }
    return results;
}

// Where a shard writes the part of a split case it holds (refcheck merge reads it).
std::string part_file(const std::string& name, const CasePart& part) {
    return "parts/" + name + ".part-" + std::to_string(part.index) + "-of-" + std::to_string(part.count);
}
} // namespace

RunSummary run(const std::vector<fs::path>& case_files, const RunOptions& options) {
    RunSummary summary;
    const auto start = std::chrono::steady_clock::now();
    std::vector<Case> cases;
    std::vector<std::optional<CasePart>> shard_part; // by case: the part of it this shard holds
    PlannedNames whole_run;                          // every case of the whole run, for a shard's plan
    for (Planned& p : plan_cases(case_files, options, &whole_run)) {
        cases.push_back(std::move(p.c));
        shard_part.push_back(p.shard_part);
    }
    std::vector<PatchSite> sites;
    summary.problems = preflight(cases, options, &sites);
    if (!summary.problems.empty()) return summary;

    std::shared_ptr<const RuleIndex> rules; // parsed by preflight already: it cannot fail here
    if (options.rules_document)
        rules = std::make_shared<const RuleIndex>(load_rule_index(*options.rules_document));
    // Each case runs in a worker process (workers.hpp): a crash inside the emulator is that case's error.
    // A large case may run as parts over its inputs (case_part.hpp): the first round runs every whole
    // case and every part; the second finishes each split case from its parts' states, or runs it
    // whole when they cannot be merged (a part divergent, faulting, stopped or crashed). A shard of
    // a split run runs only its part of a case split across the shards, and leaves the finish to
    // refcheck merge.
    struct Item {
        std::size_t c; // the case
        CasePart part; // {0, 1}: the whole case
        bool held;     // a shard's part of a case split across the shards: not finished here
    };
    std::vector<Item> items;
    std::vector<std::vector<std::size_t>> items_of(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        if (shard_part[i]) {
            items_of[i].push_back(items.size());
            items.push_back({i, *shard_part[i], true});
            continue;
        }
        const std::size_t n = case_parts(cases[i], options.injection, options.jobs);
        for (std::size_t k = 0; k < n; ++k) {
            items_of[i].push_back(items.size());
            items.push_back({i, CasePart{k, n}, false});
        }
    }
    // The longest work of the output folder's previous run is handed out first (a part counts as its
    // case's time over the parts); the results are kept by case and part, so the order changes no
    // output.
    std::map<std::string, double> previous;
    try {
        previous = read_junit_times(options.out / "junit.xml");
    } catch (const std::exception&) {} // unreadable times: every case is new
    std::vector<std::string> names;
    std::vector<std::size_t> parts;
    for (const Item& item : items) {
        names.push_back(cases[item.c].name);
        parts.push_back(item.part.count);
    }
    const std::vector<std::size_t> order = hand_order(names, parts, previous);
    WorkerCallbacks callbacks;
    callbacks.name = [&](std::size_t j) { return cases[items[order[j]].c].name; };
    callbacks.run = [&](std::size_t j) {
        const Item& item = items[order[j]];
        return run_timed(cases[item.c], options, rules, item.part.count > 1 ? &item.part : nullptr);
    };
    callbacks.case_seconds = options.case_timeout;
    callbacks.died = [&](std::size_t j, const WorkerDeath& d) {
        return crash_result(cases[items[order[j]].c], options, d);
    };
    callbacks.done = [&](std::size_t j) {
        if (options.progress && (items[order[j]].part.count == 1 || items[order[j]].held))
            options.progress(cases[items[order[j]].c].name);
    };
    if (options.started)
        callbacks.handed = [&](std::size_t j) {
            const Item& item = items[order[j]];
            if (item.part.index == 0 || item.held) options.started(item.c, cases[item.c].name);
        };
    callbacks.tick = options.tick;
    const auto interrupted = [&](int signal, const std::set<std::size_t>& unfinished) {
        // Nothing is written: the output folder keeps the previous complete run (or stays empty).
        std::string names;
        for (std::size_t i : unfinished) names += (names.empty() ? "" : ", ") + cases[i].name;
        summary.interrupted = std::string(signal == SIGINT ? "SIGINT" : "SIGTERM") + " after " +
                              std::to_string(cases.size() - unfinished.size()) + " of " +
                              std::to_string(cases.size()) + " cases; not finished: " + names +
                              "; nothing was written, " + options.out.string() + " keeps what it held before";
        summary.exit_code = 128 + signal;
    };
    std::vector<CaseResult> first(items.size()); // by item
    try {
        std::vector<CaseResult> handed = run_in_workers(items.size(), options.jobs, callbacks);
        for (std::size_t j = 0; j < order.size(); ++j) first[order[j]] = std::move(handed[j]);
    } catch (const RunInterrupted& e) {
        std::set<std::size_t> unfinished; // by case, in case order
        for (std::size_t j : e.unfinished) unfinished.insert(items[order[j]].c);
        for (std::size_t i = 0; i < cases.size(); ++i)
            if (items_of[i].size() > 1) unfinished.insert(i); // none was finished yet
        interrupted(e.signal, unfinished);
        return summary;
    }
    std::vector<CaseResult> results(cases.size()); // by case
    std::vector<std::size_t> split_at;             // the split cases, in case order
    std::vector<SplitCase> split;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        if (items_of[i].size() == 1) {
            results[i] = std::move(first[items_of[i][0]]);
            continue;
        }
        split_at.push_back(i);
        split.push_back({&cases[i], {}});
        for (std::size_t it : items_of[i]) split.back().parts.push_back(std::move(first[it]));
    }
    if (!split.empty()) {
        try {
            std::vector<CaseResult> second =
                finish_split_cases(split, options, rules, callbacks, summary.splits);
            for (std::size_t j = 0; j < split.size(); ++j) results[split_at[j]] = std::move(second[j]);
        } catch (const RunInterrupted& e) {
            std::set<std::size_t> unfinished;
            for (std::size_t j : e.unfinished) unfinished.insert(split_at[j]);
            interrupted(e.signal, unfinished);
            return summary;
        }
    }
    if (rules) {
        const ojson evidence = evidence_json(*rules);
        for (std::size_t i = 0; i < cases.size(); ++i)
            if (!shard_part[i]) results[i].report["evidence"] = evidence;
    }

    std::vector<ojson> reports;
    // The earlier run's index goes first: until the new one is written last, the folder holds no
    // complete run. Every file is written whole (write_file_atomically). Of an earlier run's files
    // only those refcheck writes are removed (out_folder.hpp): a folder by a case's name may be
    // someone's, and everything in it went.
    fs::remove(options.out / "run.json");
    remove_part_files(options.out);
    ojson held = ojson::array(); // the parts of cases split across the shards, for refcheck merge
    SharedCoverage shared;       // what every report would repeat, written once in run.json
    std::map<std::string, double> seconds;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        CaseResult& r = results[i];
        summary.events += r.events;
        if (shard_part[i]) {
            const CasePart& p = *shard_part[i];
            const std::string file = part_file(cases[i].name, p);
            write_output_file(options.out, file, encode_result(p.index, r));
            held.push_back({{"case", cases[i].name},
                            {"case_sha256", cases[i].sha256},
                            {"part", p.index},
                            {"of", p.count},
                            {"file", file},
                            {"status", std::string(status_name(r.status))}});
            seconds[part_testcase_name(cases[i].name, p.index, p.count)] = r.seconds;
            summary.splits.push_back(
                cases[i].name + ": this shard ran part " + std::to_string(p.index + 1) + " of " +
                std::to_string(p.count) +
                " over its records (refcheck merge finishes it from all the shards' parts)");
            continue;
        }
        remove_case_files(options.out, r.name); // pictures of an earlier run
        write_json(options.out / (r.name + ".json"), shared.store(r.report));
        for (const auto& [rel, bytes] : r.files)
            write_output_file(options.out, rel,
                              std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
        reports.push_back(r.report);
        seconds[r.name] = r.seconds;
        summary.results.push_back(std::move(r));
    }
    summary.index = write_run_outputs(
        options.out, reports, options.shard, seeded_faults_json(options.injection, sites), seconds,
        shared.json(), held,
        options.shard.count > 1 ? run_plan_json(std::move(whole_run), options) : ojson(nullptr));
    summary.html = options.out / "index.html";
    const std::string status = summary.index.at("status").get<std::string>();
    summary.exit_code = status == "equivalent" ? 0 : status == "divergent" ? 1 : 2;
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return summary;
}

// Every shard of one split, each once: the shards' run.json say which of how many they are.
static void check_shards_complete(const std::vector<fs::path>& shard_dirs,
                                  const std::vector<ojson>& indexes) {
    std::optional<unsigned> count;
    std::map<unsigned, fs::path> seen;
    for (std::size_t i = 0; i < indexes.size(); ++i) {
        const ojson& shard = member(indexes[i], "shard");
        // Read wide and checked: nlohmann turns -1 into 4294967295 for an unsigned, and listing that
        // many missing shards hung merge (found by fuzz/report_merge).
        const std::int64_t wide_n = shard.is_object() ? shard.at("count").get<std::int64_t>() : 1;
        const std::int64_t wide_k = shard.is_object() ? shard.at("index").get<std::int64_t>() : 0;
        if (wide_n < 1 || wide_n > 0xffffffffLL || wide_k < 0 || wide_k >= wide_n)
            throw std::runtime_error(shard_dirs[i].string() + "/run.json: \"shard\" " + shard.dump() +
                                     " is not an index below a count of at least 1");
        const auto n = static_cast<unsigned>(wide_n), k = static_cast<unsigned>(wide_k);
        if (count && *count != n)
            throw std::runtime_error(shard_dirs[i].string() + " is shard " + std::to_string(k) + "/" +
                                     std::to_string(n) + ", but an earlier folder is a shard of " +
                                     std::to_string(*count));
        count = n;
        if (const auto [it, fresh] = seen.emplace(k, shard_dirs[i]); !fresh)
            throw std::runtime_error(shard_dirs[i].string() + " and " + it->second.string() +
                                     " are both shard " + std::to_string(k) + "/" + std::to_string(n));
    }
    // At most ten missing shards named (a count of millions would otherwise build a list that long).
    std::string missing;
    const std::uint64_t absent = count ? *count - seen.size() : 0;
    std::uint64_t named = 0;
    for (unsigned k = 0; count && k < *count && named < 10 && named < absent; ++k)
        if (!seen.count(k)) {
            missing += (missing.empty() ? "" : ", ") + std::to_string(k) + "/" + std::to_string(*count);
            ++named;
        }
    if (absent > named) missing += " and " + std::to_string(absent - named) + " more";
    if (!missing.empty()) throw std::runtime_error("shard output missing: " + missing);
}

// A name a shard's run.json or case report gives (a report file, a picture, the drcov file, a case):
// relative and never climbing out with "..", so merge reads only inside the shard folder and writes
// only inside `out` (seen while writing fuzz/report_merge: a report naming "../x" or "/x" made merge
// copy files from and to anywhere).
static fs::path name_inside(const std::string& name, const fs::path& dir, const char* what) {
    fs::path p(name);
    bool inside = !name.empty() && p.is_relative() && !p.has_root_name() && !p.has_root_directory();
    for (const auto& part : p)
        if (part == "..") inside = false;
    if (!inside)
        throw std::runtime_error(dir.string() + ": " + what + " \"" + name +
                                 "\" is not a name inside the run's folder");
    return p;
}

namespace {
// The parts of the cases the shards split (their run.json "parts"), read and checked: each case's
// parts all there, each once, all of one split (their count) and of one case file (its SHA-256).
struct HeldCase {
    std::size_t of = 0;
    std::string case_sha256;
    std::vector<std::optional<CaseResult>> parts;
};

std::map<std::string, HeldCase> read_held_parts(const std::vector<fs::path>& shard_dirs,
                                                const std::vector<ojson>& indexes) {
    std::map<std::string, HeldCase> held;
    for (std::size_t d = 0; d < shard_dirs.size(); ++d) {
        const fs::path& dir = shard_dirs[d];
        for (const ojson& row : member(indexes[d], "parts")) {
            const std::string where = (dir / "run.json").string() + ": \"parts\" " + row.dump();
            const std::string name = row.at("case").get<std::string>();
            name_inside(name + ".json", dir, "case");
            const auto count = [&](const char* key) {
                const ojson& v = row.at(key);
                if (!v.is_number_unsigned() || v.get<std::uint64_t>() > kMaxParts)
                    throw std::runtime_error(where + ": \"" + key + "\" is not a part count");
                return static_cast<std::size_t>(v.get<std::uint64_t>());
            };
            const std::size_t part = count("part"), of = count("of");
            if (of < 2 || part >= of) throw std::runtime_error(where + ": not a part of a split case");
            HeldCase& h = held[name];
            const std::string sha = row.at("case_sha256").get<std::string>();
            if (h.parts.empty()) {
                h.of = of;
                h.case_sha256 = sha;
                h.parts.resize(of);
            } else if (h.of != of || h.case_sha256 != sha) {
                throw std::runtime_error(where + ": the shards split case " + name +
                                         " differently, or ran different files of it");
            }
            if (h.parts[part])
                throw std::runtime_error("case " + name + ": part " + std::to_string(part) + " of " +
                                         std::to_string(of) + " is in more than one shard output");
            const fs::path file = dir / name_inside(row.at("file").get<std::string>(), dir, "part file");
            std::ifstream in(file, std::ios::binary);
            const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (!in && !in.eof()) throw std::runtime_error("cannot read " + file.string());
            std::pair<std::size_t, CaseResult> decoded;
            try {
                decoded = decode_result(bytes);
            } catch (const std::exception& e) {
                throw std::runtime_error(file.string() + " is not a part a shard wrote: " + e.what());
            }
            if (decoded.first != part || decoded.second.name != name)
                throw std::runtime_error(file.string() + " holds part " + std::to_string(decoded.first) +
                                         " of case \"" + decoded.second.name + "\", not part " +
                                         std::to_string(part) + " of " + name);
            for (const auto& written : decoded.second.files) // written by the finish: inside `out`
                name_inside(written.first, dir, "file of a part");
            h.parts[part] = std::move(decoded.second);
        }
    }
    for (const auto& [name, h] : held)
        for (std::size_t p = 0; p < h.of; ++p)
            if (!h.parts[p])
                throw std::runtime_error("case " + name + ": part " + std::to_string(p) + " of " +
                                         std::to_string(h.of) + " is in no shard output");
    return held;
}

// The plan of a split run (run.json "shard"."plan"), the same in every shard output; null for the
// output of an unsharded run, which has no shard.
ojson check_shards_plan(const std::vector<fs::path>& shard_dirs, const std::vector<ojson>& indexes) {
    ojson plan;
    for (std::size_t i = 0; i < indexes.size(); ++i) {
        const ojson& shard = member(indexes[i], "shard");
        if (!shard.is_object()) continue; // check_shards_complete: then the only output
        const ojson& p = member(shard, "plan");
        if (!p.is_object() || !member(p, "cases").is_array())
            throw std::runtime_error(shard_dirs[i].string() +
                                     "/run.json: the shard does not say which cases the whole run "
                                     "compares (\"shard\".\"plan\"; written by an older refcheck?): run the "
                                     "shards again");
        if (plan.is_null()) {
            plan = p;
        } else if (p != plan) {
            throw std::runtime_error(shard_dirs[i].string() + " and " + shard_dirs.front().string() +
                                     " are shards of different runs: their cases, case files or narrowing "
                                     "differ (run.json \"shard\".\"plan\")");
        }
    }
    return plan;
}

// Every case of the plan in the shard outputs, whole or in parts, from the file planned, and no
// other: a shard run with other cases or another filter would otherwise drop a case unseen.
void check_plan_held(const ojson& plan, const std::vector<std::pair<std::string, ojson>>& named,
                     const std::map<std::string, HeldCase>& held) {
    std::map<std::string, std::string> planned; // name -> case file SHA-256
    for (const ojson& row : plan.at("cases"))
        planned[row.at("case").get<std::string>()] = row.at("case_sha256").get<std::string>();
    std::set<std::string> seen;
    for (const auto& [name, report] : named) {
        if (!planned.count(name))
            throw std::runtime_error("case " + name + " is in a shard output but not in the run's plan");
        seen.insert(name);
    }
    for (const auto& [name, h] : held) {
        const auto it = planned.find(name);
        if (it == planned.end())
            throw std::runtime_error("case " + name +
                                     " is split across the shards but not in the run's plan");
        if (it->second != h.case_sha256)
            throw std::runtime_error("case " + name +
                                     ": its parts ran another case file than the run's plan says");
        seen.insert(name);
    }
    std::string missing;
    std::size_t absent = 0;
    for (const auto& [name, sha] : planned)
        if (!seen.count(name) && ++absent <= 10) missing += (missing.empty() ? "" : ", ") + name;
    if (absent > 10) missing += " and " + std::to_string(absent - 10) + " more";
    if (absent)
        throw std::runtime_error("the run's plan has " + std::to_string(absent) +
                                 " case(s) that no shard output holds, whole or in parts: " + missing);
}
} // namespace

namespace {
// Each whole case report of the shards names by SHA-256 the image, profile and archives it ran on:
// they must be those the merge's options give that case (as the parts a merge finishes must), or
// shards run with another --image, --profile or --data would merge into one verdict that no single
// environment earned. Such a case becomes an error, as such a part makes its case one. A report
// that names no inputs (it stopped before reading them) is not checked.
void check_whole_inputs(std::vector<std::pair<std::string, ojson>>& named, const RunOptions& options,
                        const std::vector<fs::path>& case_files) {
    std::map<fs::path, std::string> file_sha; // image and profile files hashed, by path
    std::map<fs::path, ojson> archives;       // data roots hashed, by path
    const auto sha_of = [&](const fs::path& f) -> const std::string& {
        auto it = file_sha.find(f);
        if (it == file_sha.end()) it = file_sha.emplace(f, sha256_file(f)).first;
        return it->second;
    };
    for (auto& [name, report] : named) {
        const ojson& inputs = member(report, "inputs");
        if (!inputs.is_object()) continue;
        const auto file =
            std::find_if(case_files.begin(), case_files.end(),
                         [&name = name](const fs::path& f) { return f.stem().string() == name; });
        if (file == case_files.end())
            throw std::runtime_error(
                "case " + name + " is in a shard output, but no case file given to merge is named " + name +
                ".json: its inputs cannot be checked against the merge's (--cases)");
        const Environment env = resolve_environment(load_case(*file), options);
        auto at = archives.find(env.data);
        if (at == archives.end()) at = archives.emplace(env.data, archive_hashes(env.data)).first;
        const ojson expected = {
            {"image", sha_of(env.image)}, {"profile", sha_of(env.profile)}, {"archives", at->second}};
        const ojson ran = {{"image", member(member(inputs, "image"), "sha256")},
                           {"profile", member(member(inputs, "profile"), "sha256")},
                           {"archives", member(inputs, "archives")}};
        if (ran == expected) continue;
        report["status"] = "error";
        report["error"] =
            "the shard ran this case on other inputs than the merge's (by SHA-256: " + ran.dump() +
            " against " + expected.dump() + " from " + env.image.string() + ", " + env.profile.string() +
            " and " + env.data.string() +
            "): give merge the --image, --profile and --data the shards ran with";
    }
}
} // namespace

int merge(const std::vector<fs::path>& shard_dirs, const fs::path& out, const RunOptions* finish,
          const std::vector<fs::path>& case_files, std::vector<std::string>* splits) {
    if (shard_dirs.empty()) throw std::runtime_error("merge needs at least one shard output");
    check_case_names(case_files); // cases are found among them by name
    std::vector<std::pair<std::string, ojson>> named;
    std::vector<ojson> indexes;
    std::map<std::string, double> seconds; // the shards' JUnit times, kept in the merged junit.xml
    for (const auto& dir : shard_dirs) seconds.merge(read_junit_times(dir / "junit.xml"));
    for (const auto& dir : shard_dirs) indexes.push_back(read_json(dir / "run.json"));
    check_shards_complete(shard_dirs, indexes);
    const ojson plan = check_shards_plan(shard_dirs, indexes);
    // The shards of one run were seeded alike; the merged run says so as each shard did.
    // Each shard resolved the patches on the images of its own cases ("patches", one per image and
    // patch; none in a shard that got no case): the merged run has every shard's, the rest is the
    // same in all.
    ojson seeded = member(indexes.front(), "seeded_faults");
    ojson sites = ojson::array();
    for (std::size_t i = 0; i < indexes.size(); ++i) {
        ojson theirs = member(indexes[i], "seeded_faults");
        if (theirs.is_object()) {
            for (const ojson& p : member(theirs, "patches")) {
                bool same_site = false;
                for (const ojson& q : sites)
                    if (q.at("image") == p.at("image") && q.at("where") == p.at("where")) {
                        if (q != p)
                            throw std::runtime_error(
                                shard_dirs[i].string() + " resolved the seeded patch " +
                                p.at("where").get<std::string>() + " on " + p.at("image").get<std::string>() +
                                " otherwise than another shard (run.json \"seeded_faults\")");
                        same_site = true;
                    }
                if (!same_site) sites.push_back(p);
            }
            theirs.erase("patches");
        }
        ojson ours = seeded;
        if (ours.is_object()) ours.erase("patches");
        if (theirs != ours)
            throw std::runtime_error(shard_dirs[i].string() + " and " + shard_dirs.front().string() +
                                     " were run with different seeded faults (run.json \"seeded_faults\")");
    }
    if (seeded.is_object()) {
        sort_patch_sites(sites);
        seeded.erase("patches");
        if (!sites.empty()) seeded["patches"] = sites;
    }
    // The shards' verdicts were earned by the reimplementation each shard was built with; the merged
    // run.json names this build's (and finishes split cases with it). Shards of another build, or
    // of two builds, are of another run: their verdicts would be stamped with a reimplementation
    // that did not earn them.
    for (std::size_t i = 0; i < indexes.size(); ++i)
        for (const auto& [key, ours] :
             {std::pair<const char*, std::string>{"reimpl_source_sha256", reimpl_source_sha256()},
              std::pair<const char*, std::string>{"refcheck_version", refcheck_version()}}) {
            const ojson& theirs = member(indexes[i], key);
            if (!theirs.is_string() || theirs.get<std::string>() != ours)
                throw std::runtime_error(
                    shard_dirs[i].string() + " was run by another build of refcheck (run.json \"" + key +
                    "\" is " + (theirs.is_string() ? theirs.get<std::string>() : "absent") +
                    ", this build's " + ours + "): merge the outputs of one build with that build");
        }
    // What the shards' reports do not repeat: the ledger's rule index and the image's coverage.
    SharedCoverage shared;
    ojson evidence;
    // The files beside the case reports (pictures, drcov), written once every check has passed: a
    // refused merge leaves the output folder as it was.
    std::vector<std::pair<fs::path, fs::path>> copies; // a shard's file, where it goes
    std::vector<std::pair<std::string, std::vector<std::uint8_t>>> finished_files;
    for (const ojson& index : indexes) {
        shared.add(member(index, "image_coverage"));
        if (evidence.is_null()) evidence = evidence_from_ledger(member(index, "ledger"));
    }
    for (std::size_t d = 0; d < shard_dirs.size(); ++d) {
        const fs::path& dir = shard_dirs[d];
        const ojson& index = indexes[d];
        for (const auto& row : index.at("cases")) {
            const fs::path file = name_inside(row.at("report").get<std::string>(), dir, "report");
            ojson report = read_json(dir / file);
            // The report's verdict is the one its shard counted (run.json's row), and its counts bear
            // it out: an equivalent report with unexplained divergences or an error was changed after
            // its run (a status edited to "equivalent" merged into an equivalent run).
            const ojson& status = member(report, "status");
            const ojson& unexplained = member(member(report, "counts"), "unexplained");
            const std::string where = (dir / file).string();
            if (status != row.at("status"))
                throw std::runtime_error(where + " says the case is " + status.dump() +
                                         ", its shard's run.json " + row.at("status").dump() +
                                         ": a report changed after its run is not merged");
            // Its counts and metrics are the ones its shard's run.json row copied from it: a report
            // whose counts were edited (95 compared made 5) merged, and the merged run said 5.
            for (const char* k : {"counts", "metrics"})
                if (member(report, k) != member(row, k))
                    throw std::runtime_error(where + ": its " + k +
                                             " are not those its shard's run.json gives " +
                                             "it: a report changed after its run is not merged");
            if (status == "equivalent" &&
                (report.contains("error") || (unexplained.is_number() && unexplained.get<double>() != 0)))
                throw std::runtime_error(where + " says the case is equivalent, but its counts have " +
                                         unexplained.dump() + " unexplained divergence(s)" +
                                         (report.contains("error") ? " and an error" : "") +
                                         ": a report changed after its run is not merged");
            std::vector<fs::path> beside; // files next to the report: frame pictures, the drcov file
            for (const auto& f : report.value("frames", ojson::array()))
                for (const char* k : {"original_png", "reimpl_png", "diff_png"})
                    if (f.contains(k)) beside.push_back(name_inside(f.at(k).get<std::string>(), dir, k));
            if (const ojson& drcov = member(member(report, "coverage"), "drcov"); drcov.is_string())
                beside.push_back(name_inside(drcov.get<std::string>(), dir, "drcov file"));
            for (const fs::path& rel : beside) copies.emplace_back(dir / rel, rel);
            const std::string name = row.at("case").get<std::string>();
            name_inside(name + ".json", dir, "case");
            named.emplace_back(name, std::move(report));
        }
    }
    // The cases split across the shards: finished here from their parts, as a run finishes a case
    // split across its workers.
    std::map<std::string, HeldCase> held = read_held_parts(shard_dirs, indexes);
    if (!plan.is_null()) check_plan_held(plan, named, held);
    if (!held.empty()) {
        std::string listed;
        for (const auto& [name, h] : held) listed += (listed.empty() ? "" : ", ") + name;
        if (!finish)
            throw std::runtime_error("the shard outputs hold parts of split cases (" + listed +
                                     "): merging them finishes each, which runs the original");
        std::vector<Case> cases;
        for (const auto& [name, h] : held) {
            const auto file =
                std::find_if(case_files.begin(), case_files.end(),
                             [&name = name](const fs::path& f) { return f.stem().string() == name; });
            if (file == case_files.end())
                throw std::runtime_error("case " + name +
                                         " was split across the shards, but no case file "
                                         "given to merge is named " +
                                         name + ".json");
            Case c = load_case(*file);
            if (c.sha256 != h.case_sha256)
                throw std::runtime_error("case " + name + ": " + file->string() +
                                         " is not the file the shards ran (its SHA-256 differs)");
            // The run's narrowing, which the finished report names in its selection as the unsharded
            // run's does: the plan's, which every shard carried (merge has no --filter or --only).
            c.only =
                member(plan, "only").is_string() ? member(plan, "only").get<std::string>() : finish->only;
            c.filter = member(plan, "filter").is_string()
                           ? std::make_shared<const InputFilter>(member(plan, "filter").get<std::string>())
                           : finish->filter;
            cases.push_back(std::move(c));
        }
        std::vector<SplitCase> split;
        std::size_t k = 0;
        for (auto& [name, h] : held) {
            split.push_back({&cases[k++], {}});
            for (auto& p : h.parts) split.back().parts.push_back(std::move(*p));
        }
        std::shared_ptr<const RuleIndex> rules;
        if (finish->rules_document)
            rules = std::make_shared<const RuleIndex>(load_rule_index(*finish->rules_document));
        std::vector<std::string> lines;
        WorkerCallbacks callbacks;
        std::vector<CaseResult> finished;
        try {
            finished = finish_split_cases(split, *finish, rules, callbacks, lines);
        } catch (const RunInterrupted& e) {
            throw std::runtime_error(std::string(e.signal == SIGINT ? "SIGINT" : "SIGTERM") +
                                     " while finishing the split cases; nothing was merged");
        }
        if (splits) *splits = std::move(lines);
        for (CaseResult& r : finished) {
            if (rules) r.report["evidence"] = evidence_json(*rules);
            // Shards that hold only parts write no ledger: the rule index is then the finish's.
            if (evidence.is_null() && rules) evidence = r.report["evidence"];
            for (auto& file : r.files) finished_files.push_back(std::move(file));
            seconds[r.name] = r.seconds;
            named.emplace_back(r.name, shared.store(r.report));
        }
    }
    if (finish) check_whole_inputs(named, *finish, case_files);
    // Unsharded runs list cases in sorted file order; the case name is the file stem.
    std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 1; i < named.size(); ++i)
        if (named[i].first == named[i - 1].first)
            throw std::runtime_error("case \"" + named[i].first +
                                     "\" is in more than one shard output (whole, or whole and in parts)");
    // An earlier run's pictures of these cases go first, as a run removes them (a case green now
    // kept the red run's diff pictures beside its report).
    for (const auto& [name, report] : named) remove_case_files(out, name);
    for (const auto& [from, rel] : copies) {
        fs::create_directories((out / rel).parent_path());
        fs::copy_file(from, out / rel, fs::copy_options::overwrite_existing);
    }
    for (const auto& [rel, bytes] : finished_files)
        write_output_file(out, rel,
                          std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    std::vector<ojson> reports;
    for (auto& [name, report] : named) {
        write_json(out / (name + ".json"), report); // as the shard wrote it
        reports.push_back(shared.restore(report, evidence));
    }
    const ojson index = write_run_outputs(out, reports, {}, seeded, seconds, shared.json());
    const std::string status = index.at("status").get<std::string>();
    return status == "equivalent" ? 0 : status == "divergent" ? 1 : 2;
}

} // namespace refcheck::harness
