// The files a case report names by SHA-256 (image, profile, archives), watched from before they are
// read until the case is over. The original reads them on its own (the loader, the guest's file
// calls) at other times than the harness hashes them and the reimplementation reads them: an edit
// in between would make the two sides compare different bytes, or the report name bytes that did
// not run. A file whose stamp changed is named, and run_case makes the case an error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace refcheck::harness {

// What changes when a file is written, replaced or removed: its identity (device, inode), size and
// times. The status-change time moves on every write and metadata change and cannot be set back
// with utimensat, so a rewrite with the same bytes and a restored modification time still shows.
struct FileStamp {
    bool exists = false;
    std::uint64_t device = 0, inode = 0, size = 0;
    std::int64_t modified_ns = 0, changed_ns = 0;
    bool operator==(const FileStamp&) const = default;
};
FileStamp stamp_file(const std::filesystem::path& path); // follows symbolic links, as a read does

class InputWatch {
public:
    // Stamps `path` now, before it is first read; `label` names it ("3DDATA/3DOBJS.BIN", "image").
    void watch(const std::filesystem::path& path, std::string label);
    // The files whose stamps differ now from their first ones, one line each; empty when none.
    std::string changed() const;

private:
    struct Watched {
        std::filesystem::path path;
        std::string label;
        FileStamp stamp;
    };
    std::vector<Watched> files_;
};

} // namespace refcheck::harness
