// One side's event stream of an input, whose storage outlives the input (issue 17).
#pragma once

#include "refcheck/events.hpp"
#include "refcheck/harness/record.hpp"

#include <vector>

namespace refcheck::harness {

// The events of one input, kept from input to input: clear() keeps each event, with the capacity of
// its field and excuse vectors, as a spare that append() hands out again, and the stream's own
// vector keeps its capacity. A family whose inputs are alike therefore allocates nothing per event
// once its first inputs have run (a face event's 19 fields used to be one allocation and one free
// per event and side, and each input's stream grew by reallocation).
class EventStream {
public:
    // A blank event (no kind, fields or excuses; flags and key_fields 0) at the end of the stream.
    EventRecord& append() {
        if (spare_.empty()) return live_.emplace_back();
        EventRecord& e = live_.emplace_back(std::move(spare_.back()));
        spare_.pop_back();
        e.kind = Name{};
        e.fields.clear(); // keeps the capacity
        e.key_fields = 0;
        e.flags = 0;
        e.excuses.clear();
        return e;
    }
    // Empties the stream; its events become spares.
    void clear() {
        for (EventRecord& e : live_) spare_.push_back(std::move(e));
        live_.clear(); // moved-from events own no storage: nothing is freed
    }
    const std::vector<EventRecord>& events() const { return live_; }
    std::size_t size() const { return live_.size(); }

private:
    std::vector<EventRecord> live_, spare_;
};

// The reimplementation's events of one input, in a vector that keeps its capacity from input to
// input (events::VectorSink starts each input empty: a stream of a few hundred events grew by
// reallocation, its larger buffers straight from and back to the system).
class ReusedSink final : public events::EventSink {
public:
    void emit(events::Event event) override { events_.push_back(std::move(event)); }
    const std::vector<events::Event>& events() const { return events_; }
    void clear() { events_.clear(); }

private:
    std::vector<events::Event> events_;
};

} // namespace refcheck::harness
