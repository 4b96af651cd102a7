// File access confined to a data root.
//
// The guest sees the root as the Windows folder `mount` (default "C:\"), which is also its
// current directory. A guest path (drive letter or not, backslashes or slashes, any case, "."
// and "..") is normalised lexically; it must stay inside `mount`, otherwise it is refused with
// ERROR_ACCESS_DENIED (a ".." above the mount, another drive, a UNC path, a device or stream
// name). Each remaining component is matched against the host directory listing, exactly first,
// then ignoring ASCII case (the lexicographically smallest match wins, for determinism). A
// symbolic link met on the way is refused if its target leaves the root. Nothing outside the root
// is ever opened. Every request is recorded as a FileAccess for reports.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace refcheck::emu {

// Win32 error codes the shims return.
namespace win32_error {
inline constexpr uint32_t success = 0;
inline constexpr uint32_t file_not_found = 2;
inline constexpr uint32_t path_not_found = 3;
inline constexpr uint32_t access_denied = 5;
inline constexpr uint32_t invalid_handle = 6;
inline constexpr uint32_t not_enough_memory = 8;
inline constexpr uint32_t no_more_files = 18;
inline constexpr uint32_t file_exists = 80;
inline constexpr uint32_t invalid_parameter = 87;
inline constexpr uint32_t filename_exced_range = 206; // a path past MAX_PATH
inline constexpr uint32_t noaccess = 998;             // a buffer the process may not access
} // namespace win32_error

// What changes when a file is written, replaced or removed: its identity (device, inode), size and
// times. The status-change time moves on every write and metadata change and cannot be set back
// with utimensat, so a rewrite with the same bytes and a restored modification time still shows.
struct FileStamp {
    bool exists = false;
    uint64_t device = 0, inode = 0, size = 0;
    int64_t modified_ns = 0, changed_ns = 0;
    bool operator==(const FileStamp&) const = default;
};
FileStamp stamp_path(const std::filesystem::path& path); // follows symbolic links, as an open does
FileStamp stamp_descriptor(int fd);                      // the file an open descriptor refers to

struct FileAccess {
    std::string guest_path; // as the guest gave it
    std::string resolved;   // relative to the root with '/' separators; empty if refused
    std::string mode;       // "read", "write", "read/write" or "list"
    std::string routine;    // the routine being called
    uint64_t bytes_read = 0;
    uint64_t bytes_written = 0;
    bool refused = false; // refused by confinement (ERROR_ACCESS_DENIED)
    uint32_t error = 0;   // Win32 error of the open, 0 when it succeeded
    // The host file the guest opened and its descriptor's stamp at that moment (not `exists` when
    // nothing was opened): what a report names by SHA-256 is checked against it, so that the
    // bytes named are the file the guest itself opened, unchanged since.
    std::filesystem::path host;
    FileStamp opened;
};

struct Resolution {
    enum class Status { found, missing, refused };
    Status status = Status::refused;
    std::filesystem::path host;                  // where it is (or would be created) on the host
    std::string relative;                        // relative to the root, '/' separators
    uint32_t error = win32_error::access_denied; // Win32 error when not found
    std::string reason;                          // why it was refused or not found
};

// Whether `text` matches `pattern` (`*` any run, `?` one character, everything else literal;
// letters compared without case when `ignore_case`, as Windows file names are). Iterative with one
// backtrack point (the last '*'): at most pattern x text steps, never recursive, so a hostile
// pattern (`*a*a...*b`) cannot spin or exhaust the stack. FindFirstFileA's matcher; refcheck's
// --filter globs use it too.
bool wildcard_match(std::string_view pattern, std::string_view text, bool ignore_case);
// Whether two names are the same to Windows: equal ignoring ASCII case (the data root's matching).
bool same_windows_name(std::string_view a, std::string_view b);

class DataRoot {
public:
    // Throws EmuError when `root` is not a directory or `mount` is not "X:\..." .
    explicit DataRoot(const std::filesystem::path& root, std::string mount = "C:\\", bool writable = false);

    // Resolves a guest path. With `for_create`, a missing last component is "found" as the name
    // the guest gave (the parent folder must exist).
    Resolution resolve(std::string_view guest_path, bool for_create = false) const;

    const std::filesystem::path& root() const { return root_; }
    const std::string& mount() const { return mount_; }
    bool writable() const { return writable_; }

    // Whether a host path, its symbolic links followed, lies inside the root (a listing's entry).
    bool contains(const std::filesystem::path& host) const { return inside_root(host); }

    std::vector<FileAccess>& accesses() { return accesses_; }
    const std::vector<FileAccess>& accesses() const { return accesses_; }

private:
    bool inside_root(const std::filesystem::path& p) const;

    std::filesystem::path root_; // canonical
    std::string mount_;          // upper-case drive, backslashes, trailing backslash
    std::vector<std::string> mount_parts_;
    bool writable_ = false;
    std::vector<FileAccess> accesses_;
};

} // namespace refcheck::emu
