// msvcrt stdio on files, confined to the data root exactly as CreateFileA is (data_root.hpp):
// every fopen is recorded as a FileAccess (routine, mode, resolved path, refused or failed),
// freads and fwrites add their byte counts to it. A FILE* is a 32-byte object in the system
// region (zero but for _file at +0x10), so guest code that only passes it to these functions
// works; code that reads its buffer fields directly (getc as a macro) sees an empty buffer and
// calls _filbuf, which traps as an unshimmed import. No buffering: each call reads or writes.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "system_layout.hpp"
#include "win32_util.hpp"

namespace refcheck::emu::win32::msvcrt {

namespace {

constexpr uint32_t enoent = 2, eacces = 13, einval = 22, emfile = 24;
constexpr uint32_t max_transfer = 64u << 20;
constexpr size_t max_mode = 64; // a longer fopen mode is refused, never cut

CrtFile* find(Machine& m, Address f) {
    auto it = m.msvcrt().files.find(f);
    return it == m.msvcrt().files.end() ? nullptr : &it->second;
}

uint32_t refuse(Machine& m, FileAccess access, uint32_t error, uint32_t crt_errno,
                const std::string& reason) {
    access.refused = error == win32_error::access_denied;
    access.error = error;
    m.log().write("fopen(\"" + access.guest_path + "\") " + (access.refused ? "refused" : "failed") + ": " +
                  reason);
    if (DataRoot* root = m.data_root()) root->accesses().push_back(std::move(access));
    set_errno(m, crt_errno);
    return 0;
}

} // namespace

// FILE* fopen(const char* path, const char* mode);
uint32_t fopen(Machine& m, const Args& a) {
    FileAccess access;
    access.routine = m.current_routine();
    // A path past MAX_PATH fails as CreateFileA fails it (ERROR_FILENAME_EXCED_RANGE, which msvcrt's
    // _dosmaperr makes ENOENT), never cut to a shorter one.
    if (!guest_path(m, a.ptr(0), access.guest_path))
        return refuse(m, std::move(access), win32_error::filename_exced_range, enoent,
                      "the path has no terminator within MAX_PATH (260 characters)");
    std::optional<std::string> given = m.guest_cstring(a.ptr(1), max_mode);
    if (!given)
        return refuse(m, std::move(access), win32_error::invalid_parameter, einval,
                      "a mode of " + std::to_string(max_mode) + " characters or more");
    std::string mode = *given;
    bool plus = mode.find('+') != std::string::npos;
    char kind = mode.empty() ? '?' : mode[0];
    if (kind != 'r' && kind != 'w' && kind != 'a')
        return refuse(m, std::move(access), win32_error::invalid_parameter, einval, "mode \"" + mode + "\"");
    bool read = kind == 'r' || plus, write = kind != 'r' || plus;
    access.mode = read && write ? "read/write" : write ? "write" : "read";
    DataRoot* root = m.data_root();
    if (root == nullptr)
        return refuse(m, std::move(access), win32_error::access_denied, eacces,
                      "the machine has no data root");
    Resolution r = root->resolve(access.guest_path, kind != 'r');
    access.resolved = r.relative;
    if (r.status == Resolution::Status::refused)
        return refuse(m, std::move(access), win32_error::access_denied, eacces, r.reason);
    if (write && !root->writable())
        return refuse(m, std::move(access), win32_error::access_denied, eacces, "the data root is read-only");
    if (r.status == Resolution::Status::missing)
        return refuse(m, std::move(access), r.error, enoent, r.reason);
    std::error_code ec;
    if (std::filesystem::is_directory(r.host, ec))
        return refuse(m, std::move(access), win32_error::access_denied, eacces, "is a folder");
    // Only regular files: a FIFO or a device would block the host (see CreateFileA).
    if (std::filesystem::exists(r.host, ec) && !std::filesystem::is_regular_file(r.host, ec))
        return refuse(m, std::move(access), win32_error::access_denied, eacces, "is not a regular file");
    Address slot = 0;
    for (uint32_t i = 0; i < sys::file_object_count && slot == 0; ++i) {
        Address at = sys::file_objects + i * sys::file_object_size;
        if (m.msvcrt().files.count(at) == 0) slot = at;
    }
    if (slot == 0)
        return refuse(m, std::move(access), win32_error::not_enough_memory, emfile, "too many open FILEs");
    int flags = O_CLOEXEC | (read && write ? O_RDWR : write ? O_WRONLY : O_RDONLY);
    if (kind == 'w') flags |= O_CREAT | O_TRUNC;
    if (kind == 'a') flags |= O_CREAT | O_APPEND;
    int fd = ::open(r.host.c_str(), flags, 0644);
    if (fd < 0)
        return refuse(m, std::move(access),
                      errno == ENOENT ? win32_error::file_not_found : win32_error::access_denied,
                      errno == ENOENT ? enoent : eacces, "cannot open " + r.relative);
    std::vector<uint8_t> object(sys::file_object_size, 0);
    uint32_t number = 3 + (slot - sys::file_objects) / sys::file_object_size; // _file
    std::copy_n(reinterpret_cast<const uint8_t*>(&number), 4, object.begin() + 0x10);
    m.write(slot, object);
    access.host = r.host;
    access.opened = stamp_descriptor(fd);
    m.msvcrt().files[slot] = {fd, root->accesses().size(), read, write, false, false};
    root->accesses().push_back(std::move(access));
    return slot;
}

// int fclose(FILE* f);
uint32_t fclose(Machine& m, const Args& a) {
    auto it = m.msvcrt().files.find(a.ptr(0));
    if (it == m.msvcrt().files.end()) {
        set_errno(m, einval);
        return static_cast<uint32_t>(-1);
    }
    ::close(it->second.fd);
    m.msvcrt().files.erase(it);
    return 0;
}

// size_t fread(void* buf, size_t size, size_t count, FILE* f);
uint32_t fread(Machine& m, const Args& a) {
    CrtFile* f = find(m, a.ptr(3));
    uint64_t size = a.u32(1), total = size * a.u32(2);
    if (f == nullptr || !f->can_read || size == 0 || total == 0) {
        if (f) f->error = !f->can_read;
        return 0;
    }
    // In blocks, each written to the guest as it arrives (a buffer the guest may not write faults
    // there, as msvcrt's own copy would).
    const auto want = static_cast<uint32_t>(std::min<uint64_t>(total, max_transfer));
    std::vector<uint8_t> buffer(std::min(want, kShimBlock));
    uint32_t got = 0;
    while (got < want) {
        ssize_t n = ::read(f->fd, buffer.data(), std::min<size_t>(buffer.size(), want - got));
        if (n <= 0) {
            (n == 0 ? f->eof : f->error) = true;
            break;
        }
        m.guest_write(a.ptr(0) + got, {buffer.data(), static_cast<size_t>(n)}); // may fault: then not read
        m.data_root()->accesses()[f->access_index].bytes_read += static_cast<uint64_t>(n);
        got += static_cast<uint32_t>(n);
    }
    return static_cast<uint32_t>(got / size);
}

// size_t fwrite(const void* buf, size_t size, size_t count, FILE* f);
uint32_t fwrite(Machine& m, const Args& a) {
    CrtFile* f = find(m, a.ptr(3));
    uint64_t size = a.u32(1), total = size * a.u32(2);
    if (f == nullptr || !f->can_write || size == 0 || total == 0) {
        if (f) f->error = !f->can_write;
        return 0;
    }
    const auto want = static_cast<uint32_t>(std::min<uint64_t>(total, max_transfer));
    uint32_t put = 0;
    while (put < want) {
        const std::vector<uint8_t> block =
            m.guest_read_bytes(a.ptr(0) + put, std::min(kShimBlock, want - put));
        const ssize_t n = ::write(f->fd, block.data(), block.size());
        if (n < 0) {
            f->error = true;
            break;
        }
        m.data_root()->accesses()[f->access_index].bytes_written += static_cast<uint64_t>(n);
        put += static_cast<uint32_t>(n);
        if (static_cast<size_t>(n) < block.size()) break;
    }
    return static_cast<uint32_t>(uint64_t{put} / size);
}

// int fseek(FILE* f, long offset, int origin);
uint32_t fseek(Machine& m, const Args& a) {
    CrtFile* f = find(m, a.ptr(0));
    int whence = a.u32(2) == 1 ? SEEK_CUR : a.u32(2) == 2 ? SEEK_END : a.u32(2) == 0 ? SEEK_SET : -1;
    if (f == nullptr || whence < 0 || ::lseek(f->fd, a.i32(1), whence) < 0) {
        set_errno(m, einval);
        return static_cast<uint32_t>(-1);
    }
    f->eof = false;
    return 0;
}

// long ftell(FILE* f);
uint32_t ftell(Machine& m, const Args& a) {
    CrtFile* f = find(m, a.ptr(0));
    off_t at = f ? ::lseek(f->fd, 0, SEEK_CUR) : -1;
    if (at < 0 || at > 0x7fffffff) {
        set_errno(m, einval);
        return static_cast<uint32_t>(-1);
    }
    return static_cast<uint32_t>(at);
}

// int feof(FILE* f);
uint32_t feof(Machine& m, const Args& a) {
    CrtFile* f = find(m, a.ptr(0));
    return f && f->eof ? 0x10 : 0; // _IOEOF
}

// int fgetc(FILE* f);
uint32_t fgetc(Machine& m, const Args& a) {
    CrtFile* f = find(m, a.ptr(0));
    uint8_t c = 0;
    if (f == nullptr || !f->can_read) return static_cast<uint32_t>(-1);
    ssize_t n = ::read(f->fd, &c, 1);
    if (n != 1) {
        (n == 0 ? f->eof : f->error) = true;
        return static_cast<uint32_t>(-1);
    }
    m.data_root()->accesses()[f->access_index].bytes_read += 1;
    return c;
}

} // namespace refcheck::emu::win32::msvcrt
