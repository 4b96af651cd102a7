#include "refcheck/emu/log.hpp"

namespace refcheck::emu {

void Log::write(std::string line) {
    if (sink_) sink_(line);
    lines_.push_back(std::move(line));
}

} // namespace refcheck::emu
