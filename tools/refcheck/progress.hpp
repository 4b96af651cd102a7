// refcheck run's progress, on stderr (stdout holds the results): on a terminal one line redrawn
// with the cases running (and for how long), done/total, the elapsed time and an ETA from the
// previous run's times in the same output folder (its junit.xml) when there was one; otherwise one
// plain line when a case starts and when it is done.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace refcheck::cli {

class Progress {
public:
    // `names`: the run's cases. `earlier`: case name -> seconds of the previous run (no ETA unless
    // it timed every case of this run). `jobs`: cases at once.
    Progress(std::FILE* out, bool terminal, std::vector<std::string> names, unsigned jobs,
             std::map<std::string, double> earlier);
    void started(std::string_view name);
    void done(std::string_view name);
    void tick();   // redraws the terminal line (the elapsed times move on)
    void finish(); // ends the terminal line
    // The line a terminal shows now (tested by itself): done/total, elapsed, ETA, running cases.
    std::string line(double now) const;

private:
    double seconds() const;
    std::FILE* out_;
    bool terminal_;
    std::size_t total_, done_ = 0;
    unsigned jobs_;
    std::vector<std::string> names_;
    std::map<std::string, double> earlier_;
    std::map<std::string, double> running_; // name -> start (seconds since the run began)
    std::vector<std::string> finished_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

} // namespace refcheck::cli
