// The files a case report names by SHA-256 (image, profile, archives), watched from before they are
// read until the case is over. The original reads them on its own (the loader, the guest's file
// calls) at other times than the harness hashes them and the reimplementation reads them: an edit
// in between would make the two sides compare different bytes, or the report name bytes that did
// not run. A file whose stamp changed is named, and run_case makes the case an error.
//
// The files the guest read are named by SHA-256 from the guest's own side: each open records the
// stamp of the descriptor the guest got (emu::FileAccess::opened), and a file is hashed only while
// its stamp is still that one. An archive the harness gave the reimplementation and the guest read
// under the same Windows name (ASCII case ignored, as Windows does) must be the same bytes.
#pragma once

#include "refcheck/emu/data_root.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace refcheck::harness {

using FileStamp = emu::FileStamp;
inline FileStamp stamp_file(const std::filesystem::path& path) { return emu::stamp_path(path); }

// What the guest read, by SHA-256, and what is wrong with it.
struct GuestReads {
    std::vector<std::string> sha256; // per access, in order; empty for one that read no file
    std::string problems;            // one line each; empty when none
};

class InputWatch {
public:
    // Stamps `path` now, before it is first read; `label` names it ("3DDATA/3DOBJS.BIN", "image").
    void watch(const std::filesystem::path& path, std::string label);
    // The files whose stamps differ now from their first ones, one line each; empty when none.
    std::string changed() const;

    // The harness read the watched `path` and gave its bytes, `sha256`, to the reimplementation
    // (an archive). `label` is the data root's name for it ("3DDATA/3DOBJS.BIN").
    void given(const std::filesystem::path& path, std::string sha256);
    // The SHA-256 given() recorded for the file watched as `label`; throws std::logic_error if none.
    const std::string& given_sha256(std::string_view label) const;

    // Every file the guest opened for reading only, hashed as it is now if its stamp is the one the
    // guest's descriptor had at the open (a file the harness read at that very stamp is not read
    // again), and checked against the given archives of the same name.
    GuestReads guest_reads(const std::vector<emu::FileAccess>& accesses) const;

private:
    struct Watched {
        std::filesystem::path path;
        std::string label;
        FileStamp stamp;
        std::string given_sha256; // when the reimplementation was given its bytes
    };
    std::vector<Watched> files_;
};

} // namespace refcheck::harness
