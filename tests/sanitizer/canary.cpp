// The sanitizer leg's own seeded faults (tests/sanitizer/CMakeLists.txt): each mode commits one error
// that ASan or UBSan must report. The build is the suite's (REFCHECK_SANITIZE: -fsanitize=address,undefined,
// not recoverable), so a canary that exits 0 means the suite would not catch that class of finding.
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

namespace {

// The values come from argv, so the compiler cannot prove the faults and fold them away.
int heap_overflow(int n) {
    auto bytes = std::make_unique<char[]>(static_cast<std::size_t>(n));
    std::memset(bytes.get(), 1, static_cast<std::size_t>(n));
    return bytes[static_cast<std::size_t>(n)]; // one past the end
}

int use_after_free(int n) {
    auto* p = new int[static_cast<std::size_t>(n)]();
    delete[] p;
    return p[0];
}

int signed_overflow(int n) {
    int x = std::numeric_limits<int>::max() - 1;
    return x + n; // n = 2: past INT_MAX
}

int shift_past_width(int n) {
    unsigned v = 1;
    return static_cast<int>(v << n); // n = 32
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr,
                     "usage: sanitizer_canary heap-overflow|use-after-free|signed-overflow|shift N\n");
        return 2;
    }
    const std::string mode = argv[1];
    const int n = std::stoi(argv[2]);
    int r = 0;
    if (mode == "heap-overflow")
        r = heap_overflow(n);
    else if (mode == "use-after-free")
        r = use_after_free(n);
    else if (mode == "signed-overflow")
        r = signed_overflow(n);
    else if (mode == "shift")
        r = shift_past_width(n);
    else
        return 2;
    std::printf("no sanitizer report (%d)\n", r);
    return 0;
}
