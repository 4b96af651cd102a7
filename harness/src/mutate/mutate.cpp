// refcheck mutate: the baseline (per-input reach of every mutant, instructions each routine's calls
// needed), then each covered mutant on the inputs that reach it, in forked workers (workers.hpp),
// stopping at its first divergence, fault, error or budget overrun.
#include "run/case_observer.hpp"
#include "family/families.hpp"
#include "run/workers.hpp"

#include "refcheck/harness/coverage_reasons.hpp"
#include "refcheck/harness/hash.hpp"
#include "refcheck/harness/mutate.hpp"
#include "refcheck/harness/profile.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>

namespace refcheck::harness {

namespace fs = std::filesystem;

namespace {
CaseObserver* g_observer = nullptr;
}
CaseObserver* case_observer() { return g_observer; }
void set_case_observer(CaseObserver* observer) { g_observer = observer; }

EquivalentRegistry load_equivalent_registry(const fs::path& file) {
    const ojson j = read_json(file);
    EquivalentRegistry r;
    try {
        r.image = j.at("image").get<std::string>();
        r.sha256 = j.at("sha256").get<std::string>();
        for (const auto& e : j.at("mutants")) {
            EquivalentEntry x;
            x.routine = e.at("routine").get<std::string>();
            x.op = e.at("operator").get<std::string>();
            x.instruction = e.at("instruction").get<std::string>();
            x.argument = e.at("argument").get<std::string>();
            if (x.argument.empty()) throw std::runtime_error("an entry without its argument");
            if (e.contains("offset")) {
                const std::string o = e.at("offset").get<std::string>();
                std::size_t used = 0;
                unsigned long v = 0;
                try {
                    v = std::stoul(o, &used, 16);
                } catch (const std::exception&) {
                    used = 0;
                }
                if (o.rfind("0x", 0) != 0 || used != o.size() || v > 0xffffffffUL)
                    throw std::runtime_error("entry " + x.routine + " " + x.op + " '" + x.instruction +
                                             "': offset '" + o + "' is not a hex offset like 0x1a");
                x.offset = static_cast<std::uint32_t>(v);
            }
            r.entries.push_back(std::move(x));
        }
    } catch (const std::exception& e) {
        throw std::runtime_error(file.string() + ": " + e.what());
    }
    return r;
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kCounting = std::uint64_t{1} << 50; // a budget never met: instructions counted
constexpr std::uint64_t kBudgetFactor = 10;
constexpr std::uint64_t kBudgetFloor = 200000;
constexpr std::uint64_t kInstructionsPerRun = 400'000'000; // a served mutant's share of a case
// ... of a later case of a family whose earlier cases ran it on kMinInputs inputs or more, all
// surviving. The six scene cases each re-ran every survivor of the draw code on 20 to 28 frames
// (about 3 s a mutant); the later ones exist for a parameter (limits, the top band, the terrain
// map) that shows on any of their frames or none.
constexpr std::uint64_t kInstructionsPerLaterRun = 100'000'000;
// A case whose inputs together cost at most this runs every reaching input of a mutant
// (MutateOptions::whole_cheap_cases): the receiver, mobile and construction cases, whose inputs
// cost a few hundred instructions each. Capped at 32, the receiver test's survivors had run on 145
// of their 795 reaching queries; run on all, 7 more of the mobile routines' mutants die for 3 s.
constexpr std::uint64_t kWholeCaseInstructions = 50'000'000;
constexpr std::uint64_t kMinInputs = kMinInputsPerMutant;
// A mutant reached while the cases boot (loading the archives, building the tables) runs from a
// fresh boot on the first input of at most this many cases per data root (the cheapest), plus the
// first case of each family there: cases on one root load the same bytes, so a loader mutant shows
// in the first few or not at all, and each further boot costs a whole load.
constexpr std::size_t kBootCasesPerRoot = 4;

// A set of a case's input indices, as ascending runs [first, last]. The inputs that reach a mutant
// in hot code are most of a case's (program-matrix has 42,048), so lists of indices held hundreds of
// millions of them over a run: gigabytes in the baseline workers, and a parent so large that every
// fork of it (one per served mutant) spent its time copying page tables.
class InputRuns {
public:
    // Adds `x`, which is not below any index added before.
    void add(int x) {
        if (!runs_.empty() && x <= runs_.back().second + 1) {
            if (x > runs_.back().second) {
                runs_.back().second = x;
                ++count_;
            }
            return;
        }
        runs_.push_back({x, x});
        ++count_;
    }
    // Adds [a, b], where `a` is not below any index added before.
    void add_run(int a, int b) {
        add(a);
        if (b > runs_.back().second) {
            count_ += static_cast<std::size_t>(b - runs_.back().second);
            runs_.back().second = b;
        }
    }
    std::size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    // The index of rank `k` (0: the first).
    int at(std::size_t k) const {
        for (const auto& [first, last] : runs_) {
            const auto n = static_cast<std::size_t>(last - first) + 1;
            if (k < n) return first + static_cast<int>(k);
            k -= n;
        }
        throw std::out_of_range("InputRuns::at");
    }
    std::vector<int> first(std::size_t n) const {
        std::vector<int> out;
        for (const auto& [a, b] : runs_)
            for (int x = a; x <= b && out.size() < n; ++x) out.push_back(x);
        return out;
    }
    const std::vector<std::pair<int, int>>& runs() const { return runs_; }

private:
    std::vector<std::pair<int, int>> runs_;
    std::size_t count_ = 0;
};

// Baseline: which inputs reach which mutant. The blocks executed between two named inputs belong
// to both (the work after one input's call, the preparation of the next: a record's construction);
// those before the first named input (boot, setup) to the whole case; those after the last to it.
class ReachObserver : public CaseObserver {
public:
    explicit ReachObserver(const std::vector<std::uint32_t>& addresses) : addresses_(addresses) {}
    void booted(Original& original, Comparator&) override {
        original_ = &original;
        original.set_instruction_budgets({}, kCounting);
    }
    bool input(std::string_view name, bool skippable) override {
        if (!original_) return true;
        const int next = static_cast<int>(names_.size());
        if (next == 0) instructions_at_first_ = original_->instructions_total();
        skippable_ = skippable_ && skippable;
        names_.emplace_back(name);
        take(prev_, next);
        prev_ = next;
        return true;
    }
    void finished(Original& original, const ojson&) override {
        if (original_) take(prev_, -1);
        needed_ = original.instructions_needed();
        instructions_ = original.instructions_total() - instructions_at_first_;
        original_ = nullptr;
    }
    ojson json() const {
        ojson reach = ojson::array();
        // [m, first, last, first, last, ...]; a mutant set-up reaches (whole) keeps its row too:
        // the inputs that reach it again are run from its fresh boot.
        for (const auto& [m, inputs] : reach_) {
            ojson row = ojson::array({m});
            for (const auto& [a, b] : inputs.runs()) {
                row.push_back(a);
                row.push_back(b);
            }
            reach.push_back(row);
        }
        return {{"inputs", names_},
                {"whole", ojson(std::vector<std::size_t>(whole_.begin(), whole_.end()))},
                {"reach", reach},
                {"needed", ojson(needed_)},
                {"instructions", instructions_},
                {"skippable", skippable_}};
    }

private:
    void take(int a, int b) {
        emu::Coverage& cov = original_->machine().coverage();
        for (const auto& [start, hit] : cov.blocks()) {
            if (hit.hits == 0) continue;
            auto it = std::lower_bound(addresses_.begin(), addresses_.end(), start);
            for (; it != addresses_.end() && *it < start + hit.size; ++it) {
                const std::size_t m = static_cast<std::size_t>(it - addresses_.begin());
                if (a < 0) {
                    whole_.insert(m);
                    continue;
                }
                auto& s = reach_[m];
                s.add(a);
                if (b >= 0) s.add(b);
            }
        }
        cov.clear();
    }
    const std::vector<std::uint32_t>& addresses_;
    Original* original_ = nullptr;
    std::vector<std::string> names_;
    int prev_ = -1;
    std::set<std::size_t> whole_;
    std::map<std::size_t, InputRuns> reach_;
    std::map<std::string, std::uint64_t> needed_;
    std::uint64_t instructions_at_first_ = 0, instructions_ = 0; // the original's, from the first input on
    bool skippable_ = true;                                      // every input could be skipped
};

// A mutant's run: budgets on every call, and the case stops at the next input after a divergence.
class StopObserver : public CaseObserver {
public:
    // `wanted`: the inputs the case is narrowed to (empty: all); once each has begun, the case stops
    // at the next input (families that run every input would otherwise go on to the end).
    StopObserver(std::map<std::string, std::uint64_t> budgets, std::uint64_t fallback,
                 std::set<std::string> wanted = {})
        : budgets_(std::move(budgets)), fallback_(fallback), wanted_(std::move(wanted)),
          left_(wanted_.size()) {}
    void booted(Original& original, Comparator& comparator) override {
        original.set_instruction_budgets(budgets_, fallback_);
        comparator_ = &comparator;
    }
    bool input(std::string_view name, bool) override {
        if (comparator_ && comparator_->counts().unexplained)
            throw OriginalFailed("refcheck mutate: stopped at the first divergence");
        if (wanted_.empty()) return true;
        if (left_ == 0) throw OriginalFailed("refcheck mutate: every input of the narrowed case ran");
        if (wanted_.count(std::string(name))) --left_;
        return true;
    }
    void finished(Original&, const ojson&) override { comparator_ = nullptr; }
    // How many of the wanted inputs began: a run stopped at its first divergence began no later one.
    std::size_t begun() const { return wanted_.size() - left_; }

private:
    std::map<std::string, std::uint64_t> budgets_;
    std::uint64_t fallback_;
    std::set<std::string> wanted_;
    std::size_t left_;
    Comparator* comparator_ = nullptr;
};

} // namespace

std::optional<std::string> unmutated_failure(const Case& c, const Environment& env,
                                             const std::set<std::string>& inputs) {
    Case narrowed = c;
    narrowed.only_inputs = inputs;
    StopObserver observer({}, 0, inputs);
    set_case_observer(&observer);
    CaseResult r;
    try {
        r = run_case(narrowed, env);
    } catch (...) {
        set_case_observer(nullptr);
        throw;
    }
    set_case_observer(nullptr);
    const std::string status = r.report.value("status", std::string("error"));
    const std::string error = r.report.value("error", std::string());
    if (status == "equivalent" || (status == "error" && error.starts_with("nothing compared")))
        return std::nullopt;
    return status + (error.empty() ? std::string() : ": " + error);
}

namespace {

struct BaselineCase {
    Case c;
    Environment env;
    bool usable = false; // equivalent on the unmutated image, same image as the mutants
    std::string note;
    std::vector<std::string> inputs;
    std::map<std::uint64_t, bool> unused;
    std::set<std::size_t> whole;            // mutants reached before its first named input
    std::map<std::size_t, InputRuns> reach; // mutant -> inputs
    std::map<std::string, std::uint64_t> budgets;
    std::uint64_t fallback = kBudgetFloor;
    double seconds = 0;
    std::uint64_t instructions = 0; // the original's, from the first input on (baseline)
    bool skippable = true;          // a mutant's run can skip the inputs that do not reach it
    // Per served mutant (0: all; picked_inputs): a skippable case's reaching inputs run; one whose
    // state carries, the case's inputs its run plays (a prefix, every reaching input in it run).
    std::size_t cap = 0;
    std::size_t later_cap = 0; // ... once its family's earlier cases ran it on kMinInputs (0: all)
    bool boots = false;        // runs the mutants reached before its first input (fresh boots)
    std::uint64_t per_input() const { return inputs.empty() ? instructions : instructions / inputs.size(); }
};

ojson short_event(const ojson& e) {
    if (e.is_null()) return nullptr;
    return e.value("kind", std::string());
}

// What caught a mutant, from the first unexplained divergence of a case report.
ojson caught(const std::string& case_name, const ojson& report) {
    ojson k = {{"case", case_name}};
    const ojson& d = member(report, "first_unexplained");
    k["input"] = d.value("input", std::string());
    const ojson& o = member(d, "original");
    if (!o.is_null() && o.value("kind", std::string()) == "fault") {
        const ojson& f = member(o, "fields");
        const std::string fault = f.value("fault", std::string());
        k["how"] = fault == "budget_exceeded" ? "budget" : "fault";
        k["event"] = {{"divergence", d.value("kind", std::string())},
                      {"original", "fault"},
                      {"reimpl", short_event(member(d, "reimpl"))},
                      {"index", d.value("original_index", 0)},
                      {"reimpl_index", d.value("reimpl_index", 0)}};
        k["detail"] =
            f.value("routine", std::string()) + ": " + fault + " at " + f.value("eip", std::string());
        return k;
    }
    k["how"] = "divergence";
    k["event"] = {{"divergence", d.value("kind", std::string())},
                  {"original", short_event(o)},
                  {"reimpl", short_event(member(d, "reimpl"))},
                  {"index", d.value("original_index", 0)},
                  {"reimpl_index", d.value("reimpl_index", 0)}};
    std::string fields;
    for (const auto& f : member(d, "fields")) {
        if (!fields.empty()) fields += "; ";
        fields += f.value("field", std::string()) + " " + f.value("diff", std::string());
        if (fields.size() > 160) break;
    }
    k["detail"] = fields;
    return k;
}

// A case's verdict on a mutant, from its report: killed (with what caught it) or survived. Neither
// side producing an event on the inputs run ("nothing compared": the baseline compared nothing there
// either, the reimplementation being the same) is no kill; any other error is one.
ojson verdict_of(const std::string& id, const std::string& case_name, const ojson& report) {
    const std::string status = report.value("status", std::string("error"));
    if (status == "divergent") return {{"status", "killed"}, {"killed_by", caught(case_name, report)}};
    if (status == "equivalent") return {{"status", "survived"}};
    const std::string error = report.value("error", std::string());
    if (error.starts_with("nothing compared")) return {{"status", "survived"}};
    if (error.find("patch") != std::string::npos && error.find("expected") != std::string::npos)
        throw std::runtime_error("mutant " + id + ": " + error);
    return {{"status", "killed"},
            {"killed_by",
             {{"case", case_name}, {"input", ""}, {"how", "error"}, {"event", nullptr}, {"detail", error}}}};
}

// The error that stops a mutate run whose kill by an error the unmutated original repeats.
std::string not_the_mutants(const std::string& case_name, const std::string& error,
                            const std::string& control) {
    return "case " + case_name + " stopped with an error (" + error +
           "), and the unmutated original, run on the same inputs, is not clean either (" + control +
           "): the error is not the mutant's (did the data root, the profile or the image change during the "
           "run?), so no score is given";
}

// Why a kill on narrowed inputs is none (`undecided_by`, how: control): `by` is the kill's
// killed_by, `inputs` how many inputs the run ran, `control` what the unmutated original did on them.
ojson narrowing_kill(const std::string& case_name, const ojson& by, std::size_t inputs,
                     const std::string& control) {
    return {{"case", case_name},
            {"input", member(by, "input")},
            {"how", "control"},
            {"detail", "the run skipped inputs and diverged (" + member(by, "detail").get<std::string>() +
                           "), and the unmutated original on the same " + std::to_string(inputs) +
                           " inputs is not clean either (" + control +
                           "): the divergence is the narrowing's, not the mutant's"}};
}

// A run's verdict into the mutant's row: a kill stands; a crash or overrun of refcheck's own process
// (undecided) stands until a kill; a survivor changes nothing.
void record_verdict(ojson& row, const ojson& v) {
    const std::string status = v.value("status", std::string());
    if (status == "killed" && row["status"] != "killed") {
        row["status"] = "killed";
        row["killed_by"] = v.at("killed_by");
    } else if (status == "undecided" && row["status"] == "survived") {
        row["status"] = "undecided";
        row["undecided_by"] = v.at("undecided_by");
    }
}

// At most `cap` of a mutant's reaching inputs (0: all), spread evenly over the case's order (the
// first and the last always among them), so a survivor in hot code costs a bounded number of inputs.
std::vector<int> spread(const InputRuns& inputs, std::size_t cap) {
    if (cap == 0 || inputs.size() <= cap) return inputs.first(inputs.size());
    std::vector<int> out;
    if (cap == 1) return {inputs.at(0)};
    for (std::size_t k = 0; k < cap; ++k) out.push_back(inputs.at(k * (inputs.size() - 1) / (cap - 1)));
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// The reaching inputs (indices) a mutant runs on in case `b`, under `cap` (BaselineCase::cap). A case
// whose inputs can be skipped runs `cap` of them spread over its order. One whose state carries
// from input to input plays every input up to the last it runs and compares them all, so its cost
// is that prefix and not the count picked: every reaching input within the case's first `cap` runs.
// It took the first `cap` reaching inputs: the capacity mutants of coverage-mobiles-capacity, whose
// queues fill from step 375 of 420, survived on steps 0 to 31 though the whole case costs 0.3 s.
std::vector<int> picked_inputs(const BaselineCase& b, const InputRuns& reach, std::size_t cap) {
    if (b.skippable) return spread(reach, cap);
    std::vector<int> out;
    for (const auto& [first, last] : reach.runs())
        for (int x = first; x <= last && (cap == 0 || static_cast<std::size_t>(x) < cap); ++x)
            out.push_back(x);
    return out;
}

// One mutant a case's server runs: the inputs it runs (names, in the case's order).
struct ServeTask {
    std::size_t mutant = 0; // kControl: the unmutated original, the control of narrowed kills
    std::set<std::string> inputs;
};
constexpr std::size_t kControl = static_cast<std::size_t>(-1);

// Serves one case's mutants from a single boot. The case runs unmutated up to its first input
// (everything before it has been executed, so no mutant served here is among it: those are the
// case's `whole`, run from a fresh boot); there the server forks one child per mutant, up to `jobs`
// at a time. A child writes its mutant over the code (translations dropped), sets the call budgets,
// takes its own file offsets, and goes on with the case on the inputs that reach its mutant only;
// it stops at the first divergence (the next input after it), or when its last input has run, and
// sends its verdict to the server over a pipe. The server itself stops the case once every child
// is done.
class ServeObserver : public CaseObserver {
public:
    ServeObserver(const std::vector<Mutant>& mutants, const BaselineCase& b, std::vector<ServeTask> tasks,
                  unsigned jobs, double child_seconds)
        : mutants_(mutants), case_(b), tasks_(std::move(tasks)), jobs_(std::max(1u, jobs)),
          child_seconds_(child_seconds) {}

    void booted(Original& original, Comparator& comparator) override {
        original_ = &original;
        comparator_ = &comparator;
    }
    bool input(std::string_view name, bool skippable) override {
        if (!child_) {
            if (served_) throw OriginalFailed("refcheck mutate: the case's mutants are served");
            served_ = true;
            serve(); // returns in the children, and in the server when every child is done
            if (!child_) throw OriginalFailed("refcheck mutate: the case's mutants are served");
        }
        if (comparator_->counts().unexplained || left_ == 0) stop_child(); // the first divergence, or done
        const bool wanted = task_->inputs.count(std::string(name)) != 0;
        if (wanted) {
            --left_;
            ran_.emplace_back(name);
        } else if (skippable) {
            narrowed_ = true; // before any divergence: the stop above comes first
        }
        return wanted || !skippable;
    }
    bool within(std::string_view prefix) override {
        if (!child_) return true;
        const auto it = task_->inputs.lower_bound(std::string(prefix));
        const bool inside = it != task_->inputs.end() && it->starts_with(prefix);
        // Work skipped before the divergence (or before the last input run) narrows the run.
        if (!inside && left_ > 0 && !comparator_->counts().unexplained) narrowed_ = true;
        return inside;
    }
    void finished(Original&, const ojson& report) override {
        if (!child_) return;
        ojson v;
        try {
            v = verdict_of(task_->mutant == kControl ? std::string("the control")
                                                     : mutants_[task_->mutant].id(),
                           case_.c.name, report);
        } catch (const std::exception& e) {
            v = {{"status", "error"}, {"error", e.what()}};
        }
        v["inputs_run"] = task_->inputs.size() - left_;
        // For the server's control of a kill: whether the run skipped inputs the baseline ran, and
        // the inputs it ran (the control runs the unmutated original on these).
        v["narrowed"] = narrowed_;
        v["ran"] = ran_;
        const std::string text = v.dump() + "\n";
        std::size_t put = 0;
        while (put < text.size()) {
            const ssize_t n = ::write(fd_, text.data() + put, text.size() - put);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            put += static_cast<std::size_t>(n);
        }
        std::fflush(stdout);
        std::fflush(stderr);
        _exit(0);
    }
    // A child's run ends where run_case would stop the case (OriginalFailed) and report: divergent
    // with its first unexplained divergence, or require_compared's error, or equivalent. The
    // verdict is sent from here, without unwinding the case: its destructors would free memory the
    // child shares with the server, copying page after page only to exit.
    [[noreturn]] void stop_child() {
        ojson report;
        const Counts& counts = comparator_->counts();
        if (counts.unexplained) {
            report["status"] = std::string(status_name(Status::Divergent));
            if (const auto& d = comparator_->first_unexplained()) report["first_unexplained"] = to_json(*d);
        } else {
            try {
                require_compared(case_.c, counts,
                                 case_.c.narrowed()); // a mutant runs the inputs that reach it
                report["status"] = std::string(status_name(Status::Equivalent));
            } catch (const std::exception& e) {
                report["status"] = "error";
                report["error"] = e.what();
            }
        }
        finished(*original_, report);
        _exit(0); // finished() exits in a child
    }
    // The server's verdicts, by task.
    const std::map<std::size_t, ojson>& verdicts() const { return verdicts_; }
    bool served() const { return served_; }

private:
    struct Child {
        std::size_t task;
        int fd;
        std::string buffer;
        Clock::time_point since;
    };

    // Runs every mutant's child, then the controls of the kills on narrowed inputs (control_kill);
    // returns in the children too (child_ set).
    void serve() {
        const std::size_t mutant_tasks = tasks_.size();
        std::vector<std::size_t> ids(mutant_tasks);
        for (std::size_t t = 0; t < mutant_tasks; ++t) ids[t] = t;
        run_children(ids);
        if (child_) return;
        std::map<std::set<std::string>, std::size_t> controls; // inputs -> control task
        std::vector<std::size_t> control_ids;
        for (std::size_t t = 0; t < mutant_tasks; ++t) {
            const ojson& v = verdicts_.at(t);
            if (!needs_control(v)) continue;
            std::set<std::string> inputs;
            for (const auto& name : v.at("ran")) inputs.insert(name.get<std::string>());
            if (controls.emplace(inputs, tasks_.size()).second) {
                control_ids.push_back(tasks_.size());
                tasks_.push_back({kControl, std::move(inputs)});
            }
        }
        run_children(control_ids);
        if (child_) return;
        for (std::size_t t = 0; t < mutant_tasks; ++t) {
            ojson& v = verdicts_.at(t);
            if (needs_control(v)) {
                std::set<std::string> inputs;
                for (const auto& name : v.at("ran")) inputs.insert(name.get<std::string>());
                control_kill(v, verdicts_.at(controls.at(inputs)), inputs.size());
            } else if (v.value("status", std::string()) == "killed" &&
                       member(v.at("killed_by"), "how") != "error") {
                v["killed_by"]["control"] = "baseline"; // no input skipped: the baseline ran these
            }
            v.erase("narrowed");
            v.erase("ran");
        }
        for (const std::size_t t : control_ids) verdicts_.erase(t);
    }

    // A kill (not by an error: those get a control from a fresh boot, `unmutated_failure`) on a run
    // that skipped inputs the baseline ran: skipping may change what the original does next (state one
    // input leaves for another), so the kill stands only when the unmutated original, run from the
    // same fork on the same inputs, is clean.
    static bool needs_control(const ojson& v) {
        return v.value("status", std::string()) == "killed" && member(v.at("killed_by"), "how") != "error" &&
               v.value("narrowed", false);
    }
    void control_kill(ojson& v, const ojson& control, std::size_t inputs) const {
        if (control.value("status", std::string()) == "survived") {
            v["killed_by"]["control"] = "clean";
            return;
        }
        const ojson& by = v.at("killed_by");
        std::string what;
        if (const ojson& k = member(control, "killed_by"); !k.is_null())
            what = "at input " + member(k, "input").get<std::string>() + ": " +
                   member(k, "detail").get<std::string>();
        else if (const ojson& u = member(control, "undecided_by"); !u.is_null())
            what = "its run " + member(u, "how").get<std::string>() + ": " +
                   member(u, "detail").get<std::string>();
        else
            what = control.value("error", control.dump());
        v = {{"status", "undecided"},
             {"inputs_run", v.value("inputs_run", std::uint64_t{0})},
             {"seconds", v.value("seconds", 0.0)},
             {"undecided_by", narrowing_kill(case_.c.name, by, inputs, what)}};
    }

    // Forks a child per task in `ids`, `jobs_` at a time, and collects their verdicts; returns in
    // each child (child_ set) and in the server when every child is done.
    void run_children(const std::vector<std::size_t>& ids) {
        std::map<pid_t, Child> running;
        std::size_t next = 0;
        while (next < ids.size() || !running.empty()) {
            while (running.size() < jobs_ && next < ids.size()) {
                const std::size_t t = ids[next++];
                int fds[2];
                if (::pipe(fds) != 0) throw std::runtime_error("refcheck mutate: pipe failed");
                std::fflush(stdout);
                std::fflush(stderr);
                const pid_t pid = ::fork();
                if (pid < 0) throw std::runtime_error("refcheck mutate: fork failed");
                if (pid == 0) {
                    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
                    ::close(fds[0]);
                    for (const auto& [p, c] : running) ::close(c.fd);
                    become_child(t, fds[1]);
                    return;
                }
                ::close(fds[1]);
                running.emplace(pid, Child{t, fds[0], {}, Clock::now()});
            }
            std::vector<pollfd> polls;
            std::vector<pid_t> pids;
            for (const auto& [pid, c] : running) {
                polls.push_back({c.fd, POLLIN, 0});
                pids.push_back(pid);
            }
            const int ready = ::poll(polls.data(), polls.size(), 1000);
            if (ready < 0 && errno != EINTR) throw std::runtime_error("refcheck mutate: poll failed");
            for (std::size_t k = 0; k < polls.size(); ++k) {
                Child& c = running.at(pids[k]);
                bool ended = false;
                if (polls[k].revents & (POLLIN | POLLHUP | POLLERR)) {
                    char buf[65536];
                    const ssize_t n = ::read(c.fd, buf, sizeof buf);
                    if (n > 0)
                        c.buffer.append(buf, static_cast<std::size_t>(n));
                    else if (n == 0 || errno != EINTR)
                        ended = true;
                }
                const double age = std::chrono::duration<double>(Clock::now() - c.since).count();
                if (!ended && age > child_seconds_) {
                    ::kill(pids[k], SIGKILL);
                    ended = true;
                }
                if (!ended) continue;
                ::close(c.fd);
                int status = 0;
                while (::waitpid(pids[k], &status, 0) < 0 && errno == EINTR) {}
                verdicts_[c.task] = collect(c, status, age);
                running.erase(pids[k]);
            }
        }
    }

    ojson collect(const Child& c, int status, double age) const {
        if (!c.buffer.empty() && c.buffer.back() == '\n') {
            try {
                ojson v = ojson::parse(c.buffer);
                v["seconds"] = age;
                return v;
            } catch (const ojson::exception&) {}
        }
        std::string how = "crash", detail;
        if (age > child_seconds_) {
            how = "timeout";
            detail = "the mutant's run was stopped after " +
                     std::to_string(static_cast<int>(child_seconds_)) +
                     " s, past the wall-clock limit per case";
        } else if (WIFSIGNALED(status)) {
            detail = "the mutant's process was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                     strsignal(WTERMSIG(status)) + ")";
        } else {
            detail = "the mutant's process exited with status " + std::to_string(WEXITSTATUS(status)) +
                     " without a verdict";
        }
        // A process of refcheck's own that dies or overruns found no difference: undecided, not a kill.
        return {{"status", "undecided"},
                {"inputs_run", 0},
                {"seconds", age},
                {"undecided_by", {{"case", case_.c.name}, {"input", ""}, {"how", how}, {"detail", detail}}}};
    }

    void become_child(std::size_t t, int fd) {
        child_ = true;
        task_ = &tasks_[t];
        left_ = task_->inputs.size();
        fd_ = fd;
        if (task_->mutant != kControl)
            original_->patch(
                mutants_[task_->mutant].patch()); // PatchMismatch: the child's verdict is an error
        original_->set_instruction_budgets(case_.budgets, case_.fallback);
        original_->machine().disable_coverage();
        original_->machine().after_fork();
    }

    const std::vector<Mutant>& mutants_;
    const BaselineCase& case_;
    std::vector<ServeTask> tasks_;
    unsigned jobs_;
    double child_seconds_;
    Original* original_ = nullptr;
    Comparator* comparator_ = nullptr;
    bool served_ = false, child_ = false;
    const ServeTask* task_ = nullptr;
    std::size_t left_ = 0;
    bool narrowed_ = false;        // an input (or a group's work) skipped before the run stopped
    std::vector<std::string> ran_; // the task's inputs that ran, in order
    int fd_ = -1;
    std::map<std::size_t, ojson> verdicts_;
};

// Why a mutant survived, in words, from what ran: never reached (with the cause the coverage
// reasons give its block, when they give one), reached before the cases' first inputs (run from a
// fresh boot on their first input and the later inputs that reach it again), reached but run on
// fewer inputs than reach it (the cap), or run on every input that reaches it with every compared
// event matching.
std::string survivor_reason(std::size_t i, const ojson& row, const std::vector<BaselineCase>& cases,
                            const CoverageReason* unreached) {
    std::vector<std::string> served, booted;
    for (const auto& b : cases) {
        if (!b.usable) continue;
        if (b.whole.count(i))
            booted.push_back(b.c.name);
        else if (b.reach.count(i))
            served.push_back(b.c.name);
    }
    auto names = [](const std::vector<std::string>& v) {
        std::string out;
        for (std::size_t k = 0; k < v.size() && k < 3; ++k) out += (k ? ", " : "") + v[k];
        if (v.size() > 3) out += " and " + std::to_string(v.size() - 3) + " more";
        return out;
    };
    if (row.at("status") == "not_covered") {
        std::string why = "not covered: no input of the usable cases reaches the instruction";
        if (unreached)
            why += "; its block is unreached because: " + unreached->cause +
                   (unreached->note.empty() ? std::string() : " (" + unreached->note + ")");
        return why;
    }
    // Each phase's own figures (the row's totals add both): the served cases' inputs are not the
    // booted cases', and a reason naming one set of cases gives that set's inputs.
    const std::uint64_t reaching = row.value("booted_reaching", std::uint64_t{0});
    const std::uint64_t run = row.value("booted_run", std::uint64_t{0});
    const bool booted_capped = row.value("booted_capped", false);
    std::size_t boots = 0;
    for (const auto& b : cases) boots += b.usable && b.boots && b.whole.count(i);
    if (served.empty()) {
        const std::string later = reaching == 0   ? std::string()
                                  : booted_capped ? ", then some of the " + std::to_string(reaching) +
                                                        " later inputs that reach it (--inputs-per-mutant)"
                                                  : ", then every one of the " + std::to_string(reaching) +
                                                        " later inputs that reach it";
        return "before inputs: reached before the first input of " + names(booted) +
               (reaching == 0 ? std::string(" only") : " and again by later inputs") +
               ": run from a fresh boot on " + std::to_string(run) + " inputs of " + std::to_string(boots) +
               " of these " + std::to_string(booted.size()) + " cases (the first" + later +
               "; on each data root its first " + std::to_string(kBootCasesPerRoot) +
               " cases and each family's first), every compared event matching";
    }
    const std::uint64_t served_reaching = row.value("served_reaching", std::uint64_t{0});
    const std::uint64_t served_run = row.value("served_run", std::uint64_t{0});
    const bool served_capped = row.value("served_capped", false);
    const std::string fresh =
        booted.empty()
            ? std::string()
            : " and from a fresh boot on " + std::to_string(run) + " inputs of " + names(booted) + " (" +
                  std::to_string(boots) + " of the " + std::to_string(booted.size()) +
                  " cases that reach it before their first input run it: the first input" +
                  (reaching == 0
                       ? std::string()
                       : std::string(booted_capped ? ", then some" : ", then every one") + " of the " +
                             std::to_string(reaching) + " later inputs that reach it") +
                  ")";
    // Capped by either phase: the served cases' part says whether it ran on all their inputs, the
    // fresh boots' whether on all their later ones.
    if (served_capped || booted_capped)
        return "capped: run on " +
               (served_capped ? std::to_string(served_run) + " of the " : std::string("all ")) +
               std::to_string(served_reaching) + " inputs of " + names(served) + " that reach it" + fresh +
               " (--inputs-per-mutant) with every compared event matching; the others did not run";
    return "no compared event differs: run on all " + std::to_string(served_reaching) + " inputs of " +
           names(served) + " that reach it" + fresh +
           "; what it changes is not among the events compared, or it computes the same on these inputs";
}

// Runs mutant `m` from a fresh boot on the cases that reach it before their first input (boot,
// setup: it cannot be served from a boot that already ran it); the verdict as JSON.
ojson run_mutant_booted(const Mutant& m, std::size_t index, const std::vector<BaselineCase>& cases,
                        const std::vector<std::size_t>& order) {
    Injection injection;
    injection.patches.push_back(m.patch());
    ojson v = {{"status", "survived"}, {"cases_run", 0}, {"inputs_run", 0}};
    std::uint64_t inputs_run = 0, cases_run = 0, reaching = 0;
    bool capped = false;
    for (const std::size_t ci : order) {
        const BaselineCase& b = cases[ci];
        if (!b.usable || !b.boots || !b.whole.count(index)) continue;
        // The set-up's effect shows from the first input on, and running every input of every case
        // for each survivor would cost a whole run per mutant: the first input stands for the
        // set-up (a kill found later would be missed: the score stays a lower bound); a case without
        // named inputs runs whole. The inputs that reach the mutant again after the set-up run too
        // (up to the case's cap, picked as a served mutant's are): they used to be left out, so a
        // mutant of code both the set-up and later inputs run (a later record's construction) ran
        // on the first input only and survived as "reached only before the first input".
        Case c = b.c;
        if (!b.inputs.empty()) c.only_inputs.insert(b.inputs.front());
        if (const auto it = b.reach.find(index); it != b.reach.end() && !b.inputs.empty()) {
            const std::vector<int> picked = picked_inputs(b, it->second, b.cap);
            // The first input runs anyway: "later inputs" are the others (the window from the first
            // input to the second counts the first's own call as reaching too).
            const std::size_t later =
                it->second.size() - (!it->second.empty() && it->second.at(0) == 0 ? 1 : 0);
            reaching += later;
            std::size_t later_picked = 0;
            for (const int k : picked) {
                c.only_inputs.insert(b.inputs[static_cast<std::size_t>(k)]);
                later_picked += k != 0;
            }
            capped = capped || later_picked < later;
        }
        ++cases_run;
        StopObserver observer(b.budgets, b.fallback, c.only_inputs);
        set_case_observer(&observer);
        const CaseResult r = run_case(c, b.env, injection);
        set_case_observer(nullptr);
        // The inputs that ran, not those planned: a kill stops the case at the input after it (the
        // count was the plan's, and a mutant killed at its first input "ran" every input it reaches).
        inputs_run += b.inputs.empty() ? 1 : observer.begun();
        ojson x = verdict_of(m.id(), b.c.name, r.report);
        if (x["status"] == "killed") {
            // The control: the unmutated original from a fresh boot on the same inputs. An error needs
            // one always (the data root, the profile or the image may have changed); a divergence
            // where the run skipped inputs the baseline ran (what one input leaves for the next may
            // be the difference).
            const bool error = x["killed_by"]["how"] == "error";
            const bool narrowed = !b.inputs.empty() && c.only_inputs.size() < b.inputs.size();
            x["killed_by"]["control"] = error || narrowed ? "clean" : "baseline";
            if (error || narrowed)
                if (const auto control = unmutated_failure(b.c, b.env, c.only_inputs)) {
                    const std::string detail = x["killed_by"]["detail"].get<std::string>();
                    if (error || control->starts_with("error"))
                        return {{"status", "error"}, {"error", not_the_mutants(b.c.name, detail, *control)}};
                    if (v["status"] == "survived")
                        v = {{"status", "undecided"},
                             {"undecided_by",
                              narrowing_kill(b.c.name, x["killed_by"], c.only_inputs.size(), *control)}};
                    continue;
                }
        }
        if (x["status"] == "killed") {
            v["status"] = "killed";
            v["killed_by"] = x["killed_by"];
            break;
        }
    }
    v["cases_run"] = cases_run;
    v["inputs_run"] = inputs_run;
    v["reaching_inputs"] = reaching;
    v["inputs_capped"] = capped;
    return v;
}

std::uint64_t fnv(std::uint64_t seed, const std::string& s) {
    std::uint64_t h = 1469598103934665603ull ^ (seed * 1099511628211ull);
    for (const unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
    return h;
}

void write_text(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + file.string());
    out << text;
}

} // namespace

MutateSummary mutate(const std::vector<fs::path>& case_files, const MutateOptions& options) {
    const auto t0 = Clock::now();
    auto say = [&](const std::string& s) {
        if (options.progress) options.progress(s);
    };
    if (case_files.empty()) throw std::runtime_error("no cases to run");
    // std::clamp(v, kMinInputs, cap) below needs cap >= kMinInputs.
    if (options.inputs_per_mutant != 0 && options.inputs_per_mutant < kMinInputsPerMutant)
        throw std::invalid_argument("inputs per mutant: " + std::to_string(options.inputs_per_mutant) +
                                    " is below " + std::to_string(kMinInputsPerMutant) + " (0: every input)");
    check_case_names(case_files); // mutate.json's rows are by case name
    std::vector<BaselineCase> cases;
    for (const auto& f : case_files) {
        BaselineCase b;
        b.c = load_case(f);
        b.env = resolve_environment(b.c, options.run);
        cases.push_back(std::move(b));
    }
    {
        std::vector<Case> plain;
        for (const auto& b : cases) plain.push_back(b.c);
        RunOptions ro = options.run;
        ro.injection = {};
        const auto problems = preflight(plain, ro);
        if (!problems.empty()) {
            std::string all;
            for (const auto& p : problems) all += "\n  " + p;
            throw std::runtime_error("preflight:" + all);
        }
    }
    // The mutants: of the first case's image, from the routines its profile reaches.
    const Environment& env0 = cases.front().env;
    const std::string image_sha = sha256_file(env0.image);
    const Profile profile = load_profile(env0.profile);
    std::vector<Mutant> all;
    std::optional<CoverageReasons> reasons; // why blocks stay unreached, for this image
    std::vector<std::pair<StaticBlock, const CoverageReason*>> block_reasons;
    {
        emu::Machine machine;
        machine.load(env0.image);
        const auto routines = discover_routines(machine, profile_entries(profile));
        all = enumerate_mutants(machine, routines);
        if (options.coverage_reasons && fs::exists(*options.coverage_reasons)) {
            reasons = load_coverage_reasons(*options.coverage_reasons);
            if (reasons->image != env0.image.filename().string()) reasons.reset();
        }
        if (reasons) {
            std::map<std::uint32_t, std::uint32_t> sizes;
            for (const auto& r : routines)
                for (const auto& b : r.blocks) sizes[b.address] = b.size;
            for (const auto& k : keyed_blocks(machine, routines, *reasons))
                for (const auto& reason : reasons->blocks)
                    if (reason.key == k.key)
                        block_reasons.push_back({{k.address, sizes[k.address]}, &reason});
        }
    }
    std::vector<Mutant> mutants;
    {
        std::optional<std::regex> re;
        if (!options.routines.empty()) {
            try {
                re.emplace(options.routines, std::regex::ECMAScript);
            } catch (const std::regex_error& e) {
                throw std::runtime_error("--routines: bad regex \"" + options.routines + "\": " + e.what());
            }
        }
        const std::set<std::string> known(std::begin(kMutationOperators), std::end(kMutationOperators));
        for (const auto& o : options.operators)
            if (!known.count(o)) throw std::runtime_error("--operators: unknown operator \"" + o + "\"");
        const std::set<std::string> ops(options.operators.begin(), options.operators.end());
        for (const auto& m : all)
            if ((!re || std::regex_search(m.routine, *re)) && (ops.empty() || ops.count(m.op)))
                mutants.push_back(m);
        if (options.sample && *options.sample < mutants.size()) {
            std::vector<std::pair<std::uint64_t, std::size_t>> keyed;
            for (std::size_t i = 0; i < mutants.size(); ++i)
                keyed.emplace_back(fnv(options.seed, mutants[i].id()), i);
            std::sort(keyed.begin(), keyed.end());
            keyed.resize(*options.sample);
            std::vector<std::size_t> keep;
            for (const auto& k : keyed) keep.push_back(k.second);
            std::sort(keep.begin(), keep.end());
            std::vector<Mutant> sampled;
            for (const std::size_t i : keep) sampled.push_back(mutants[i]);
            mutants = std::move(sampled);
        }
    }
    std::optional<EquivalentRegistry> registry;
    std::string registry_note;
    if (options.equivalents && fs::exists(*options.equivalents)) {
        registry = load_equivalent_registry(*options.equivalents);
        if (registry->sha256 != image_sha) {
            registry_note =
                "the registry is for another image (" + registry->image + ", " + registry->sha256 + ")";
            registry.reset();
        }
    }
    say("refcheck mutate: " + std::to_string(mutants.size()) + " mutants (of " + std::to_string(all.size()) +
        ") on " + env0.image.filename().string() + "; baseline of " + std::to_string(cases.size()) +
        " cases");

    // Baseline, in workers.
    std::vector<std::uint32_t> addresses;
    for (const auto& m : mutants) addresses.push_back(m.address);
    const unsigned jobs = std::max(1u, options.run.jobs);
    WorkerCallbacks base;
    base.name = [&](std::size_t i) { return cases[i].c.name; };
    base.run = [&](std::size_t i) {
        const auto start = Clock::now();
        ReachObserver observer(addresses);
        set_case_observer(&observer);
        CaseResult r = run_case(cases[i].c, cases[i].env);
        set_case_observer(nullptr);
        CaseResult out;
        out.name = r.name;
        out.status = r.status;
        out.report = observer.json();
        out.report["status"] = std::string(status_name(r.status));
        if (r.report.contains("error")) out.report["error"] = r.report["error"];
        // The image the case ran, by the hash its report names (stamped before the load: run_case).
        out.report["image_sha256"] = member(member(member(r.report, "inputs"), "image"), "sha256");
        out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return out;
    };
    base.died = [&](std::size_t i, const WorkerDeath& d) {
        CaseResult r;
        r.name = cases[i].c.name;
        r.report = {{"status", "error"}, {"error", "the worker " + d.what()}};
        return r;
    };
    base.case_seconds = options.run.case_timeout; // a hang outside the guest: the case is unusable
    std::vector<CaseResult> baseline = run_in_workers(cases.size(), jobs, base);
    const double baseline_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    std::size_t usable = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        BaselineCase& b = cases[i];
        const ojson& j = baseline[i].report;
        b.seconds = baseline[i].seconds;
        if (const ojson& ran = member(j, "image_sha256"); ran.is_string() && ran != image_sha) {
            b.note = "runs on another image";
        } else if (baseline[i].status != Status::Equivalent) {
            b.note = "not equivalent on the unmutated image (" + j.value("status", std::string("error")) +
                     (j.contains("error") ? ": " + j["error"].get<std::string>() : std::string()) + ")";
        } else {
            b.usable = true;
            ++usable;
        }
        if (!b.usable) continue;
        b.inputs = j.at("inputs").get<std::vector<std::string>>();
        for (const auto& w : j.at("whole")) b.whole.insert(w.get<std::size_t>());
        for (const auto& row : j.at("reach")) {
            auto& v = b.reach[row.at(0).get<std::size_t>()];
            for (std::size_t k = 1; k + 1 < row.size(); k += 2)
                v.add_run(row.at(k).get<int>(), row.at(k + 1).get<int>());
        }
        std::uint64_t most = 0;
        for (const auto& [routine, n] : j.at("needed").items()) {
            const std::uint64_t budget = std::max(kBudgetFactor * n.get<std::uint64_t>(), kBudgetFloor);
            b.budgets[routine] = budget;
            most = std::max(most, budget);
        }
        b.fallback = std::max(most, kBudgetFloor);
        b.instructions = j.value("instructions", std::uint64_t{0});
        b.skippable = j.value("skippable", true);
        // A served run costs about this many of the original's instructions at most (the
        // reimplementation's work scales with them), and never fewer than kMinInputs inputs.
        const bool cheap = options.whole_cheap_cases && b.instructions <= kWholeCaseInstructions;
        if (options.inputs_per_mutant != 0 && !cheap) {
            const std::uint64_t per_input = std::max<std::uint64_t>(1, b.per_input());
            // A case whose state carries plays a prefix: as many of its inputs as those instructions
            // allow, the whole case when they allow it all (--inputs-per-mutant, when given, bounds it).
            const std::uint64_t most =
                b.skippable || !options.whole_cheap_cases ? options.inputs_per_mutant : b.inputs.size();
            b.cap = static_cast<std::size_t>(
                std::clamp<std::uint64_t>(kInstructionsPerRun / per_input, kMinInputs, most));
            b.later_cap = static_cast<std::size_t>(
                std::clamp<std::uint64_t>(kInstructionsPerLaterRun / per_input, kMinInputs, b.cap));
            if (!b.skippable && b.cap >= b.inputs.size()) b.cap = 0;
            if (!b.skippable && b.later_cap >= b.inputs.size()) b.later_cap = 0;
        }
    }
    baseline = {}; // what the cases keep is parsed; every served mutant's fork copies what stays
    if (usable == 0)
        throw std::runtime_error("no case is equivalent on the unmutated image: nothing can kill a mutant");
    say("refcheck mutate: baseline done in " + std::to_string(static_cast<int>(baseline_seconds)) + " s, " +
        std::to_string(usable) + " usable cases");

    // Covered mutants run; the others are reported without running.
    std::vector<std::size_t> covered;
    for (std::size_t i = 0; i < mutants.size(); ++i)
        for (const auto& b : cases)
            if (b.usable && (b.whole.count(i) || b.reach.count(i))) {
                covered.push_back(i);
                break;
            }
    std::vector<ojson> rows(mutants.size());
    std::vector<double> secs(mutants.size(), 0);
    for (std::size_t i = 0; i < mutants.size(); ++i)
        rows[i] = {{"status", "not_covered"}, {"cases_run", 0}, {"inputs_run", 0}};
    for (const std::size_t i : covered)
        rows[i] = {{"status", "survived"},
                   {"cases_run", 0},
                   {"inputs_run", 0},
                   {"reaching_inputs", 0},
                   {"inputs_capped", false},
                   // Each phase's figures, for the survivor's reason (not in the report's row).
                   {"served_run", 0},
                   {"served_reaching", 0},
                   {"booted_run", 0},
                   {"booted_reaching", 0}};
    auto add = [](ojson& row, const char* key, std::uint64_t n) {
        row[key] = row[key].get<std::uint64_t>() + n;
    };
    auto take_verdict = [&](std::size_t i, const ojson& v) {
        if (v.value("status", std::string()) == "error")
            throw std::runtime_error("mutant " + mutants[i].id() + ": " + v.value("error", std::string()));
        add(rows[i], "cases_run", 1);
        add(rows[i], "inputs_run", v.value("inputs_run", std::uint64_t{0}));
        secs[i] += v.value("seconds", 0.0);
        record_verdict(rows[i], v);
    };
    std::size_t finished = 0, served_runs = 0, booted_runs = 0;
    const auto t1 = Clock::now();
    auto progress = [&](const std::string& what) {
        const double s = std::chrono::duration<double>(Clock::now() - t1).count();
        std::size_t killed = 0;
        for (const std::size_t i : covered) killed += rows[i]["status"] == "killed";
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "refcheck mutate: %s; %zu mutant runs, %zu of %zu covered killed, %.1f s", what.c_str(),
                      finished, killed, covered.size(), s);
        say(buf);
    };

    // Argued-equivalent mutants run only to test their arguments (a kill makes the entry stale): on
    // at most kMinInputs of the inputs that reach them, over the cases in serve order (once that many
    // have run, later cases do not serve them), not up to the cost cap. Each further case that draws
    // a scene or a frame would otherwise run every argued mutant of the draw code again.
    std::vector<bool> argued(mutants.size(), false);
    if (registry)
        for (std::size_t i = 0; i < mutants.size(); ++i)
            for (const auto& x : registry->entries)
                if (x.covers(mutants[i])) argued[i] = true;

    // 1. Each case serves the mutants it reaches after its first input from one boot (ServeObserver),
    //    the cases in order, a mutant killed by one not served by the next.
    //    Cheapest inputs first (the original's instructions per input in the baseline: deterministic),
    //    so most kills come from the cheapest runs.
    std::vector<std::size_t> serve_order;
    for (std::size_t k = 0; k < cases.size(); ++k)
        if (cases[k].usable) serve_order.push_back(k);
    std::stable_sort(serve_order.begin(), serve_order.end(), [&](std::size_t x, std::size_t y) {
        return cases[x].per_input() < cases[y].per_input();
    });
    std::map<std::pair<std::size_t, Family>, std::uint64_t> family_inputs; // mutant, family -> inputs run
    for (const std::size_t ci : serve_order) {
        BaselineCase& b = cases[ci];
        std::vector<ServeTask> tasks;
        for (const std::size_t i : covered) {
            // An undecided mutant (a crash or overrun in another case) runs on: a kill may decide it.
            if (rows[i]["status"] == "killed" || b.whole.count(i)) continue;
            if (argued[i] && rows[i]["inputs_run"].get<std::uint64_t>() >= kMinInputs) continue;
            const auto it = b.reach.find(i);
            if (it == b.reach.end()) continue;
            // Inputs a run can skip: a spread over the case; otherwise a prefix (picked_inputs). An
            // argued mutant runs on kMinInputs reaching inputs (a prefix holding them).
            std::size_t cap = b.cap;
            if (family_inputs[{i, b.c.family}] >= kMinInputs) cap = b.later_cap;
            if (argued[i]) {
                std::size_t least = kMinInputs;
                if (!b.skippable)
                    least = it->second.size() > kMinInputs
                                ? static_cast<std::size_t>(it->second.at(kMinInputs - 1)) + 1
                                : 0;
                if (cap == 0 || (least != 0 && least < cap)) cap = least;
            }
            const std::vector<int> picked = picked_inputs(b, it->second, cap);
            add(rows[i], "reaching_inputs", it->second.size());
            add(rows[i], "served_reaching", it->second.size());
            if (picked.size() < it->second.size()) rows[i]["inputs_capped"] = rows[i]["served_capped"] = true;
            ServeTask t{i, {}};
            for (const int k : picked) t.inputs.insert(b.inputs[static_cast<std::size_t>(k)]);
            tasks.push_back(std::move(t));
        }
        if (tasks.empty()) continue;
        const double child_seconds = std::max(120.0, 10.0 * b.seconds);
        WorkerCallbacks serve;
        serve.name = [&](std::size_t) { return b.c.name; };
        serve.run = [&](std::size_t) {
            ServeObserver observer(mutants, b, tasks, jobs, child_seconds);
            set_case_observer(&observer);
            const CaseResult r = run_case(b.c, b.env);
            set_case_observer(nullptr);
            CaseResult out;
            out.name = b.c.name;
            ojson verdicts = ojson::array();
            for (const auto& [t, v] : observer.verdicts()) verdicts.push_back(ojson::array({t, v}));
            out.report = {{"verdicts", verdicts}};
            if (!observer.served())
                out.report["error"] = "the case never reached its first input (" +
                                      r.report.value("error", std::string("no input")) + ")";
            return out;
        };
        serve.died = [&](std::size_t, const WorkerDeath& d) {
            CaseResult r;
            r.report = {{"error", "the server of case " + b.c.name + " " + d.what()}};
            return r;
        };
        const CaseResult served = run_in_workers(1, 1, serve).front();
        if (served.report.contains("error"))
            throw std::runtime_error("refcheck mutate: " + served.report["error"].get<std::string>());
        for (const auto& tv : served.report.at("verdicts")) {
            const std::size_t t = tv.at(0).get<std::size_t>();
            if (t >= tasks.size()) continue;
            ojson verdict = tv.at(1);
            if (const ojson& by = member(verdict, "killed_by"); member(by, "how") == "error") {
                // The control, in a worker of its own (a crash there is the run's error).
                WorkerCallbacks control;
                control.name = [&](std::size_t) { return b.c.name; };
                control.run = [&](std::size_t) {
                    CaseResult out;
                    out.name = b.c.name;
                    const auto failure = unmutated_failure(b.c, b.env, tasks[t].inputs);
                    out.report = {{"failure", failure ? ojson(*failure) : ojson(nullptr)}};
                    return out;
                };
                control.died = [&](std::size_t, const WorkerDeath& d) {
                    CaseResult r;
                    r.report = {{"failure", "the control's worker " + d.what()}};
                    return r;
                };
                const CaseResult checked = run_in_workers(1, 1, control).front();
                if (const ojson& failure = member(checked.report, "failure"); !failure.is_null())
                    throw std::runtime_error(
                        "refcheck mutate: mutant " + mutants[tasks[t].mutant].id() + ": " +
                        not_the_mutants(b.c.name, member(by, "detail").get<std::string>(),
                                        failure.is_string() ? failure.get<std::string>() : failure.dump()));
                verdict["killed_by"]["control"] = "clean";
            }
            take_verdict(tasks[t].mutant, verdict);
            add(rows[tasks[t].mutant], "served_run", verdict.value("inputs_run", std::uint64_t{0}));
            family_inputs[{tasks[t].mutant, b.c.family}] += verdict.value("inputs_run", std::uint64_t{0});
            ++finished;
            ++served_runs;
        }
        if (served.report.at("verdicts").size() != tasks.size())
            throw std::runtime_error("refcheck mutate: case " + b.c.name + " served " +
                                     std::to_string(served.report.at("verdicts").size()) + " of " +
                                     std::to_string(tasks.size()) + " mutants");
        progress(b.c.name + ": " + std::to_string(tasks.size()) + " mutants served");
    }

    // 2. Mutants reached before a case's first input and still alive: from a fresh boot each.
    std::vector<std::size_t> booted;
    for (const std::size_t i : covered) {
        if (rows[i]["status"] == "killed") continue;
        for (const auto& b : cases)
            if (b.usable && b.whole.count(i)) {
                booted.push_back(i);
                break;
            }
    }
    // A fresh boot costs what the case's data root costs to load, then its first input: the cases
    // on the smallest archives first (file sizes and instruction counts: deterministic), so that a
    // loader mutant a hostile root kills is not first booted on the default archives by every case.
    std::vector<std::size_t> boot_order(cases.size());
    std::vector<std::uintmax_t> boot_bytes(cases.size(), 0);
    for (std::size_t k = 0; k < cases.size(); ++k) {
        boot_order[k] = k;
        std::error_code ec;
        for (const char* f : {"3DDATA/3DOBJS.BIN", "3DDATA/OBJTEXT.BIN"}) {
            const auto n = fs::file_size(cases[k].env.data / f, ec);
            if (!ec) boot_bytes[k] += n;
        }
    }
    std::stable_sort(boot_order.begin(), boot_order.end(), [&](std::size_t x, std::size_t y) {
        return std::pair(boot_bytes[x], cases[x].per_input()) <
               std::pair(boot_bytes[y], cases[y].per_input());
    });
    {
        std::map<std::string, std::size_t> per_root;
        std::set<std::pair<std::string, int>> families;
        for (const std::size_t k : boot_order) {
            if (!cases[k].usable) continue;
            const std::string root = cases[k].env.data.lexically_normal().string();
            const bool first_of_family = families.insert({root, static_cast<int>(cases[k].c.family)}).second;
            if (per_root[root] < kBootCasesPerRoot || first_of_family) {
                cases[k].boots = true;
                ++per_root[root];
            }
        }
    }
    WorkerCallbacks mut;
    mut.name = [&](std::size_t k) { return mutants[booted[k]].id(); };
    mut.run = [&](std::size_t k) {
        const auto start = Clock::now();
        CaseResult r;
        r.name = mutants[booted[k]].id();
        r.report = run_mutant_booted(mutants[booted[k]], booted[k], cases, boot_order);
        r.status = Status::Equivalent;
        r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return r;
    };
    mut.died = [&](std::size_t k, const WorkerDeath& d) {
        CaseResult r;
        r.name = mutants[booted[k]].id();
        // The worker's death found no difference (it was counted a kill): undecided.
        r.report = {{"status", "undecided"},
                    {"cases_run", 0},
                    {"inputs_run", 0},
                    {"undecided_by",
                     {{"case", ""},
                      {"input", d.input},
                      {"how", d.timed_out_after > 0 ? "timeout" : "crash"},
                      {"detail", "the worker " + d.what() + (d.routine.empty() ? "" : " in " + d.routine)}}}};
        r.seconds = d.seconds;
        return r;
    };
    mut.done = [&](std::size_t) {
        ++finished;
        ++booted_runs;
        if (booted_runs % 50 == 0 || booted_runs == booted.size()) progress("from a fresh boot");
    };
    mut.case_seconds = options.run.case_timeout; // per mutant: past it, undecided by "timeout"
    const std::vector<CaseResult> fresh = run_in_workers(booted.size(), jobs, mut);
    for (std::size_t k = 0; k < booted.size(); ++k) {
        const std::size_t i = booted[k];
        const ojson& v = fresh[k].report;
        if (v.value("status", std::string()) == "error")
            throw std::runtime_error("refcheck mutate: mutant " + mutants[i].id() + ": " +
                                     v.value("error", std::string()));
        add(rows[i], "cases_run", v.value("cases_run", std::uint64_t{0}));
        add(rows[i], "inputs_run", v.value("inputs_run", std::uint64_t{0}));
        add(rows[i], "reaching_inputs", v.value("reaching_inputs", std::uint64_t{0}));
        add(rows[i], "booted_run", v.value("inputs_run", std::uint64_t{0}));
        add(rows[i], "booted_reaching", v.value("reaching_inputs", std::uint64_t{0}));
        if (v.value("inputs_capped", false)) rows[i]["inputs_capped"] = rows[i]["booted_capped"] = true;
        secs[i] += fresh[k].seconds;
        record_verdict(rows[i], v);
    }
    const double mutant_seconds = std::chrono::duration<double>(Clock::now() - t1).count();

    // The report.
    auto blocks_unreached = [&](std::uint32_t address) -> const CoverageReason* {
        for (const auto& [block, reason] : block_reasons)
            if (address >= block.address && address < block.address + block.size) return reason;
        return nullptr;
    };
    std::vector<bool> entry_used(registry ? registry->entries.size() : 0, false),
        entry_killed(entry_used.size(), false);
    ojson list = ojson::array();
    ojson routines = ojson::object();
    auto bump = [](ojson& t, const std::string& status) {
        for (const char* k : {"mutants", "killed", "undecided", "survived", "survived_covered", "not_covered",
                              "equivalent", "argued_untested"})
            if (!t.contains(k)) t[k] = 0;
        t["mutants"] = t["mutants"].get<std::uint64_t>() + 1;
        if (status == "killed") t["killed"] = t["killed"].get<std::uint64_t>() + 1;
        if (status == "undecided") t["undecided"] = t["undecided"].get<std::uint64_t>() + 1;
        if (status == "survived" || status == "not_covered")
            t["survived"] = t["survived"].get<std::uint64_t>() + 1;
        if (status == "survived") t["survived_covered"] = t["survived_covered"].get<std::uint64_t>() + 1;
        if (status == "not_covered") t["not_covered"] = t["not_covered"].get<std::uint64_t>() + 1;
        if (status == "equivalent") t["equivalent"] = t["equivalent"].get<std::uint64_t>() + 1;
    };
    auto score = [](ojson& t) {
        const double n =
            double(t["mutants"].get<std::uint64_t>()) - double(t["equivalent"].get<std::uint64_t>());
        // Nothing to score (no mutant, or every one argued equivalent) is no score, not 100%.
        t["score"] = n > 0 ? ojson(double(t["killed"].get<std::uint64_t>()) / n) : ojson(nullptr);
    };
    ojson totals = ojson::object();
    for (std::size_t i = 0; i < mutants.size(); ++i) {
        const Mutant& m = mutants[i];
        ojson row = {{"id", m.id()},
                     {"routine", m.routine},
                     {"address", emu::hex(m.address)},
                     {"offset", m.offset()},
                     {"operator", m.op},
                     {"instruction", m.instruction},
                     {"patch", m.patch().text()}};
        std::string status = rows[i].at("status").get<std::string>();
        const bool was_covered = status != "not_covered";
        if (registry)
            for (std::size_t e = 0; e < registry->entries.size(); ++e) {
                const auto& x = registry->entries[e];
                if (!x.covers(m)) continue;
                entry_used[e] = true;
                if (status == "killed") {
                    entry_killed[e] = true;
                } else if (rows[i].at("inputs_run").get<std::uint64_t>() == 0) {
                    // Never run (no input reaches it): its argument was not put to any test, so it
                    // excuses nothing. It keeps its status (not covered), counts against the score,
                    // and shows the argument as untested.
                    row["argument"] = x.argument;
                    row["argument_untested"] = true;
                } else {
                    status = "equivalent";
                    row["argument"] = x.argument;
                }
            }
        row["status"] = status;
        row["covered"] = was_covered;
        row["cases_run"] = rows[i].at("cases_run");
        row["inputs_run"] = rows[i].at("inputs_run");
        if (rows[i].contains("reaching_inputs")) {
            row["reaching_inputs"] = rows[i]["reaching_inputs"];
            row["inputs_capped"] = rows[i]["inputs_capped"];
        }
        if (status == "killed") row["killed_by"] = rows[i]["killed_by"];
        if (status == "undecided") row["undecided_by"] = rows[i]["undecided_by"];
        if (status == "survived" || status == "not_covered")
            row["reason"] = survivor_reason(i, rows[i], cases, blocks_unreached(m.address));
        list.push_back(row);
        bump(totals, status);
        if (!routines.contains(m.routine)) routines[m.routine] = {{"address", emu::hex(m.routine_address)}};
        bump(routines[m.routine], status);
        if (row.contains("argument_untested"))
            for (ojson* t : {&totals, &routines[m.routine]})
                (*t)["argued_untested"] = (*t)["argued_untested"].get<std::uint64_t>() + 1;
    }
    if (mutants.empty()) bump(totals, "none"), totals["mutants"] = 0;
    score(totals);
    for (auto& [name, t] : routines.items()) score(t);
    ojson stale = ojson::array();
    if (registry)
        for (std::size_t e = 0; e < registry->entries.size(); ++e) {
            if (entry_used[e] && !entry_killed[e]) continue;
            const auto& x = registry->entries[e];
            // Unused by this run's mutants but matching one of the image's: outside this run's
            // --routines, --operators or --sample, not gone.
            if (!entry_used[e] &&
                std::any_of(all.begin(), all.end(), [&](const Mutant& m) { return x.covers(m); }))
                continue;
            stale.push_back({{"routine", x.routine},
                             {"operator", x.op},
                             {"instruction", x.instruction},
                             {"reason", entry_killed[e] ? "killed" : "gone"}});
            if (x.offset) {
                char buf[16];
                std::snprintf(buf, sizeof buf, "0x%x", *x.offset);
                stale.back()["offset"] = buf;
            }
        }
    std::vector<std::size_t> order(covered);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return secs[a] > secs[b]; });
    ojson slowest = ojson::array();
    for (std::size_t k = 0; k < order.size() && k < 10; ++k)
        slowest.push_back({{"id", mutants[order[k]].id()},
                           {"status", list[order[k]]["status"]},
                           {"inputs_run", list[order[k]]["inputs_run"]},
                           {"seconds", secs[order[k]]}});
    ojson case_rows = ojson::array();
    for (const auto& b : cases) {
        ojson c = {{"case", b.c.name},
                   {"usable", b.usable},
                   {"inputs", b.inputs.size()},
                   {"seconds", b.seconds},
                   {"instructions_per_input", b.per_input()},
                   {"inputs_per_mutant", b.cap},
                   {"inputs_per_mutant_later", b.later_cap},
                   {"skippable", b.skippable},
                   {"boots", b.boots}};
        if (!b.note.empty()) c["note"] = b.note;
        case_rows.push_back(c);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    ojson options_json = {{"routines", options.routines},
                          {"operators", options.operators},
                          {"jobs", jobs},
                          {"enumerated", all.size()},
                          {"inputs_per_mutant", options.inputs_per_mutant},
                          {"whole_cheap_cases", options.whole_cheap_cases}};
    if (options.sample) options_json["sample"] = *options.sample, options_json["seed"] = options.seed;
    if (options.min_score) options_json["min_score"] = *options.min_score;
    ojson report = {
        {"schema", kMutateReportSchema},
        {"image", {{"file", env0.image.filename().string()}, {"sha256", image_sha}}},
        {"profile", {{"file", env0.profile.filename().string()}, {"sha256", sha256_file(env0.profile)}}},
        {"options", options_json},
        {"cases", case_rows},
        {"totals", totals},
        {"routines", routines},
        {"mutants", list},
        {"equivalents",
         {{"file", options.equivalents ? options.equivalents->filename().string() : ""},
          {"applied", registry.has_value()},
          {"note", registry_note},
          {"check",
           "an argued mutant runs on at most " + std::to_string(kMinInputs) +
               " of the inputs that reach it in each case, and no further case serves it once it has run "
               "on " +
               std::to_string(kMinInputs) +
               " (the others' cap: --inputs-per-mutant and the cost cap); a kill makes its entry stale"},
          {"stale", stale}}},
        {"slowest", slowest},
        {"timing",
         {{"seconds", seconds},
          {"baseline_seconds", baseline_seconds},
          {"mutant_seconds", mutant_seconds},
          {"mutants_run", covered.size()},
          {"served_runs", served_runs},
          {"booted_runs", booted_runs},
          {"mutants_per_second", mutant_seconds > 0 ? double(covered.size()) / mutant_seconds : 0.0}}}};
    MutateSummary s;
    s.report = report;
    s.text = mutate_text(report);
    s.json = options.run.out / "mutate.json";
    s.html = options.run.out / "mutate.html";
    write_json(s.json, report);
    write_text(
        s.html,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>refcheck mutate</title></head><body>\n" +
            mutate_html(report) + "</body></html>\n");
    write_text(options.run.out / "mutate.txt", s.text);
    // --min-score is not met by a run that scored nothing: no mutant killed is no evidence.
    const ojson& scored = report["totals"]["score"];
    s.exit_code =
        options.min_score && (scored.is_null() || scored.get<double>() < *options.min_score) ? 1 : 0;
    return s;
}

} // namespace refcheck::harness
