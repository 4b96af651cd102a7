// A detour for a seeded fault that needs more room than one instruction: machine code written over
// clear_framebuffer_body (a routine of the stand-in no case calls), and a patch of an entry point's
// call of its body that sends it there. The code can then do its work and jump to (or call) the body.
// Sites come from the COFF symbols and Capstone (code_site.hpp) and the framebuffer from the profile:
// nothing is hard-coded.
#pragma once

#include "code_site.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace refcheck::cli_test {

struct Detour {
    emu::Address at = 0;   // where the code goes: clear_framebuffer_body
    emu::Address body = 0; // the body the entry point calls
    emu::Address fb = 0, fb_size = 0;
    CodeSite call; // the entry point's first call (of its body)
};

// The detour of `entry` (a watcall entry point of the stand-in, such as draw_scene_).
Detour detour_site(const std::string& entry);
// Appends v, little-endian.
void put32(std::vector<std::uint8_t>& code, std::uint32_t v);
// Appends `mov edi, framebuffer; mov ecx, its size; mov al, colour; rep stosb`.
void fill_framebuffer(std::vector<std::uint8_t>& code, const Detour& s, std::uint8_t colour);
// Appends `jmp body`, code being written at s.at.
void jump_to_body(std::vector<std::uint8_t>& code, const Detour& s);
// The `--patch` arguments: the code over clear_framebuffer_body, and the entry's call sent to it.
std::string detour_patches(const Detour& s, const std::vector<std::uint8_t>& code);

} // namespace refcheck::cli_test
