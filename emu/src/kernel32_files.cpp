// kernel32 file I/O, confined to the data root (see data_root.hpp). Every open and search is
// recorded as a FileAccess; reads and writes add their byte counts to it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>

#include "win32_util.hpp"

namespace refcheck::emu::win32 {

namespace {

constexpr uint32_t generic_read = 0x80000000, generic_write = 0x40000000, generic_all = 0x10000000;
constexpr uint32_t create_new = 1, create_always = 2, open_existing = 3, open_always = 4,
                   truncate_existing = 5;
constexpr uint32_t error_already_exists = 183, error_negative_seek = 131;
constexpr uint32_t max_transfer = 64u << 20; // one ReadFile/WriteFile moves at most 64 MiB

OpenFile* find_file(Machine& m, uint32_t handle) {
    auto it = m.kernel32().files.find(handle);
    return it == m.kernel32().files.end() ? nullptr : &it->second;
}

uint32_t win32_error_of(int err) {
    switch (err) {
        case ENOENT: return win32_error::file_not_found;
        case EEXIST: return win32_error::file_exists;
        case ENOTDIR: return win32_error::path_not_found;
        default: return win32_error::access_denied;
    }
}

int open_flags(bool read, bool write, uint32_t disposition) {
    int flags = O_CLOEXEC | (read && write ? O_RDWR : write ? O_WRONLY : O_RDONLY);
    switch (disposition) {
        case create_new: return flags | O_CREAT | O_EXCL;
        case create_always: return flags | O_CREAT | O_TRUNC;
        case open_always: return flags | O_CREAT;
        case truncate_existing: return flags | O_TRUNC;
        default: return flags;
    }
}

std::string mode_of(bool read, bool write) { return read && write ? "read/write" : write ? "write" : "read"; }

// Records a refused or failed request and returns INVALID_HANDLE_VALUE with the error set.
uint32_t refuse(Machine& m, FileAccess access, uint32_t error, const std::string& reason) {
    access.refused = error == win32_error::access_denied;
    access.error = error;
    m.log().write("CreateFileA(\"" + access.guest_path + "\") " + (access.refused ? "refused" : "failed") +
                  ": " + reason);
    if (DataRoot* root = m.data_root()) root->accesses().push_back(std::move(access));
    return fail(m, error, invalid_handle_value);
}

// WIN32_FIND_DATAA: attributes @0, times @4..27 (zero: deterministic), size high @28, low @32,
// cFileName[260] @44, cAlternateFileName[14] @304; 320 bytes.
void write_find_data(Machine& m, Address out, const FoundFile& f) {
    std::vector<uint8_t> data(320, 0);
    uint32_t attributes = f.directory ? 0x10 : 0x20;
    auto put = [&](size_t at, uint32_t v) {
        for (int i = 0; i < 4; ++i) data[at + i] = static_cast<uint8_t>(v >> (8 * i));
    };
    put(0, attributes);
    put(28, static_cast<uint32_t>(f.size >> 32));
    put(32, static_cast<uint32_t>(f.size));
    std::copy_n(f.name.begin(), std::min<size_t>(f.name.size(), 259), data.begin() + 44);
    m.guest_write(out, data);
}

} // namespace

Kernel32State::~Kernel32State() {
    for (auto& [handle, file] : files) ::close(file.fd);
}

// HANDLE CreateFileA(LPCSTR lpFileName, DWORD dwDesiredAccess, DWORD dwShareMode,
//                    LPSECURITY_ATTRIBUTES lpSecurityAttributes, DWORD dwCreationDisposition,
//                    DWORD dwFlagsAndAttributes, HANDLE hTemplateFile);
uint32_t CreateFileA(Machine& m, const Args& a) {
    FileAccess access;
    access.routine = m.current_routine();
    uint32_t desired = a.u32(1), disposition = a.u32(4);
    bool read = (desired & (generic_read | generic_all | 0x1)) != 0;
    bool write = (desired & (generic_write | generic_all | 0x2 | 0x4)) != 0;
    access.mode = mode_of(read, write);
    // A path past MAX_PATH fails as Windows fails it, whatever it names: never cut to a shorter one.
    if (!guest_path(m, a.ptr(0), access.guest_path))
        return refuse(m, std::move(access), win32_error::filename_exced_range,
                      "the path has no terminator within MAX_PATH (260 characters)");
    DataRoot* root = m.data_root();
    if (root == nullptr)
        return refuse(m, std::move(access), win32_error::access_denied, "the machine has no data root");
    // A read-only root is never changed: not by a write, and not by a disposition that creates or
    // truncates, whatever access is asked for (GENERIC_READ with CREATE_ALWAYS truncated an
    // archive). OPEN_ALWAYS there opens only what exists.
    if (!root->writable() && disposition == open_always) disposition = open_existing;
    bool creates = disposition == create_new || disposition == create_always || disposition == open_always;
    bool modifies = creates || disposition == truncate_existing;
    Resolution r = root->resolve(access.guest_path, creates);
    access.resolved = r.relative;
    if (r.status == Resolution::Status::refused)
        return refuse(m, std::move(access), win32_error::access_denied, r.reason);
    if ((write || modifies) && !root->writable())
        return refuse(m, std::move(access), win32_error::access_denied, "the data root is read-only");
    if (r.status == Resolution::Status::missing) return refuse(m, std::move(access), r.error, r.reason);
    std::error_code ec;
    if (std::filesystem::is_directory(r.host, ec))
        return refuse(m, std::move(access), win32_error::access_denied, "is a folder");
    // Only regular files: opening a FIFO or a device blocks the host (a FIFO named 3DOBJS.BIN hung
    // the run), which no instruction budget or watchdog can interrupt.
    if (std::filesystem::exists(r.host, ec) && !std::filesystem::is_regular_file(r.host, ec))
        return refuse(m, std::move(access), win32_error::access_denied, "is not a regular file");
    bool existed = std::filesystem::exists(r.host, ec);
    int fd = ::open(r.host.c_str(), open_flags(read, write, disposition), 0644);
    if (fd < 0) return refuse(m, std::move(access), win32_error_of(errno), "cannot open " + r.relative);
    Kernel32State& k = m.kernel32();
    uint32_t handle = k.next_handle;
    k.next_handle += 4;
    access.host = r.host;
    access.opened = stamp_descriptor(fd);
    k.files[handle] = {fd, root->accesses().size(), read, write};
    root->accesses().push_back(std::move(access));
    k.last_error =
        existed && (disposition == create_always || disposition == open_always) ? error_already_exists : 0;
    return handle;
}

// BOOL ReadFile(HANDLE hFile, LPVOID lpBuffer, DWORD nNumberOfBytesToRead,
//               LPDWORD lpNumberOfBytesRead, LPOVERLAPPED lpOverlapped);
uint32_t ReadFile(Machine& m, const Args& a) {
    OpenFile* f = find_file(m, a.u32(0));
    if (f == nullptr) return fail(m, win32_error::invalid_handle, FALSE_);
    if (!f->can_read) return fail(m, win32_error::access_denied, FALSE_);
    if (a.ptr(3) != 0) m.guest_write_u32(a.ptr(3), 0); // as kernel32 does first
    // A buffer the guest may not write (read-only, unmapped) fails before a byte is read, as
    // Windows probes it: ERROR_NOACCESS, the file position unchanged.
    const uint32_t want = std::min(a.u32(2), max_transfer);
    if (m.guest_refuses(a.ptr(1), want, Access::write)) return fail(m, win32_error::noaccess, FALSE_);
    std::vector<uint8_t> buffer(std::min(want, kShimBlock));
    uint32_t got = 0;
    while (got < want) {
        const ssize_t n = ::read(f->fd, buffer.data(), std::min<size_t>(buffer.size(), want - got));
        if (n < 0) return fail(m, win32_error::access_denied, FALSE_);
        if (n == 0) break; // the end of the file
        m.guest_write(a.ptr(1) + got, {buffer.data(), static_cast<size_t>(n)});
        got += static_cast<uint32_t>(n);
    }
    if (a.ptr(3) != 0) m.guest_write_u32(a.ptr(3), got);
    m.data_root()->accesses()[f->access_index].bytes_read += got;
    return fail(m, 0, TRUE_);
}

// BOOL WriteFile(HANDLE hFile, LPCVOID lpBuffer, DWORD nNumberOfBytesToWrite,
//                LPDWORD lpNumberOfBytesWritten, LPOVERLAPPED lpOverlapped);
uint32_t WriteFile(Machine& m, const Args& a) {
    OpenFile* f = find_file(m, a.u32(0));
    if (f == nullptr) return fail(m, win32_error::invalid_handle, FALSE_);
    if (!f->can_write) return fail(m, win32_error::access_denied, FALSE_);
    if (a.ptr(3) != 0) m.guest_write_u32(a.ptr(3), 0);
    const uint32_t want = std::min(a.u32(2), max_transfer);
    if (m.guest_refuses(a.ptr(1), want, Access::read)) return fail(m, win32_error::noaccess, FALSE_);
    uint32_t put = 0;
    while (put < want) {
        const std::vector<uint8_t> block =
            m.guest_read_bytes(a.ptr(1) + put, std::min(kShimBlock, want - put));
        const ssize_t n = ::write(f->fd, block.data(), block.size());
        if (n < 0) return fail(m, win32_error::access_denied, FALSE_);
        put += static_cast<uint32_t>(n);
        if (static_cast<size_t>(n) < block.size()) break; // the disk is full
    }
    if (a.ptr(3) != 0) m.guest_write_u32(a.ptr(3), put);
    m.data_root()->accesses()[f->access_index].bytes_written += put;
    return fail(m, 0, TRUE_);
}

// DWORD SetFilePointer(HANDLE hFile, LONG lDistanceToMove, PLONG lpDistanceToMoveHigh,
//                      DWORD dwMoveMethod);
uint32_t SetFilePointer(Machine& m, const Args& a) {
    constexpr uint32_t invalid_set_file_pointer = 0xffffffff;
    OpenFile* f = find_file(m, a.u32(0));
    if (f == nullptr) return fail(m, win32_error::invalid_handle, invalid_set_file_pointer);
    Address high_ptr = a.ptr(2);
    int64_t distance = high_ptr != 0
                           ? static_cast<int64_t>((uint64_t{m.guest_read_u32(high_ptr)} << 32) | a.u32(1))
                           : int64_t{a.i32(1)};
    int whence = a.u32(3) == 1 ? SEEK_CUR : a.u32(3) == 2 ? SEEK_END : SEEK_SET;
    off_t at = ::lseek(f->fd, static_cast<off_t>(distance), whence);
    if (at < 0) return fail(m, error_negative_seek, invalid_set_file_pointer);
    if (high_ptr != 0) m.guest_write_u32(high_ptr, static_cast<uint32_t>(static_cast<uint64_t>(at) >> 32));
    return fail(m, 0, static_cast<uint32_t>(at));
}

// DWORD GetFileSize(HANDLE hFile, LPDWORD lpFileSizeHigh);
uint32_t GetFileSize(Machine& m, const Args& a) {
    OpenFile* f = find_file(m, a.u32(0));
    struct stat st {};
    if (f == nullptr || ::fstat(f->fd, &st) != 0) return fail(m, win32_error::invalid_handle, 0xffffffff);
    if (a.ptr(1) != 0)
        m.guest_write_u32(a.ptr(1), static_cast<uint32_t>(static_cast<uint64_t>(st.st_size) >> 32));
    return fail(m, 0, static_cast<uint32_t>(st.st_size));
}

// BOOL CloseHandle(HANDLE hObject);
uint32_t CloseHandle(Machine& m, const Args& a) {
    Kernel32State& k = m.kernel32();
    auto it = k.files.find(a.u32(0));
    if (it == k.files.end()) return fail(m, win32_error::invalid_handle, FALSE_);
    ::close(it->second.fd);
    k.files.erase(it);
    return TRUE_;
}

// HANDLE FindFirstFileA(LPCSTR lpFileName, LPWIN32_FIND_DATAA lpFindFileData);
uint32_t FindFirstFileA(Machine& m, const Args& a) {
    FileAccess access;
    access.routine = m.current_routine();
    access.mode = "list";
    if (!guest_path(m, a.ptr(0), access.guest_path))
        return refuse(m, std::move(access), win32_error::filename_exced_range,
                      "the path has no terminator within MAX_PATH (260 characters)");
    DataRoot* root = m.data_root();
    if (root == nullptr)
        return refuse(m, std::move(access), win32_error::access_denied, "the machine has no data root");
    std::string path = access.guest_path;
    size_t cut = path.find_last_of("\\/");
    std::string folder = cut == std::string::npos ? "." : path.substr(0, cut + 1);
    std::string pattern = cut == std::string::npos ? path : path.substr(cut + 1);
    if (pattern == "*.*") pattern = "*";
    Resolution r = root->resolve(folder);
    access.resolved = r.relative;
    if (r.status == Resolution::Status::refused)
        return refuse(m, std::move(access), win32_error::access_denied, r.reason);
    if (r.status == Resolution::Status::missing)
        return refuse(m, std::move(access), win32_error::path_not_found, r.reason);
    FindSearch search;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(r.host, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (!wildcard_match(pattern, name, true)) continue;
        // An entry is what opening it would reach: a symbolic link leaving the root is not listed
        // (its target's size and kind were the outside file's), and a link inside the root is
        // listed as its target. Only the entry itself is checked (the folder was resolved once): a
        // full resolve() per entry rescanned the folder, N^2 host time in one shim call.
        const std::filesystem::path entry = it->path();
        if (it->is_symlink(ec) && !root->contains(entry)) continue;
        std::error_code entry_ec;
        const bool dir = std::filesystem::is_directory(entry, entry_ec);
        const auto size = dir ? std::uintmax_t{0} : std::filesystem::file_size(entry, entry_ec);
        search.matches.push_back({name, entry_ec ? 0 : static_cast<uint64_t>(size), dir});
    }
    std::sort(search.matches.begin(), search.matches.end(),
              [](const FoundFile& x, const FoundFile& y) { return x.name < y.name; });
    if (search.matches.empty())
        return refuse(m, std::move(access), win32_error::file_not_found, "no match for '" + pattern + "'");
    write_find_data(m, a.ptr(1), search.matches[0]);
    search.next = 1;
    root->accesses().push_back(std::move(access));
    Kernel32State& k = m.kernel32();
    uint32_t handle = k.next_handle;
    k.next_handle += 4;
    k.searches[handle] = std::move(search);
    return fail(m, 0, handle);
}

// BOOL FindNextFileA(HANDLE hFindFile, LPWIN32_FIND_DATAA lpFindFileData);
uint32_t FindNextFileA(Machine& m, const Args& a) {
    auto it = m.kernel32().searches.find(a.u32(0));
    if (it == m.kernel32().searches.end()) return fail(m, win32_error::invalid_handle, FALSE_);
    FindSearch& s = it->second;
    if (s.next >= s.matches.size()) return fail(m, win32_error::no_more_files, FALSE_);
    write_find_data(m, a.ptr(1), s.matches[s.next++]);
    return TRUE_;
}

// BOOL FindClose(HANDLE hFindFile);
uint32_t FindClose(Machine& m, const Args& a) {
    if (m.kernel32().searches.erase(a.u32(0)) == 0) return fail(m, win32_error::invalid_handle, FALSE_);
    return TRUE_;
}

} // namespace refcheck::emu::win32

namespace refcheck::emu {

namespace {
// Reopens `fd` as a new file description of the same file (through /proc/self/fd), at the same
// offset, in place: the descriptor number stays, its position is this process's own.
void reopen_private(int fd) {
    const off_t at = ::lseek(fd, 0, SEEK_CUR);
    const int flags = ::fcntl(fd, F_GETFL);
    if (at < 0 || flags < 0) return;
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    const int fresh = ::open(self.c_str(), flags & (O_ACCMODE | O_APPEND));
    if (fresh < 0) return;
    if (::lseek(fresh, at, SEEK_SET) == at) ::dup2(fresh, fd);
    ::close(fresh);
}
} // namespace

void win32::own_open_files(Machine& m) {
    Machine& self = m;
    for (auto& [handle, f] : self.kernel32().files)
        if (f.fd >= 0) reopen_private(f.fd);
    for (auto& [file, f] : self.msvcrt().files)
        if (f.fd >= 0) reopen_private(f.fd);
}

} // namespace refcheck::emu
