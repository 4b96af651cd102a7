#include "cli_support.hpp"

#include "family/placement.hpp" // harness/src: the camera a run builds for each view
#include "refcheck/harness/report.hpp"

#include "refcheck/reimpl/construction.hpp"
#include "refcheck/reimpl/file_bytes.hpp"
#include "refcheck/reimpl/interpreter.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

#include <algorithm>

#include <openssl/evp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace refcheck::cli_test {

ojson ProgramCase::to_json() const {
    ojson views_json = ojson::array();
    for (const auto& v : views)
        views_json.push_back(
            {{"yaw", v.yaw}, {"pitch", v.pitch}, {"roll", v.roll}, {"distance", v.distance}});
    ojson j = {
        {"schema", "refcheck-case/1"},
        {"family", "program"},
        {"description", "cli_tests: a small program case"},
        {"selection",
         {{"records", {{"list", records}}}, {"views", views_json}, {"lights", lights}, {"states", states}}}};
    j["hooks"] = {{run_faces ? "run" : "replace", kFaceRoutines}};
    if (!allow.empty()) j["allow"] = allow;
    return j;
}

ProgramCase small_program() {
    ProgramCase c;
    c.records = {1, 5, 9};
    c.views = {{35, 25, 0, 4}, {215, 15, 0, 4}};
    c.lights = {{6689, 13377, 6689}, {16384, 0, 0}};
    c.states = {0, 524287};
    return c;
}

ProgramCase small_frames() {
    ProgramCase c;
    c.records = {2, 6};
    c.views = {{35, 25, 0, 2}};
    c.lights = {{6689, 13377, 6689}};
    c.states = {0};
    c.run_faces = true;
    c.allow = {"missing_normal"};
    return c;
}

ojson small_receivers(std::uint32_t queries, std::uint32_t seed) {
    return {{"schema", "refcheck-case/1"},
            {"family", "receiver"},
            {"description", "cli_tests: receiver queries"},
            {"selection", {{"queries", queries}, {"seed", seed}}}};
}

ojson small_palette() {
    return {{"schema", "refcheck-case/1"},
            {"family", "palette"},
            {"description", "cli_tests: the palette tables of one warzone"},
            {"selection", {{"warzones", {2}}}}};
}

void CliTest::SetUp() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / ("refcheck-cli-" + std::to_string(::getpid())) /
           (std::string(info->test_suite_name()) + "." + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cases");
}

void CliTest::TearDown() {
    if (HasFailure()) {
        std::printf("test folder kept: %s\n", dir_.c_str());
        return;
    }
    fs::remove_all(dir_);
    std::error_code ignored;
    fs::remove(dir_.parent_path(), ignored); // only when no other test left its folder there
}

Result CliTest::refcheck(const std::string& args, const std::string& env) {
    const std::string stem = "refcheck-" + std::to_string(++runs_);
    const fs::path out = dir_ / (stem + ".stdout"), err = dir_ / (stem + ".stderr");
    const std::string command =
        "cd " + quote(dir_) +
        " && env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX -u GTEST_SHARD_STATUS_FILE " + env + " " +
        quote(kRefcheck) + " " + args + " >" + quote(out) + " 2>" + quote(err);
    const int status = std::system(command.c_str());
    Result r;
    r.code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
}

fs::path CliTest::write_case(const std::string& name, const ojson& j) {
    fs::path file = dir_ / "cases" / (name + ".json");
    std::ofstream(file) << j.dump(2) << "\n";
    return file;
}

std::string quote(const fs::path& p) {
    std::string out = "'";
    for (char c : p.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string join(const std::vector<fs::path>& paths) {
    std::string out;
    for (const auto& p : paths) out += (out.empty() ? "" : " ") + quote(p);
    return out;
}

fs::path shipped_case(const std::string& name) { return kCasesDir / (name + ".json"); }

std::string read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Reports and run.json through refcheck's own reader (the one refcheck merge, diff, show and chaos
// use, which takes no fractions): one the tests read that refcheck itself could not read back fails
// the test that reads it. mutate.json and chaos.json are read by people and scripts only, and carry
// seconds and scores as fractions.
ojson read_json(const fs::path& file) {
    const std::string name = file.filename().string();
    if (name != "mutate.json" && name != "chaos.json") return harness::read_json(file);
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    return ojson::parse(in);
}

ojson profile_data(const std::string& name) {
    const ojson profile = read_json(kProfile);
    for (const ojson& d : profile.at("data"))
        if (d.at("name") == name) return d;
    throw std::runtime_error(kProfile.string() + " has no data \"" + name + "\"");
}

std::uint32_t profile_data_address(const std::string& name) {
    return static_cast<std::uint32_t>(
        std::stoul(profile_data(name).at("address").get<std::string>(), nullptr, 16));
}

std::uint32_t profile_offset(const std::string& structure, const std::string& field) {
    const ojson profile = read_json(kProfile);
    for (const ojson& f : profile.at("structs").at(structure).at("fields"))
        if (f.at("name") == field) return f.at("offset").get<std::uint32_t>();
    throw std::runtime_error(kProfile.string() + "'s struct " + structure + " has no field " + field);
}

std::map<std::string, std::string> tree(const fs::path& dir) {
    std::map<std::string, std::string> out;
    if (!fs::is_directory(dir)) return out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = read_text(e.path());
    return out;
}

std::string without_junit_times(const std::string& junit) {
    static const std::regex time(R"re( time="[0-9]+\.[0-9]{3}")re");
    return std::regex_replace(junit, time, " time=\"\"");
}

std::map<std::string, std::string> tree_without_junit_times(const fs::path& dir) {
    auto out = tree(dir);
    for (auto& [file, bytes] : out)
        if (fs::path(file).filename() == "junit.xml") bytes = without_junit_times(bytes);
    return out;
}

std::string sha256_of(const fs::path& file) {
    const std::string bytes = read_text(file);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr);
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < size; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size()))
        ++n;
    return n;
}

std::string input_name(std::uint32_t record, std::size_t view, std::size_t light, std::uint32_t state) {
    return "record " + std::to_string(record) + " view " + std::to_string(view) + " light " +
           std::to_string(light) + " state " + std::to_string(state);
}

namespace {
struct SmallArchives {
    reimpl::ModelArchive models =
        reimpl::ModelArchive::parse(reimpl::read_file_bytes(kSmallData / "3DDATA" / "3DOBJS.BIN"));
    reimpl::TextureArchive textures =
        reimpl::TextureArchive::parse(reimpl::read_file_bytes(kSmallData / "3DDATA" / "OBJTEXT.BIN"));
};
const SmallArchives& small_archives() {
    static const SmallArchives archives;
    return archives;
}
} // namespace

std::vector<events::Event> reimpl_stream(std::uint32_t record, const harness::View& view,
                                         const std::vector<std::int32_t>& light, std::uint32_t state,
                                         bool swap_light_xz) {
    const SmallArchives& a = small_archives();
    reimpl::Interpreter interpreter(a.models, a.textures);
    const reimpl::Instance root = reimpl::construct(a.models, record, reimpl::Transform{});
    reimpl::Light l{{light.at(0), light.at(1), light.at(2)}};
    if (swap_light_xz) std::swap(l.direction[0], l.direction[2]);
    events::VectorSink sink;
    interpreter.draw(root, reimpl::DrawInput{harness::camera_for(a.models.record(record), view), l, state},
                     sink);
    std::vector<events::Event> out;
    for (const auto& e : sink.events())
        if (!std::holds_alternative<events::ControlFlow>(e)) out.push_back(e);
    return out;
}

ojson report_event(const events::Event& e) {
    const bool face = std::holds_alternative<events::FaceDraw>(e);
    ojson fields = ojson::object();
    events::visit_fields(e, [&](std::string_view name, const events::FieldValue& value) {
        if (name == "flags" || (!face && (name == "offset" || name == "opcode"))) return;
        std::visit([&](const auto& v) { fields[std::string(name)] = v; }, value);
    });
    return {{"kind", std::string(events::kind_name(e))}, {"fields", fields}};
}

ojson without_flags(const ojson& e) {
    ojson out = e;
    out.erase("flags");
    out.erase("excuses");
    return out;
}

std::size_t killed_by_divergence(const ojson& mutate,
                                 const std::function<bool(const ojson& killed_by)>& caught) {
    std::size_t n = 0;
    for (const auto& m : mutate.at("mutants"))
        if (m.at("status") == "killed" && m.at("killed_by").at("how") == "divergence" &&
            caught(m.at("killed_by")))
            ++n;
    return n;
}

std::vector<fs::path> shipped_cases_starting(const std::string& prefix) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(kCasesDir))
        if (e.path().extension() == ".json" && e.path().filename().string().rfind(prefix, 0) == 0)
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::pair<fs::path, fs::path>
patched_original(const fs::path& dir,
                 const std::vector<std::pair<std::uint32_t, std::vector<std::uint8_t>>>& patches) {
    std::string image = read_text(kImage);
    auto u32 = [&](std::size_t at) {
        std::uint32_t v = 0;
        for (int k = 3; k >= 0; --k)
            v = (v << 8) | static_cast<unsigned char>(image.at(at + static_cast<std::size_t>(k)));
        return v;
    };
    const std::size_t pe = u32(0x3c);
    const std::size_t sections = u32(pe + 6) & 0xffff, optional = u32(pe + 20) & 0xffff;
    const std::uint32_t base = u32(pe + 24 + 28);
    for (const auto& [address, bytes] : patches) {
        const std::uint32_t rva = address - base;
        bool placed = false;
        for (std::size_t k = 0; k < sections && !placed; ++k) {
            const std::size_t h = pe + 24 + optional + 40 * k;
            const std::uint32_t va = u32(h + 12), raw_size = u32(h + 16), raw = u32(h + 20);
            if (rva < va || rva + bytes.size() > va + raw_size) continue;
            for (std::size_t b = 0; b < bytes.size(); ++b)
                image.at(raw + rva - va + b) = static_cast<char>(bytes[b]);
            placed = true;
        }
        if (!placed) throw std::runtime_error("no section holds the patch at " + std::to_string(address));
    }
    const fs::path file = dir / "stateful.exe", profile = dir / "stateful.profile.json";
    std::ofstream(file, std::ios::binary) << image;
    ojson p = read_json(kProfile);
    p["image_sha256"] = sha256_of(file);
    std::ofstream(profile) << p.dump(1) << "\n";
    return {file, profile};
}

} // namespace refcheck::cli_test
