// The machine's log sink: lines go to a vector (always) and to an optional callback. emu/ never
// prints.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace refcheck::emu {

class Log {
public:
    using Sink = std::function<void(std::string_view)>;

    void set_sink(Sink sink) { sink_ = std::move(sink); }
    void write(std::string line);
    const std::vector<std::string>& lines() const { return lines_; }
    void clear() { lines_.clear(); }

private:
    std::vector<std::string> lines_;
    Sink sink_;
};

} // namespace refcheck::emu
