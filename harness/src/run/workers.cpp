#include "run/workers.hpp"
#include "run/case_part.hpp"

#include "family/families.hpp"

#include "refcheck/emu/crash_note.hpp"
#include "refcheck/harness/bisect.hpp"
#include "refcheck/harness/hash.hpp"
#include "refcheck/emu/types.hpp"

#include <fmt/format.h>

#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace refcheck::harness {

namespace {

// One worker's breadcrumb, in memory shared with the parent (MAP_SHARED), written by the worker only.
struct Breadcrumb {
    emu::CrashNote emu;
    volatile std::int64_t case_index = -1; // the case it runs (-1: between cases)
    char case_name[128] = {};
    char input[256] = {};
};

Breadcrumb* g_crumb = nullptr;              // set in a worker process only
volatile std::sig_atomic_t g_interrupt = 0; // SIGINT/SIGTERM caught by the parent
void on_interrupt(int s) { g_interrupt = s; }
std::string g_crash_case, g_crash_how; // REFCHECK_TEST_WORKER_CRASH, read by a worker
std::size_t g_crash_part = 0;          // CASE@K: only in part K (1-based) of a split case

void copy_cut(char* to, std::size_t size, std::string_view from) {
    const std::size_t n = std::min(from.size(), size - 1);
    std::memcpy(to, from.data(), n);
    to[n] = '\0';
}

std::string signal_name(int s) {
    switch (s) {
        case SIGSEGV: return "SIGSEGV";
        case SIGABRT: return "SIGABRT";
        case SIGBUS: return "SIGBUS";
        case SIGILL: return "SIGILL";
        case SIGFPE: return "SIGFPE";
        case SIGKILL: return "SIGKILL";
        case SIGTERM: return "SIGTERM";
        case SIGTRAP: return "SIGTRAP";
        default: return "signal " + std::to_string(s);
    }
}

// ---- the wire: length-prefixed messages -----------------------------------------------------------

void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put_str(std::string& out, std::string_view s) {
    put_u64(out, s.size());
    out.append(s.data(), s.size());
}

struct Reader {
    std::string_view in;
    std::uint64_t u64() {
        if (in.size() < 8) throw std::runtime_error("worker message cut short");
        std::uint64_t v;
        std::memcpy(&v, in.data(), 8);
        in.remove_prefix(8);
        return v;
    }
    std::string_view str() {
        const std::uint64_t n = u64();
        if (in.size() < n) throw std::runtime_error("worker message cut short");
        const std::string_view s = in.substr(0, n);
        in.remove_prefix(n);
        return s;
    }
};

std::string encode(std::size_t index, const CaseResult& r) {
    std::string body;
    put_u64(body, index);
    put_str(body, r.name);
    put_u64(body, static_cast<std::uint64_t>(r.status));
    std::uint64_t seconds;
    static_assert(sizeof seconds == sizeof r.seconds);
    std::memcpy(&seconds, &r.seconds, sizeof seconds);
    put_u64(body, seconds);
    put_u64(body, r.events);
    put_str(body, r.report.dump());
    put_u64(body, r.files.size());
    for (const auto& [rel, bytes] : r.files) {
        put_str(body, rel);
        put_str(body, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    }
    std::string msg;
    put_u64(msg, body.size());
    return msg + body;
}

std::pair<std::size_t, CaseResult> decode(std::string_view body) {
    Reader rd{body};
    const std::size_t index = rd.u64();
    CaseResult r;
    r.name = std::string(rd.str());
    r.status = static_cast<Status>(rd.u64());
    const std::uint64_t seconds = rd.u64();
    std::memcpy(&r.seconds, &seconds, sizeof seconds);
    r.events = rd.u64();
    r.report = ojson::parse(rd.str());
    for (std::uint64_t n = rd.u64(); n > 0; --n) {
        std::string rel(rd.str());
        const std::string_view bytes = rd.str();
        r.files.emplace_back(std::move(rel), std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
    }
    return {index, std::move(r)};
}

bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

bool read_all(int fd, void* to, std::size_t size) {
    auto* p = static_cast<char*>(to);
    while (size > 0) {
        const ssize_t n = ::read(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// ---- the worker -----------------------------------------------------------------------------------

constexpr std::uint64_t kQuit = ~std::uint64_t{0};

[[noreturn]] void worker_main(int tasks, int results, Breadcrumb* crumb, const WorkerCallbacks& cb) {
    g_crumb = crumb;
    emu::set_crash_note(&crumb->emu);
    if (const char* e = std::getenv("REFCHECK_TEST_WORKER_CRASH")) {
        const std::string v = e;
        const auto colon = v.rfind(':');
        g_crash_case = v.substr(0, colon);
        g_crash_how = colon == std::string::npos ? "segv" : v.substr(colon + 1);
        if (const auto at = g_crash_case.rfind('@'); at != std::string::npos) {
            g_crash_part = static_cast<std::size_t>(std::stoul(g_crash_case.substr(at + 1)));
            g_crash_case.resize(at);
        }
    }
    int code = 0;
    for (std::uint64_t index; read_all(tasks, &index, sizeof index) && index != kQuit;) {
        crumb->emu = emu::CrashNote{};
        copy_cut(crumb->case_name, sizeof crumb->case_name, cb.name(index));
        crumb->input[0] = '\0';
        crumb->case_index = static_cast<std::int64_t>(index);
        std::string msg;
        {
            CaseResult r = cb.run(index);
            msg = encode(index, r);
        } // the case's machine and everything else of it are gone before the result is sent
        crumb->case_index = -1;
        if (!write_all(results, msg)) {
            code = 1;
            break;
        }
    }
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code); // no atexit handlers or static destructors of the parent's copy
}

// ---- the parent -----------------------------------------------------------------------------------

struct Worker {
    pid_t pid = -1;
    int tasks = -1;   // write end
    int results = -1; // read end
    std::string buffer;
    std::optional<std::size_t> running; // the case handed to it
    std::chrono::steady_clock::time_point since;
    Breadcrumb* crumb = nullptr;
    // The case it was running when the parent killed it at case_seconds: it is handed nothing more,
    // and that case's death names the limit (unless its result came in first).
    std::optional<std::size_t> killed_at_limit;
};

} // namespace

std::string encode_result(std::size_t index, const CaseResult& r) { return encode(index, r); }

std::pair<std::size_t, CaseResult> decode_result(std::string_view message) {
    Reader rd{message};
    if (rd.u64() != message.size() - 8) throw std::runtime_error("its length is not the length it gives");
    auto decoded = [&] {
        try {
            return decode(message.substr(8));
        } catch (const ojson::exception& e) {
            throw std::runtime_error(std::string("its report is not JSON (") + e.what() + ")");
        }
    }();
    if (decoded.second.status != Status::Equivalent && decoded.second.status != Status::Divergent &&
        decoded.second.status != Status::Error)
        throw std::runtime_error("its status is none of equivalent, divergent, error");
    return decoded;
}

void note_input(std::string_view input) {
    if (!g_crumb) return;
    copy_cut(g_crumb->input, sizeof g_crumb->input, input);
    const CasePart* part = case_part();
    const bool in_part = g_crash_part == 0 || (part && part->count > 1 && part->index + 1 == g_crash_part);
    if (!g_crash_case.empty() && g_crash_case == g_crumb->case_name && in_part) {
        std::fflush(stdout);
        std::fflush(stderr);
        if (g_crash_how == "term-parent") { // then wait to be killed: the case never finishes
            ::kill(getppid(), SIGTERM);
            for (;;) ::pause();
        }
        if (g_crash_how == "hang") // never finishes and never dies: only the parent's limit ends it
            for (;;) ::pause();
        if (g_crash_how == "abort") std::abort();
        if (g_crash_how == "exit") _exit(3);
        // The default action, so the worker dies by the signal in a sanitizer build too (ASan's
        // handler would report it and exit 1).
        std::signal(SIGSEGV, SIG_DFL);
        std::raise(SIGSEGV);
    }
}

std::string WorkerDeath::what() const {
    if (timed_out_after > 0) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", timed_out_after);
        return std::string("was stopped (SIGKILL) at its wall-clock limit of ") + limit +
               " s per case (--case-timeout) without sending its result";
    }
    if (signal) return "was killed by signal " + std::to_string(signal) + " (" + signal_name(signal) + ")";
    return "exited with status " + std::to_string(exit_code) + " without sending its result";
}

std::vector<std::size_t> hand_order(const std::vector<std::string>& names,
                                    const std::vector<std::size_t>& parts,
                                    const std::map<std::string, double>& previous) {
    std::vector<double> seconds;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto it = previous.find(names[i]);
        seconds.push_back(it == previous.end() ? std::numeric_limits<double>::infinity()
                                               : it->second / static_cast<double>(parts[i]));
    }
    std::vector<std::size_t> order(seconds.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return seconds[a] > seconds[b]; });
    return order;
}

std::vector<std::size_t> hand_order(const std::vector<Case>& cases,
                                    const std::map<std::string, double>& previous) {
    std::vector<std::string> names;
    for (const Case& c : cases) names.push_back(c.name);
    return hand_order(names, std::vector<std::size_t>(cases.size(), 1), previous);
}

CaseResult crash_result(const Case& c, const RunOptions& options, const WorkerDeath& d) {
    // The whole case, in one process: a crash may need the case's earlier inputs (heap, globals).
    auto reproduce = [&](bool host_paths) {
        std::string cmd = reproduce_command(c, options, "", host_paths); // names no host path when false
        const std::string tail = " --out out/bisect";
        if (cmd.size() >= tail.size() && cmd.compare(cmd.size() - tail.size(), tail.size(), tail) == 0)
            cmd.resize(cmd.size() - tail.size());
        // A timeout reproduces under the limit that stopped it (the default limit is far longer).
        if (d.timed_out_after > 0) cmd += " --case-timeout " + fmt::format("{}", options.case_timeout);
        return cmd + " --jobs 1 --out out/crash";
    };
    CaseResult result;
    result.name = c.name;
    result.status = Status::Error;
    result.seconds = d.seconds;
    ojson& r = result.report;
    r = case_report_head(c);
    std::string where = d.input.empty() ? " before any input began" : " in input \"" + d.input + "\"";
    if (!d.routine.empty())
        where += std::string(d.in_call ? " while the original ran " : " after the original ran ") + d.routine;
    if (d.eip) where += " (last guest EIP known " + emu::hex(*d.eip) + ")";
    r["error"] = "crash: the worker process running this case " + d.what() + where +
                 "; reproduce: " + reproduce(false);
    ojson crash;
    if (d.signal) {
        crash["signal"] = d.signal;
        crash["signal_name"] = signal_name(d.signal);
    } else {
        crash["exit_status"] = d.exit_code;
    }
    // Whole milliseconds: refcheck's own reader (read_json, which refcheck merge uses) takes no
    // fractions, and 20 s written as a double was "20.0".
    if (d.timed_out_after > 0)
        crash["timeout_ms"] = static_cast<std::uint64_t>(std::llround(d.timed_out_after * 1000));
    crash["input"] = d.input.empty() ? ojson() : ojson(d.input);
    crash["routine"] = d.routine.empty() ? ojson() : ojson(d.routine);
    crash["in_call"] = d.in_call;
    crash["last_eip"] = d.eip ? ojson(emu::hex(*d.eip)) : ojson();
    crash["reproduce"] = reproduce(false);
    // What the case ran on, by hash, as a report the worker wrote names it: the worker died before
    // writing one, so the parent hashes the same files (the run's basis in run.json was null).
    // A file it cannot read is named by its file name (a report names no host path).
    std::string reading;
    try {
        const Environment env = resolve_environment(c, options);
        const auto file = [&](const std::filesystem::path& p) -> ojson {
            reading = p.filename().string();
            return {{"file", reading}, {"sha256", sha256_file(p)}};
        };
        ojson inputs = {{"image", file(env.image)}, {"profile", file(env.profile)}};
        reading = "the data root's archives";
        inputs["archives"] = archive_hashes(env.data);
        r["inputs"] = inputs;
    } catch (const std::exception&) {
        crash["inputs_not_hashed"] = "cannot read " + (reading.empty() ? "the case's files" : reading);
    }
    r["crash"] = crash;
    r["hooks"] = ojson::object();
    r["files"] = ojson::array();
    r["counts"] = to_json(Counts{});
    r["faults"] = ojson::array();
    return result;
}

std::vector<CaseResult> run_in_workers(std::size_t n, unsigned jobs, const WorkerCallbacks& cb) {
    std::vector<CaseResult> results(n);
    if (n == 0) return results;
    const std::size_t count = std::max<std::size_t>(1, std::min<std::size_t>(jobs, n));
    void* shared =
        mmap(nullptr, count * sizeof(Breadcrumb), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        throw std::runtime_error(std::string("cannot map worker breadcrumbs: ") + std::strerror(errno));
    auto* crumbs = static_cast<Breadcrumb*>(shared);
    // A worker that died leaves its pipe closed: writing to it must fail, not kill the parent.
    struct sigaction ignore {
    }, old_pipe{};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old_pipe);
    // SIGINT/SIGTERM: stop cleanly (below); a worker keeps the default (the signal ends it).
    struct sigaction interrupt {
    }, old_int{}, old_term{};
    interrupt.sa_handler = on_interrupt;
    sigemptyset(&interrupt.sa_mask);
    g_interrupt = 0;
    sigaction(SIGINT, &interrupt, &old_int);
    sigaction(SIGTERM, &interrupt, &old_term);

    std::vector<Worker> workers(count);
    std::deque<std::size_t> queue;
    for (std::size_t i = 0; i < n; ++i) queue.push_back(i);
    std::vector<unsigned> handed(n, 0);
    std::size_t finished = 0;

    auto close_fd = [](int& fd) {
        if (fd >= 0) ::close(fd);
        fd = -1;
    };
    auto start = [&](std::size_t w) {
        int t[2], r[2];
        if (pipe(t) != 0 || pipe(r) != 0)
            throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
        std::fflush(stdout);
        std::fflush(stderr);
        new (&crumbs[w]) Breadcrumb{};
        const pid_t pid = fork();
        if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
        if (pid == 0) {
            for (Worker& other : workers) { // another worker's pipes would hide its death from the parent
                if (other.tasks >= 0) ::close(other.tasks);
                if (other.results >= 0) ::close(other.results);
            }
            ::close(t[1]);
            ::close(r[0]);
            sigaction(SIGPIPE, &old_pipe, nullptr);
            sigaction(SIGINT, &old_int, nullptr);
            sigaction(SIGTERM, &old_term, nullptr);
            worker_main(t[0], r[1], &crumbs[w], cb);
        }
        ::close(t[0]);
        ::close(r[1]);
        workers[w] = Worker{pid, t[1], r[0], {}, std::nullopt, {}, &crumbs[w], std::nullopt};
    };
    // Hands the worker its next case, or tells it to quit.
    auto hand = [&](Worker& wk) {
        if (queue.empty()) {
            write_all(wk.tasks, std::string_view(reinterpret_cast<const char*>(&kQuit), sizeof kQuit));
            close_fd(wk.tasks);
            return;
        }
        const std::uint64_t index = queue.front();
        queue.pop_front();
        wk.running = index;
        wk.since = std::chrono::steady_clock::now();
        ++handed[index];
        if (cb.handed) cb.handed(index);
        write_all(wk.tasks, std::string_view(reinterpret_cast<const char*>(&index), sizeof index));
        // a failed write shows as the worker's death (its result pipe closes)
    };
    auto take_messages = [&](Worker& wk) {
        for (;;) {
            if (wk.buffer.size() < 8) return;
            std::uint64_t size;
            std::memcpy(&size, wk.buffer.data(), 8);
            if (wk.buffer.size() < 8 + size) return;
            auto [index, result] = decode(std::string_view(wk.buffer).substr(8, size));
            wk.buffer.erase(0, 8 + size);
            if (index >= n) throw std::runtime_error("a worker sent a result for an unknown case");
            results[index] = std::move(result);
            ++finished;
            if (wk.running == index) wk.running.reset();
            if (cb.done) cb.done(index);
            if (!wk.killed_at_limit) hand(wk); // a killed worker's slot is restarted at its death
        }
    };

    for (std::size_t w = 0; w < count; ++w) {
        start(w);
        hand(workers[w]);
    }
    auto restore = [&] {
        sigaction(SIGPIPE, &old_pipe, nullptr);
        sigaction(SIGINT, &old_int, nullptr);
        sigaction(SIGTERM, &old_term, nullptr);
    };
    while (finished < n) {
        if (g_interrupt) {
            const int s = g_interrupt;
            for (Worker& wk : workers) {
                if (wk.pid > 0) {
                    ::kill(wk.pid, SIGKILL);
                    while (waitpid(wk.pid, nullptr, 0) < 0 && errno == EINTR) {}
                }
                close_fd(wk.tasks);
                close_fd(wk.results);
            }
            restore();
            munmap(shared, count * sizeof(Breadcrumb));
            std::vector<std::size_t> unfinished;
            for (std::size_t i = 0; i < n; ++i)
                if (results[i].name.empty()) unfinished.push_back(i);
            throw RunInterrupted(s, std::move(unfinished));
        }
        std::vector<pollfd> fds;
        std::vector<std::size_t> which;
        for (std::size_t w = 0; w < count; ++w)
            if (workers[w].results >= 0) {
                fds.push_back({workers[w].results, POLLIN, 0});
                which.push_back(w);
            }
        if (fds.empty()) throw std::runtime_error("every worker is gone with cases left to run");
        // Wake for the display's tick and for the first running case's wall-clock limit.
        int wait_ms = cb.tick ? 1000 : -1;
        const auto now = std::chrono::steady_clock::now();
        if (cb.case_seconds > 0)
            for (const Worker& wk : workers) {
                if (!wk.running || wk.killed_at_limit || wk.pid <= 0) continue;
                const double left = cb.case_seconds - std::chrono::duration<double>(now - wk.since).count();
                const int ms = left <= 0 ? 0 : static_cast<int>(std::min(left * 1000.0 + 1.0, 3.6e6));
                wait_ms = wait_ms < 0 ? ms : std::min(wait_ms, ms);
            }
        const int ready = poll(fds.data(), fds.size(), wait_ms);
        if (ready < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        }
        if (cb.case_seconds > 0) {
            // A worker past its limit is killed; its pipe then closes, and the death is handled below
            // (this round or the next) as any other, with the limit named.
            const auto after = std::chrono::steady_clock::now();
            for (Worker& wk : workers)
                if (wk.running && !wk.killed_at_limit && wk.pid > 0 &&
                    std::chrono::duration<double>(after - wk.since).count() >= cb.case_seconds) {
                    wk.killed_at_limit = wk.running;
                    ::kill(wk.pid, SIGKILL);
                }
        }
        if (cb.tick) cb.tick(); // a display only: nothing depends on when it is called
        for (std::size_t k = 0; k < fds.size(); ++k) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            Worker& wk = workers[which[k]];
            char buf[1 << 16];
            const ssize_t got = ::read(wk.results, buf, sizeof buf);
            if (got < 0 && errno == EINTR) continue;
            if (got > 0) {
                wk.buffer.append(buf, static_cast<std::size_t>(got));
                take_messages(wk);
                continue;
            }
            // End of its results: the worker is gone (done, or dead).
            close_fd(wk.results);
            close_fd(wk.tasks);
            int status = 0;
            while (waitpid(wk.pid, &status, 0) < 0 && errno == EINTR) {}
            wk.pid = -1;
            if (!wk.running) {
                // It quit (nothing was left), died between cases, or was killed at its limit just
                // after its result came in: a new worker takes what is left.
                if (!queue.empty()) {
                    start(which[k]);
                    hand(workers[which[k]]);
                }
                continue;
            }
            const std::size_t index = *wk.running;
            wk.running.reset();
            const bool started = wk.crumb->case_index == static_cast<std::int64_t>(index);
            const bool at_limit = wk.killed_at_limit == index;
            if (!started && handed[index] < 2 && !at_limit) {
                queue.push_front(index); // it died before it began the case: another worker runs it
            } else {
                WorkerDeath d;
                if (at_limit) d.timed_out_after = cb.case_seconds;
                if (WIFSIGNALED(status))
                    d.signal = WTERMSIG(status);
                else if (WIFEXITED(status))
                    d.exit_code = WEXITSTATUS(status);
                if (started) {
                    d.input = wk.crumb->input;
                    d.routine = wk.crumb->emu.routine;
                    d.in_call = wk.crumb->emu.in_call != 0;
                    if (wk.crumb->emu.known) d.eip = wk.crumb->emu.eip;
                }
                d.seconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - wk.since).count();
                results[index] = cb.died(index, d);
                ++finished;
                if (cb.done) cb.done(index);
            }
            if (!queue.empty()) {
                start(which[k]);
                hand(workers[which[k]]);
            }
        }
    }
    for (Worker& wk : workers) { // everything is in: the workers were told to quit
        close_fd(wk.tasks);
        close_fd(wk.results);
        if (wk.pid > 0)
            while (waitpid(wk.pid, nullptr, 0) < 0 && errno == EINTR) {}
    }
    restore();
    munmap(shared, count * sizeof(Breadcrumb));
    return results;
}

} // namespace refcheck::harness
