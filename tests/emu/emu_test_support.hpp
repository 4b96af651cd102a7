// Shared helpers of the emu/ tests: a machine holding the test image, and a scratch data root.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "refcheck/emu/machine.hpp"

namespace refcheck::emu::test {

inline std::filesystem::path test_image() { return EMU_TEST_IMAGE; }

// A fresh folder under the system temp directory, removed at destruction.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& name) {
        static int made = 0;
        path_ = std::filesystem::temp_directory_path() /
                ("refcheck-emu-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(++made));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~ScratchDir() { std::filesystem::remove_all(path_); }
    const std::filesystem::path& path() const { return path_; }
    void put(const std::string& relative, const std::string& content) const {
        auto p = path_ / relative;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << content;
    }

private:
    std::filesystem::path path_;
};

// Writes a C string into a fresh heap allocation and returns its guest address.
inline Address guest_string(Machine& m, const std::string& s) {
    Address at = m.heap().allocate(static_cast<uint32_t>(s.size() + 1), "test", AllocationKind::heap);
    m.write(at, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.c_str()), s.size() + 1));
    return at;
}

inline Address guest_buffer(Machine& m, uint32_t size) {
    return m.heap().allocate(size, "test", AllocationKind::heap);
}

// Fault kind and message, for readable assertion failures.
inline std::string describe(const CallResult& r) {
    return r.fault ? r.fault->report() : "ok eax=" + hex(r.eax);
}

} // namespace refcheck::emu::test
