// The original's side of the evidence for known divergences: what the original itself shows, from
// its own execution and memory, about a face it drew. Every offset and address comes from the
// profile (the packet table the image uses, the model_view layout its program walk receives, the
// globals), never from the reimplementation.
//
// - Packets are decoded with the image's own packet table (profile data "packet_kinds", struct
//   "packet_kind"): header size, bytes per vertex, face-normal offset, texture flag, per-vertex
//   normal offset.
// - fault.normal.missing: a level position (the face level, or vertex k's level) whose normal index
//   (from the packet the original passed) is not below the normal count of the original's relocated
//   record is witnessed when the level the original passed equals what the documented fault gives
//   at the address it reads: for a signed-16-bit model, the byte of its level array
//   (model_view.levels + index) that its own lit count (model_view.normal_count or flat_count, per
//   gouraud_enabled) left unlit in this draw; for a grid model, the light.dot/clamp/level formula
//   over the three bytes at normals + 4 + 3 * index (adjacent record bytes) with its model-space
//   light (model_view.light). The view is the one run_program (profile role "program_walk") was
//   entered with and has not returned from.
// - geo.grid.rounding: the original's relocated record says grid encoding.
// - Frames (div.taint, as the reimplementation's raster keeps it; the pixel's last writer decides):
//   while a face whose levels were witnessed (or during which the original read past the heap
//   allocation of its texture, at an address its samples can reach: below its pixels plus stride *
//   its greatest v plus its greatest u, fault.tex.past_alloc) is drawn by the original's own face
//   routine, the pixels it writes into the framebuffer gain that cause (the original's per-pixel
//   taint); a face that might have had a cause (a textured one) but did not clears the pixels it
//   wrote. Any other face clears the pixels it changed or wrote, unless it is a remap (every pixel
//   it changed or wrote became the image's glass table entry of its old value, or every one its
//   haze table entry, profile data glass_table and haze_table as the image holds them at the draw:
//   rast.remap), which keeps them. Such a face is seen by comparing the framebuffer at its entry and
//   return, as it is most of a draw, and its writes are watched too (a write of the value already
//   there is still its write) only when the box of its screen vertices, a pixel wider, covers a
//   pixel carrying a cause, or it runs inside another face (or another face ran inside it). Writes
//   between faces (outside the face routines: a shadow's spans) clear the pixels they changed. Face
//   routines may nest (a retail image's face routine may call another): what happens between two
//   entries or returns is the innermost running face's, a face decides its pixels at its return
//   only where it is still the last writer, and a remap hands them back to the writer before it.
//   The framebuffer write watch is armed only for the faces that may carry a cause
//   or cover one, in the draw calls of inputs where the reimplementation reports such a pixel
//   (arm()), the heap read watch only for inputs with an omitted texture sample; never for a whole
//   run.
#pragma once

#include "refcheck/harness/original.hpp"
#include "refcheck/harness/record.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace refcheck::harness {

// One packet kind of the image's table.
struct PacketKind {
    std::uint8_t header = 0;     // bytes including type and count
    std::uint8_t per_vertex = 0; // bytes per vertex
    std::uint8_t normal_at = 0;  // offset of the face normal byte in the header (0: unshaded)
    bool textured = false;       // u16 texture slot at header offset 2
    std::uint8_t gouraud = 0;    // offset of the per-vertex normal index in a vertex (0: none)
};

class FaceWitness {
public:
    // Reads the packet table and layouts from the profile; taps run_program's entry and return.
    // `face_routines`: the face routines that run (frames); their calls are witnessed for pixels.
    FaceWitness(Original& original, const std::vector<std::string>& face_routines);

    const PacketKind* kind(std::uint8_t type) const {
        return type < kinds_.size() && kinds_[type].header ? &kinds_[type] : nullptr;
    }
    // The original's excuses for a face it passed: packet address, its face-vertex buffer (levels
    // read at the profile's face_vertex.level), the face level it passed.
    std::vector<Excuse> witness(std::uint32_t packet, std::uint32_t face_vertices, std::int32_t face_level);
    // The original's own classification of a face it passed, as documented-fault flags
    // (divergences.hpp), from its memory alone: kGridModel when the view's model record says grid
    // encoding; kMissingNormal when a normal the face uses (its face normal, and its vertex normals
    // when Gouraud shading is on and the packet kind has them) is not below the record's normal
    // count; kTextureRightEdge when a texture coordinate u (`u`, from its face-vertex buffer) is at or
    // past the row stride of the texture the image's table holds for the packet's slot (tex.stride of
    // the descriptor's type), kTexturePastImage when v * stride + u is at or past stride * height.
    // What the rule predicates' `flag` reads on the original's side (rule_predicates.hpp).
    std::uint32_t classify(std::uint32_t packet, const IntList& u, const IntList& v) const;

    // Frames: before an input's draw call, the causes to watch it for (those an allowed entry may
    // explain in pixels and the reimplementation's frame carries; 0: none); after it, take_taint()
    // gives the original's per-pixel taint (all zero when not armed).
    void arm(std::uint32_t causes);
    std::vector<std::uint8_t> take_taint();
    void begin() { views_.clear(); }

private:
    void face_entry(emu::Machine& m, std::uint32_t packet, std::uint32_t face_vertices, std::int32_t level);
    void face_return(emu::Machine&);
    void set_taint(std::uint32_t pixel, std::uint32_t causes);
    // Gives what was written since the last face entry or return to its writer: the innermost
    // running face, or (none running) the code between faces. `now`: the framebuffer (empty: not
    // read, no pixel carrying a cause and no face nested).
    void settle(const std::vector<std::uint8_t>& now);
    // Whether the box of the face's screen vertices, one pixel wider, covers a pixel with a cause.
    bool covers_taint(emu::Machine& m, std::uint32_t face_vertices, std::uint8_t count) const;
    void watch_writes(emu::Machine& m);
    std::uint32_t level_at(emu::Machine& m, std::uint32_t fv, std::size_t k) const;

    Original& o_;
    std::vector<PacketKind> kinds_;
    std::uint32_t off_view_model_, off_view_encoding_, off_view_light_, off_view_count_, off_view_flat_,
        off_view_levels_;
    std::uint32_t off_fv_level_, off_fv_u_, off_fv_v_, off_fv_sx_, off_fv_sy_, fv_size_;
    std::uint32_t gouraud_at_, framebuffer_, framebuffer_size_;
    struct View {
        std::uint32_t address;
    };
    std::vector<View> views_; // run_program calls in progress, innermost last

    // Frames.
    std::uint32_t armed_ = 0; // the causes watched for in this draw
    std::optional<emu::HookId> read_watch_, write_watch_;
    std::uint32_t texture_table_ = 0, texture_count_ = 0, texture_count_at_ = 0;
    std::uint32_t off_tex_type_ = 0, off_tex_height_ = 0, off_tex_pixels_ = 0;
    std::vector<std::uint8_t> glass_, haze_; // the image's remap tables (rast.remap)
    std::vector<std::uint8_t> taint_;
    std::uint32_t tainted_ = 0; // pixels of taint_ carrying some cause
    // The last writer seen of each pixel whose taint waits for a running face's return: its id (0:
    // decided).
    std::vector<std::uint32_t> owner_;
    std::uint32_t next_id_ = 0;
    // The framebuffer at the last face entry or return, when read (see settle).
    std::vector<std::uint8_t> checkpoint_;
    struct FaceInProgress {
        std::uint32_t id = 0;
        std::uint32_t flags = 0;       // causes witnessed for its levels
        bool textured = false;         // its texture has an image end (texture_end)
        std::uint64_t texture_end = 0; // end of its texture's image: pixels + stride x height
        std::uint64_t sample_end = 0;  // end of the bytes its samples can read (see face_entry)
        bool past_texture = false;     // it read past that end, below sample_end
        bool carrier = false;          // it may carry a cause: what it writes takes its causes
        bool collects = false; // its writes are watched (carrier, covering a cause, nested or nesting)
        bool glass = false, haze = false;   // every pixel it changed or wrote so far is that remap's
        std::vector<std::uint32_t> written; // framebuffer offsets it wrote since the last settle
        // Pixels it was seen to write (owner_ says if it is still the last writer), each with the
        // writer before it (0: decided; a remap hands the pixel back to it).
        std::vector<std::pair<std::uint32_t, std::uint32_t>> owned;
    };
    std::vector<FaceInProgress> faces_;
};

} // namespace refcheck::harness
