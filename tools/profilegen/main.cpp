// profilegen IMAGE OUT.json - writes the image profile of a stand-in built with descriptors.
// Exit 0 written, 2 error (nothing written).
#include <cstdio>
#include <fstream>
#include <iostream>

#include "refcheck/profilegen/profile.hpp"

int main(int argc, char** argv) {
    using namespace refcheck::profilegen;
    if (argc != 3) {
        std::cerr << "usage: profilegen IMAGE OUT.json\n";
        return 2;
    }
    try {
        ImageSymbols image = read_image_symbols(argv[1]);
        std::string text = build_profile(image, parse_descriptors(image.descriptor_section)).dump(2) + "\n";
        std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
        if (!out || !(out << text) || !out.flush()) {
            std::remove(argv[2]);
            throw ProfileError(std::string(argv[2]) + ": cannot write");
        }
    } catch (const ProfileError& e) {
        std::cerr << "profilegen: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
