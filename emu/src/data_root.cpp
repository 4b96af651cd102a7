#include "refcheck/emu/data_root.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <system_error>
#include <variant>

#include <sys/stat.h>

#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

namespace fs = std::filesystem;

namespace {
FileStamp stamp_of(const struct stat& st) {
    FileStamp s;
    s.exists = true;
    s.device = static_cast<uint64_t>(st.st_dev);
    s.inode = static_cast<uint64_t>(st.st_ino);
    s.size = static_cast<uint64_t>(st.st_size);
    s.modified_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    s.changed_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
    return s;
}
} // namespace

FileStamp stamp_path(const fs::path& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? stamp_of(st) : FileStamp{};
}

FileStamp stamp_descriptor(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 ? stamp_of(st) : FileStamp{};
}

namespace {

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

std::vector<std::string> split(std::string_view s) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find('\\', start);
        if (end == std::string_view::npos) end = s.size();
        parts.emplace_back(s.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

bool is_device_name(std::string_view component) {
    std::string base = upper(component.substr(0, component.find('.')));
    static const char* const devices[] = {"CON", "PRN", "AUX", "NUL"};
    for (const char* d : devices)
        if (base == d) return true;
    return base.size() == 4 && (base.starts_with("COM") || base.starts_with("LPT")) && base[3] >= '1' &&
           base[3] <= '9';
}

Resolution refuse(std::string reason) {
    Resolution r;
    r.status = Resolution::Status::refused;
    r.error = win32_error::access_denied;
    r.reason = std::move(reason);
    return r;
}

Resolution missing(uint32_t error, std::string reason) {
    Resolution r;
    r.status = Resolution::Status::missing;
    r.error = error;
    r.reason = std::move(reason);
    return r;
}

// The entry of `dir` named `name`: exactly, else ignoring ASCII case (smallest such name).
std::optional<std::string> match_entry(const fs::path& dir, const std::string& name) {
    std::error_code ec;
    std::optional<std::string> best;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string entry = it->path().filename().string();
        if (entry == name) return entry;
        if (same_windows_name(entry, name) && (!best || entry < *best)) best = entry;
    }
    return best;
}

// Lexical normalisation of a Windows path into components below the drive root.
// Returns an error reason instead when the path cannot be confined.
std::variant<std::vector<std::string>, std::string> normalise(std::string_view guest, char mount_drive,
                                                              const std::vector<std::string>& cwd) {
    std::string p(guest);
    std::replace(p.begin(), p.end(), '/', '\\');
    if (p.starts_with("\\\\")) return std::string("UNC and device paths are outside the data root");
    std::vector<std::string> stack;
    std::string rest = p;
    if (p.size() >= 2 && std::isalpha(static_cast<unsigned char>(p[0])) && p[1] == ':') {
        if (std::toupper(static_cast<unsigned char>(p[0])) != mount_drive)
            return std::string("drive ") + p.substr(0, 2) + " is outside the data root";
        rest = p.substr(2);
    }
    if (!rest.starts_with('\\')) stack = cwd;
    for (std::string part : split(rest)) {
        while (!part.empty() && (part.back() == '.' || part.back() == ' ') && part != "." && part != "..")
            part.pop_back();
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            if (stack.empty()) return std::string("'..' climbs above the drive root");
            stack.pop_back();
            continue;
        }
        if (part.find_first_of(":*?\"<>|") != std::string::npos)
            return std::string("invalid character in '") + part + "'";
        if (is_device_name(part)) return std::string("device name '") + part + "'";
        stack.push_back(part);
    }
    return stack;
}

} // namespace

bool same_windows_name(std::string_view a, std::string_view b) {
    return a.size() == b.size() && upper(a) == upper(b);
}

bool wildcard_match(std::string_view pattern, std::string_view text, bool ignore_case) {
    const auto same = [ignore_case](char p, char t) {
        if (p == '?' || p == t) return true;
        return ignore_case &&
               std::toupper(static_cast<unsigned char>(p)) == std::toupper(static_cast<unsigned char>(t));
    };
    std::size_t i = 0, j = 0, star = std::string_view::npos, mark = 0;
    while (j < text.size()) {
        if (i < pattern.size() && pattern[i] != '*' && same(pattern[i], text[j])) {
            ++i, ++j;
        } else if (i < pattern.size() && pattern[i] == '*') {
            star = i++;
            mark = j;
        } else if (star != std::string_view::npos) {
            i = star + 1;
            j = ++mark;
        } else {
            return false;
        }
    }
    while (i < pattern.size() && pattern[i] == '*') ++i;
    return i == pattern.size();
}

DataRoot::DataRoot(const fs::path& root, std::string mount, bool writable) : writable_(writable) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw EmuError("data root " + root.string() + " is not a directory");
    root_ = fs::canonical(root);
    std::replace(mount.begin(), mount.end(), '/', '\\');
    if (mount.size() < 3 || !std::isalpha(static_cast<unsigned char>(mount[0])) || mount[1] != ':' ||
        mount[2] != '\\')
        throw EmuError("data root mount '" + mount + "' is not an absolute Windows folder like C:\\GAME\\");
    mount_ = upper(mount);
    if (!mount_.ends_with('\\')) mount_ += '\\';
    for (std::string& part : split(std::string_view(mount_).substr(3)))
        if (!part.empty()) mount_parts_.push_back(part);
}

bool DataRoot::inside_root(const fs::path& p) const {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(p, ec);
    if (ec) return false;
    auto [r, c] = std::mismatch(root_.begin(), root_.end(), canonical.begin(), canonical.end());
    return r == root_.end();
}

Resolution DataRoot::resolve(std::string_view guest_path, bool for_create) const {
    if (guest_path.empty()) return missing(win32_error::path_not_found, "empty path");
    auto normal = normalise(guest_path, mount_[0], mount_parts_);
    if (auto* reason = std::get_if<std::string>(&normal)) return refuse(*reason);
    const auto& parts = std::get<std::vector<std::string>>(normal);
    if (parts.size() < mount_parts_.size() ||
        !std::equal(mount_parts_.begin(), mount_parts_.end(), parts.begin(), same_windows_name))
        return refuse("outside the data root " + mount_);
    fs::path cur = root_;
    std::string relative;
    for (size_t i = mount_parts_.size(); i < parts.size(); ++i) {
        bool last = i + 1 == parts.size();
        std::optional<std::string> entry = match_entry(cur, parts[i]);
        if (!entry) {
            if (last && for_create) {
                entry = parts[i];
            } else {
                return missing(last ? win32_error::file_not_found : win32_error::path_not_found,
                               "no entry '" + parts[i] + "' in '" + (relative.empty() ? "." : relative) +
                                   "'");
            }
        }
        cur /= *entry;
        relative += (relative.empty() ? "" : "/") + *entry;
        std::error_code ec;
        if (fs::is_symlink(fs::symlink_status(cur, ec))) {
            // A dangling link resolves "inside" (weakly_canonical keeps its name), yet creating
            // through it writes wherever it points: refused, as a link that leads outside is.
            if (!fs::exists(cur, ec))
                return refuse("symbolic link '" + relative +
                              "' leads to nothing (it may point outside the data root)");
            if (!inside_root(cur))
                return refuse("symbolic link '" + relative + "' leads outside the data root");
        }
    }
    if (!inside_root(cur)) return refuse("resolves outside the data root");
    Resolution r;
    r.status = Resolution::Status::found;
    r.host = cur;
    r.relative = relative.empty() ? "." : relative;
    r.error = win32_error::success;
    return r;
}

} // namespace refcheck::emu
