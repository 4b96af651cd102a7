// A scratch data root under the system temporary directory, removed afterwards.
#pragma once
#include <filesystem>
#include <string>
#include <unistd.h>

namespace refcheck::synth::test {

class TempRoot {
public:
    explicit TempRoot(const std::string& tag)
        : path_(std::filesystem::temp_directory_path() /
                ("synth-test-" + tag + "-" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(path_);
    }
    ~TempRoot() { std::filesystem::remove_all(path_); }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

} // namespace refcheck::synth::test
