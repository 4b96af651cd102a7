#include "refcheck/harness/out_folder.hpp"

#include "refcheck/harness/report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <stdexcept>

namespace refcheck::harness {

namespace fs = std::filesystem;

namespace {

// Absolute, symbolic links resolved where the path exists, without a trailing separator: two
// names of one folder compare equal.
fs::path normalised(const fs::path& p) {
    std::error_code ec;
    fs::path n = fs::weakly_canonical(fs::absolute(p), ec);
    if (ec) n = fs::absolute(p).lexically_normal();
    if (!n.has_filename() && n.has_relative_path()) n = n.parent_path();
    return n;
}

// `outer` is `inner` or one of its ancestors.
bool holds(const fs::path& outer, const fs::path& inner) {
    auto o = outer.begin(), i = inner.begin();
    for (; o != outer.end(); ++o, ++i)
        if (i == inner.end() || *o != *i) return false;
    return true;
}

// Whether `file` is a JSON document whose "schema" starts with `schema` (an index refcheck writes).
bool has_schema(const fs::path& file, const std::string& schema) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return false;
    std::ifstream in(file);
    const auto j = nlohmann::json::parse(in, nullptr, false);
    return j.is_object() && j.contains("schema") && j.at("schema").is_string() &&
           j.at("schema").get<std::string>().rfind(schema, 0) == 0;
}

// An output folder an earlier refcheck wrote before it left kOutputMarker in them: by the index
// each command writes.
bool earlier_output(const fs::path& dir) {
    std::error_code ec;
    return has_schema(dir / "run.json", kRunIndexSchema) ||
           has_schema(dir / "mutate.json", "refcheck-mutate/") ||
           has_schema(dir / "chaos.json", "refcheck-chaos/") ||
           has_schema(dir / "jobs-1" / "run.json", kRunIndexSchema) ||
           (fs::is_regular_file(dir / "workbench.js", ec) && fs::is_regular_file(dir / "index.html", ec));
}

// A file name is removed only when it matches `pattern` and is a regular file (never a folder).
void remove_matching(const fs::path& dir, const std::regex& pattern) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec) || fs::is_symlink(dir, ec)) return;
    std::vector<fs::path> doomed;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file() && !e.is_symlink() && std::regex_match(e.path().filename().string(), pattern))
            doomed.push_back(e.path());
    for (const auto& f : doomed) fs::remove(f);
    if (fs::is_empty(dir, ec) && !ec) fs::remove(dir, ec);
}

} // namespace

void claim_output_folder(const std::string& option, const fs::path& dir,
                         const std::vector<GuardedInput>& inputs) {
    if (dir.empty()) throw std::runtime_error(option + ": an output folder is required, got an empty name");
    const std::string named = option + " " + dir.string();
    std::error_code ec;
    for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
        const auto st = fs::status(p, ec);
        if (st.type() == fs::file_type::not_found) {
            if (p == p.parent_path()) break;
            continue;
        }
        if (st.type() != fs::file_type::directory)
            throw std::runtime_error(named + ": " +
                                     (p == dir ? std::string("exists and is not a folder")
                                               : p.string() + " exists and is not a folder") +
                                     " (the outputs are a folder of files; name a folder or a new path)");
        break; // the nearest existing ancestor is a folder: the rest can be created
    }
    // Reports are written by case name: a folder holding the inputs would have them overwritten
    // (a case file by its own report) or mixed with reports.
    const fs::path out = normalised(dir);
    for (const GuardedInput& input : inputs)
        if (holds(out, normalised(input.path)))
            throw std::runtime_error(named + ": " + (out == normalised(input.path) ? "is " : "holds ") +
                                     input.what +
                                     "; refcheck writes and replaces files in its output folder, so it never "
                                     "writes where its inputs are: name a folder outside it");
        else if (input.nothing_inside && holds(normalised(input.path), out))
            throw std::runtime_error(
                named + ": lies inside " + input.what +
                "; refcheck never writes where its inputs are, and its reports there "
                "would join what the original lists and reads: name a folder outside it");
    if (fs::is_directory(dir, ec)) {
        const bool marked = fs::exists(dir / kOutputMarker, ec);
        if (!marked && !fs::is_empty(dir, ec) && !earlier_output(dir))
            throw std::runtime_error(named +
                                     ": the folder is not empty and is not a refcheck output folder (it has "
                                     "no " +
                                     std::string(kOutputMarker) +
                                     " and no index an earlier refcheck wrote); refcheck replaces files in "
                                     "its output folder, so it writes only into a new or empty folder or one "
                                     "it wrote before: name another folder");
    } else {
        fs::create_directories(dir, ec);
        if (ec) throw std::runtime_error(named + ": cannot create the folder: " + ec.message());
    }
    // Written on every claim, so that its bytes are always these: an output folder's files are the
    // same for the same inputs, whatever marker an earlier version (or a person) left.
    std::ofstream marker(dir / kOutputMarker, std::ios::trunc);
    marker << "This folder holds refcheck's outputs: refcheck may replace the files it writes here.\n";
    if (!marker) throw std::runtime_error(named + ": cannot write " + (dir / kOutputMarker).string());
}

void remove_case_files(const fs::path& out, const std::string& name) {
    static const std::regex written(R"(coverage\.drcov|frame-[0-9]+-(original|reimpl|diff)\.png)");
    remove_matching(out / name, written);
}

void write_output_file(const fs::path& out, const fs::path& rel, std::string_view bytes) {
    if (rel.empty() || rel.is_absolute() ||
        std::any_of(rel.begin(), rel.end(), [](const fs::path& c) { return c == ".."; }))
        throw std::runtime_error("refcheck writes only inside its output folder, not " + rel.string());
    fs::path at = out;
    for (auto c = rel.begin(); c != rel.end() && std::next(c) != rel.end(); ++c) {
        at /= *c;
        std::error_code ec;
        if (fs::is_symlink(fs::symlink_status(at, ec))) fs::remove(at); // the link, never what it names
    }
    write_file_atomically(out / rel, bytes);
}

void remove_part_files(const fs::path& out) {
    static const std::regex written(R"(.+\.part-[0-9]+-of-[0-9]+)");
    remove_matching(out / "parts", written);
}

} // namespace refcheck::harness
