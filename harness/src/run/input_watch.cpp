#include "refcheck/harness/input_watch.hpp"

#include "refcheck/harness/hash.hpp"

#include <exception>
#include <map>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace refcheck::harness {

namespace {
std::string named(const emu::FileAccess& a) {
    return a.resolved + " (\"" + a.guest_path + "\", opened by " + a.routine + ")";
}
} // namespace

void InputWatch::watch(const std::filesystem::path& path, std::string label) {
    for (const Watched& w : files_)
        if (w.path == path) return; // the first stamp counts
    files_.push_back({path, std::move(label), stamp_file(path), {}});
}

void InputWatch::given(const std::filesystem::path& path, std::string sha256) {
    for (Watched& w : files_)
        if (w.path == path) w.given_sha256 = std::move(sha256);
}

const std::string& InputWatch::given_sha256(std::string_view label) const {
    for (const Watched& w : files_)
        if (w.label == label && !w.given_sha256.empty()) return w.given_sha256;
    throw std::logic_error("no bytes of " + std::string(label) + " were given to the reimplementation");
}

std::string InputWatch::changed() const {
    std::string out;
    for (const Watched& w : files_) {
        const FileStamp now = stamp_file(w.path);
        if (now == w.stamp) continue;
        const char* how = !w.stamp.exists ? "appeared"
                          : !now.exists   ? "was removed"
                          : now.device != w.stamp.device || now.inode != w.stamp.inode
                              ? "was replaced by another file"
                              : "was written or its status changed";
        out +=
            (out.empty() ? "" : "\n") + w.label + " (" + w.path.string() + ") " + how + " while the case ran";
    }
    return out;
}

GuestReads InputWatch::guest_reads(const std::vector<emu::FileAccess>& accesses) const {
    GuestReads out;
    out.sha256.resize(accesses.size());
    const auto problem = [&out](const std::string& line) {
        out.problems += (out.problems.empty() ? "" : "\n") + line;
    };
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> hashed; // by (device, inode)
    for (std::size_t k = 0; k < accesses.size(); ++k) {
        const emu::FileAccess& a = accesses[k];
        if (a.refused || a.error != 0 || !a.opened.exists || a.mode != "read") continue;
        if (stamp_file(a.host) != a.opened) {
            problem("the original's file " + named(a) +
                    " was written, replaced or removed after the original opened it, so what it read "
                    "cannot be named by SHA-256");
            continue;
        }
        std::string sha;
        for (const Watched& w : files_)
            if (!w.given_sha256.empty() && w.stamp == a.opened) sha = w.given_sha256; // the same bytes
        const auto key = std::make_pair(a.opened.device, a.opened.inode);
        if (sha.empty()) {
            if (const auto it = hashed.find(key); it != hashed.end()) {
                sha = it->second;
            } else {
                try {
                    sha = sha256_file(a.host);
                } catch (const std::exception& e) {
                    problem("the original's file " + named(a) + " cannot be hashed: " + e.what());
                    continue;
                }
                if (stamp_file(a.host) != a.opened) { // written while it was hashed
                    problem("the original's file " + named(a) + " was written while it was hashed");
                    continue;
                }
                hashed.emplace(key, sha);
            }
        }
        out.sha256[k] = sha;
        for (const Watched& w : files_)
            if (!w.given_sha256.empty() && emu::same_windows_name(a.resolved, w.label) &&
                w.given_sha256 != sha)
                problem("the original read " + named(a) + ", SHA-256 " + sha +
                        ", but the reimplementation was given " + w.label + " (" + w.path.string() +
                        "), SHA-256 " + w.given_sha256 + ": the two sides did not read the same bytes");
    }
    return out;
}

} // namespace refcheck::harness
