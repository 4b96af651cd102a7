#include "refcheck/harness/input_watch.hpp"

#include <sys/stat.h>

namespace refcheck::harness {

FileStamp stamp_file(const std::filesystem::path& path) {
    struct stat st {};
    FileStamp s;
    if (::stat(path.c_str(), &st) != 0) return s;
    s.exists = true;
    s.device = static_cast<std::uint64_t>(st.st_dev);
    s.inode = static_cast<std::uint64_t>(st.st_ino);
    s.size = static_cast<std::uint64_t>(st.st_size);
    s.modified_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    s.changed_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
    return s;
}

void InputWatch::watch(const std::filesystem::path& path, std::string label) {
    for (const Watched& w : files_)
        if (w.path == path) return; // the first stamp counts
    files_.push_back({path, std::move(label), stamp_file(path)});
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

} // namespace refcheck::harness
