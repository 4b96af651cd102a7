#include "detour.hpp"

#include "cli_support.hpp"

#include <stdexcept>

namespace refcheck::cli_test {

Detour detour_site(const std::string& entry) {
    Detour s;
    s.at = find_instruction("clear_framebuffer_body", [](const emu::Instruction&) { return true; }).start;
    s.call = find_instruction(entry, [](const emu::Instruction& in) { return in.text.starts_with("call "); });
    s.body = static_cast<emu::Address>(std::stoul(s.call.instruction.text.substr(5), nullptr, 16));
    s.fb = profile_data_address("framebuffer");
    s.fb_size = profile_data("framebuffer").at("size").get<emu::Address>();
    return s;
}

void put32(std::vector<std::uint8_t>& code, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) code.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}

void fill_framebuffer(std::vector<std::uint8_t>& code, const Detour& s, std::uint8_t colour) {
    code.push_back(0xbf), put32(code, s.fb);
    code.push_back(0xb9), put32(code, s.fb_size);
    code.insert(code.end(), {0xb0, colour, 0xf3, 0xaa});
}

void jump_to_body(std::vector<std::uint8_t>& code, const Detour& s) {
    code.push_back(0xe9), put32(code, s.body - (s.at + static_cast<emu::Address>(code.size()) + 4));
}

std::string detour_patches(const Detour& s, const std::vector<std::uint8_t>& code) {
    std::vector<std::uint8_t> call = {0xe8};
    put32(call, s.at - (s.call.instruction.address + 5));
    return " --patch clear_framebuffer_body+0x0:" + hex_bytes(code) + " --patch " +
           quote(s.call.where() + ":" + hex_bytes(s.call.bytes) + "->" + hex_bytes(call));
}

} // namespace refcheck::cli_test
