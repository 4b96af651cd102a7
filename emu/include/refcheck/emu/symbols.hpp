// Address <-> name lookup for fault reports and traces ("draw_3d_object_+0x12").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "refcheck/emu/types.hpp"

namespace refcheck::emu {

class SymbolTable {
public:
    // The first name given for an address is the one shown; every name resolves.
    void add(std::string name, Address address);
    std::optional<Address> find(std::string_view name) const;
    // Nearest symbol at or below `address` (within max_distance), as "name" or "name+0x12";
    // otherwise "0x00401234".
    std::string describe(Address address, uint32_t max_distance = 0x10000) const;
    // Start of the nearest symbol at or below `address`, if within max_distance.
    std::optional<Address> start_of(Address address, uint32_t max_distance = 0x10000) const;
    // The name of the symbol exactly at `address`, if any.
    const std::string* name_at(Address address) const;
    const std::map<Address, std::string>& by_address() const { return by_address_; }

private:
    std::map<Address, std::string> by_address_;
    std::map<std::string, Address, std::less<>> by_name_;
};

} // namespace refcheck::emu
