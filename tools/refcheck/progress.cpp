#include "progress.hpp"

#include <algorithm>
#include <cmath>

#include <sys/ioctl.h>

namespace refcheck::cli {

namespace {
std::string duration(double s) {
    char b[32];
    if (s < 60)
        std::snprintf(b, sizeof b, "%.0f s", s);
    else
        std::snprintf(b, sizeof b, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    return b;
}
} // namespace

Progress::Progress(std::FILE* out, bool terminal, std::vector<std::string> names, unsigned jobs,
                   std::map<std::string, double> earlier)
    : out_(out), terminal_(terminal), total_(names.size()), jobs_(std::max(1u, jobs)),
      names_(std::move(names)), earlier_(std::move(earlier)) {}

double Progress::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string Progress::line(double now) const {
    std::string s = "refcheck: " + std::to_string(done_) + "/" + std::to_string(total_) + " cases done, " +
                    duration(now) + " elapsed";
    // ETA: what the previous run took for every case not done yet, less what the running ones have
    // already had, spread over the jobs. Only when the previous run timed each of them.
    double left = 0;
    bool known = !names_.empty();
    for (const auto& name : names_) {
        if (std::find(finished_.begin(), finished_.end(), name) != finished_.end()) continue;
        const auto it = earlier_.find(name);
        if (it == earlier_.end()) {
            known = false;
            break;
        }
        const auto run = running_.find(name);
        left += std::max(0.0, it->second - (run == running_.end() ? 0.0 : now - run->second));
    }
    if (known) s += ", ETA " + duration(left / jobs_) + " (from the previous run's times)";
    if (!running_.empty()) {
        s += "; running:";
        for (const auto& [name, since] : running_) s += " " + name + " (" + duration(now - since) + ")";
    }
    return s;
}

void Progress::started(std::string_view name) {
    running_[std::string(name)] = seconds();
    if (terminal_)
        tick();
    else
        std::fprintf(out_, "refcheck: case %s started (%zu/%zu done)\n", std::string(name).c_str(), done_,
                     total_);
    std::fflush(out_);
}

void Progress::done(std::string_view name) {
    const auto it = running_.find(std::string(name));
    const double took = it == running_.end() ? 0 : seconds() - it->second;
    if (it != running_.end()) running_.erase(it);
    finished_.emplace_back(name);
    ++done_;
    if (terminal_)
        tick();
    else
        std::fprintf(out_, "refcheck: case %zu/%zu done: %s (%.1f s)\n", done_, total_,
                     std::string(name).c_str(), took);
    std::fflush(out_);
}

void Progress::tick() {
    if (!terminal_) return;
    std::string l = line(seconds());
    winsize ws{};
    const std::size_t columns =
        ioctl(fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 4 ? ws.ws_col - 1 : std::size_t{119};
    if (l.size() > columns) l = l.substr(0, columns - 3) + "...";
    std::fprintf(out_, "\r\033[K%s", l.c_str());
    std::fflush(out_);
}

void Progress::finish() {
    if (terminal_) std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
}

} // namespace refcheck::cli
