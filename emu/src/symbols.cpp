#include "refcheck/emu/symbols.hpp"

#include <cstdio>

namespace refcheck::emu {

void SymbolTable::add(std::string name, Address address) {
    by_address_.try_emplace(address, name);
    by_name_.try_emplace(std::move(name), address);
}

std::optional<Address> SymbolTable::find(std::string_view name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return std::nullopt;
    return it->second;
}

std::optional<Address> SymbolTable::start_of(Address address, uint32_t max_distance) const {
    auto it = by_address_.upper_bound(address);
    if (it == by_address_.begin()) return std::nullopt;
    --it;
    if (address - it->first > max_distance) return std::nullopt;
    return it->first;
}

std::string SymbolTable::describe(Address address, uint32_t max_distance) const {
    auto start = start_of(address, max_distance);
    if (!start) return hex(address);
    const std::string& name = by_address_.at(*start);
    if (*start == address) return name;
    char buf[24];
    std::snprintf(buf, sizeof buf, "+0x%x", address - *start);
    return name + buf;
}

const std::string* SymbolTable::name_at(Address address) const {
    auto it = by_address_.find(address);
    return it == by_address_.end() ? nullptr : &it->second;
}

} // namespace refcheck::emu
