// The image profile (schema "refcheck-profile/1"): routines with address, convention, role,
// arguments and return; data with address, type and size in bytes; struct layouts. Sorted by
// name, deterministic.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "refcheck/profilegen/descriptors.hpp"
#include "refcheck/profilegen/image_symbols.hpp"

namespace refcheck::profilegen {

inline constexpr const char* kProfileSchema = "refcheck-profile/1";

// Joins the descriptors with the exports. Throws ProfileError when a described routine or global
// has no export, an export has no descriptor, a name is described twice, or a descriptor is
// malformed (unknown convention, role, return type or register, registers out of watcall order,
// a field of an undescribed struct).
nlohmann::ordered_json build_profile(const ImageSymbols& image, const std::vector<Descriptor>& descriptors);

} // namespace refcheck::profilegen
