#include "family/face_witness.hpp"

#include "refcheck/harness/divergences.hpp"

#include <algorithm>
#include <limits>

namespace refcheck::harness {

namespace {

// Offsets into a relocated model record (the archive format, docs/formats/apache-3d.md hdr.*).
constexpr std::uint32_t kHeaderEncoding = 0x00, kHeaderNormals = 0x38;
constexpr std::uint32_t kGridEncoding = 1;
constexpr std::uint32_t kPastReach = 0x10000; // how far past a texture a read is still "past" it
// rast.frame: rows of 320 pixels, 200 of them. A framebuffer of another size (a profile's) has no
// known rows: every face is taken to cover every pixel (covers_taint).
constexpr std::int32_t kFrameWidth = 320, kFrameHeight = 200;

// light.dot, light.clamp, light.level: the documented level of a normal under a model-space light.
std::int32_t documented_level(const std::int8_t n[3], const std::int32_t light[3]) {
    std::int64_t dot =
        (std::int64_t{n[0]} * light[0] + std::int64_t{n[1]} * light[1] + std::int64_t{n[2]} * light[2]) >> 14;
    auto d = static_cast<std::int32_t>(dot);
    if (d < 0) d = 0;
    d >>= 2;
    return std::min(d, 31);
}

} // namespace

FaceWitness::FaceWitness(Original& o, const std::vector<std::string>& face_routines) : o_(o) {
    const Profile& p = o.profile();
    off_view_model_ = p.offset_of("model_view", "model");
    off_view_encoding_ = p.offset_of("model_view", "encoding");
    off_view_light_ = p.offset_of("model_view", "light");
    off_view_count_ = p.offset_of("model_view", "normal_count");
    off_view_flat_ = p.offset_of("model_view", "flat_count");
    off_view_levels_ = p.offset_of("model_view", "levels");
    off_fv_level_ = p.offset_of("face_vertex", "level");
    off_fv_u_ = p.offset_of("face_vertex", "u");
    off_fv_v_ = p.offset_of("face_vertex", "v");
    off_fv_sx_ = p.offset_of("face_vertex", "sx");
    off_fv_sy_ = p.offset_of("face_vertex", "sy");
    fv_size_ = p.struct_size("face_vertex");
    gouraud_at_ = o.word_global("gouraud_enabled");
    framebuffer_ = p.address_of("framebuffer");
    framebuffer_size_ = p.data.at("framebuffer").size;
    texture_table_ = p.address_of("texture_table");
    texture_count_ = o.u32("texture_count");
    texture_count_at_ = o.word_global("texture_count");
    off_tex_type_ = p.offset_of("texture", "type");
    off_tex_height_ = p.offset_of("texture", "height");
    off_tex_pixels_ = p.offset_of("texture", "pixels");

    // The image's packet table, read once (after any seeded patch: it is what the original uses).
    const std::uint32_t stride = p.struct_size("packet_kind");
    const std::uint32_t table = p.address_of("packet_kinds");
    const std::uint32_t count = stride ? p.data.at("packet_kinds").size / stride : 0;
    const std::uint32_t o_header = p.offset_of("packet_kind", "header"),
                        o_vertex = p.offset_of("packet_kind", "per_vertex"),
                        o_normal = p.offset_of("packet_kind", "normal_at"),
                        o_tex = p.offset_of("packet_kind", "texture"),
                        o_gouraud = p.offset_of("packet_kind", "gouraud");
    const auto bytes = o.bytes(table, std::size_t{count} * stride);
    for (std::uint32_t t = 0; t < count; ++t) {
        const std::uint8_t* k = bytes.data() + std::size_t{t} * stride;
        kinds_.push_back({k[o_header], k[o_vertex], k[o_normal], k[o_tex] != 0, k[o_gouraud]});
    }

    o.tap("run_program",
          [this, view = o.arg("run_program", "view")](emu::Machine& m) { views_.push_back({view.u32(m)}); });
    o.on_return("run_program", [this](emu::Machine&) {
        if (!views_.empty()) views_.pop_back();
    });
    for (const auto& routine : face_routines) {
        o.tap(routine, [this, packet = o.arg(routine, "packet"), vertices = o.arg(routine, "vertices"),
                        level = o.arg(routine, "level")](emu::Machine& m) {
            face_entry(m, packet.u32(m), vertices.u32(m), level.i32(m)); // abi.face
        });
        o.on_return(routine, [this](emu::Machine& m) { face_return(m); });
    }
}

std::uint32_t FaceWitness::level_at(emu::Machine& m, std::uint32_t fv, std::size_t k) const {
    return m.read_u32(fv + static_cast<std::uint32_t>(k) * fv_size_ + off_fv_level_);
}

std::vector<Excuse> FaceWitness::witness(std::uint32_t packet, std::uint32_t fv, std::int32_t face_level) {
    std::vector<Excuse> out;
    if (views_.empty()) return out;
    emu::Machine& m = o_.machine();
    const std::uint32_t view = views_.back().address;
    const std::uint32_t model = m.read_u32(view + off_view_model_);
    const bool grid = m.read_u32(model + kHeaderEncoding) == kGridEncoding;
    if (grid)
        for (std::string_view f : {"screen_x", "screen_y", "screen_z"}) out.push_back({kGridModel, f, -1});
    const PacketKind* kind = this->kind(m.read_u8(packet));
    if (!kind || !kind->normal_at) return out;
    const std::uint8_t count = m.read_u8(packet + 1);
    const bool gouraud = m.read_u32(gouraud_at_) != 0;
    const std::uint32_t list = m.read_u32(model + kHeaderNormals);
    const std::uint32_t in_record = !list ? 0 : grid || gouraud ? m.read_u16(list) : m.read_u16(list + 2);
    const std::uint32_t lit = m.read_u32(view + (gouraud ? off_view_count_ : off_view_flat_));
    // Whether `level` for normal `index` is what fault.normal.missing gives, where the original reads.
    auto stray = [&](std::uint32_t index, std::int64_t level) {
        if (index < in_record) return false; // not a missing normal
        if (grid) {
            if (!list) return level == 31; // a grid model without a normal list is lit fully
            const auto b = m.read_bytes(list + 4 + 3 * index, 3);
            const std::int8_t n[3] = {static_cast<std::int8_t>(b[0]), static_cast<std::int8_t>(b[1]),
                                      static_cast<std::int8_t>(b[2])};
            std::int32_t light[3];
            for (int i = 0; i < 3; ++i)
                light[i] = static_cast<std::int32_t>(m.read_u32(view + off_view_light_ + 4 * i));
            return level == documented_level(n, light);
        }
        // Signed 16-bit: the level array's byte, which this draw did not light.
        if (index < lit) return false;
        const std::uint32_t levels = m.read_u32(view + off_view_levels_);
        return level == m.read_u8(levels + (index & 0xff));
    };
    const std::uint8_t face_normal = m.read_u8(packet + kind->normal_at);
    if (stray(face_normal, face_level)) out.push_back({kMissingNormal, "face_level", -1});
    const bool per_vertex = kind->gouraud && gouraud;
    for (std::uint8_t k = 0; k < count; ++k) {
        const std::uint32_t index =
            per_vertex
                ? m.read_u8(packet + kind->header + std::uint32_t{k} * kind->per_vertex + kind->gouraud)
                : face_normal;
        if (stray(index, static_cast<std::int32_t>(level_at(m, fv, k))))
            out.push_back({kMissingNormal, "vertex_levels", k});
    }
    return out;
}

std::uint32_t FaceWitness::classify(std::uint32_t packet, const IntList& u, const IntList& v) const {
    if (views_.empty()) return 0;
    const emu::Machine& m = o_.machine();
    std::uint32_t flags = 0;
    const std::uint32_t model = m.read_u32(views_.back().address + off_view_model_);
    const bool grid = m.read_u32(model + kHeaderEncoding) == kGridEncoding;
    if (grid) flags |= kGridModel;
    const PacketKind* kind = this->kind(m.read_u8(packet));
    if (!kind) return flags;
    const std::uint8_t count = m.read_u8(packet + 1);
    if (kind->normal_at) {
        const bool gouraud = m.read_u32(gouraud_at_) != 0;
        const std::uint32_t list = m.read_u32(model + kHeaderNormals);
        const std::uint32_t in_record = !list ? 0 : grid || gouraud ? m.read_u16(list) : m.read_u16(list + 2);
        bool missing = m.read_u8(packet + kind->normal_at) >= in_record;
        if (kind->gouraud && gouraud)
            for (std::uint8_t k = 0; k < count && !missing; ++k)
                missing = m.read_u8(packet + kind->header + std::uint32_t{k} * kind->per_vertex +
                                    kind->gouraud) >= in_record;
        if (missing) flags |= kMissingNormal;
    }
    if (kind->textured) {
        const std::uint32_t slot = m.read_u16(packet + 2);
        const std::uint32_t descriptor =
            slot < m.read_u32(texture_count_at_) ? m.read_u32(texture_table_ + 4 * slot) : 0;
        // A descriptor pointer to memory the machine lacks (the face's routine faults reading it)
        // has no image.
        const auto word_mapped = [&m, descriptor](std::uint32_t off) {
            return m.is_mapped(descriptor + off) && m.is_mapped(descriptor + off + 3);
        };
        const bool readable = descriptor && word_mapped(off_tex_type_) && word_mapped(off_tex_pixels_) &&
                              word_mapped(off_tex_height_);
        const std::uint32_t type = readable ? m.read_u32(descriptor + off_tex_type_) : 3;
        if (type <= 2) { // tex.stride: 0, 1, 2 -> 16, 32, 64 bytes per row; other types are invalid
            // u and v as the 32-bit words the face-vertex buffer holds: a negative one is past
            // every bound, as an unsigned address offset.
            const std::uint64_t stride = std::uint64_t{16} << type;
            const std::uint64_t size = stride * m.read_u32(descriptor + off_tex_height_);
            for (std::size_t k = 0; k < u.size() && k < v.size(); ++k) {
                if (static_cast<std::uint32_t>(u[k]) >= stride) flags |= kTextureRightEdge;
                if (static_cast<std::uint64_t>(v[k]) * stride + static_cast<std::uint64_t>(u[k]) >= size)
                    flags |= kTexturePastImage;
            }
        }
    }
    return flags;
}

void FaceWitness::arm(std::uint32_t causes) {
    emu::Machine& m = o_.machine();
    armed_ = causes;
    taint_.clear();
    tainted_ = 0;
    owner_.clear();
    faces_.clear();
    checkpoint_.clear();
    if (causes) {
        taint_.assign(framebuffer_size_, 0);
        owner_.assign(framebuffer_size_, 0);
        // rast.remap's tables as the image holds them at this draw (a family may build its
        // palette after the witness exists: read at construction they were the zeros of an
        // unbuilt table). Absent from a profile: no change is a remap.
        const Profile& p = o_.profile();
        for (auto [name, table] : {std::pair{"glass_table", &glass_}, std::pair{"haze_table", &haze_}})
            *table = p.data.count(name) ? o_.bytes(p.address_of(name), 256) : std::vector<std::uint8_t>{};
    }
    watch_writes(m);
    // fault.tex.past_alloc: a read by the face's own routine at or past the end of its texture's
    // image (face_entry), within its samples' reach, in the guest heap (where the image's textures
    // are loaded; a texture elsewhere is never witnessed). A read watch costs the slow memory path,
    // so it is armed only for inputs whose reimplementation frame omitted such a sample.
    if ((causes & kTexturePastImage) && !read_watch_) {
        read_watch_ =
            m.watch(m.heap().used(), emu::Access::read, [this](emu::Machine&, const emu::MemoryAccess& a) {
                if (faces_.empty() || !faces_.back().textured) return;
                const std::uint64_t end = faces_.back().texture_end;
                if (std::uint64_t{a.address} + a.size > end && a.address < faces_.back().sample_end)
                    faces_.back().past_texture = true;
            });
    } else if (!(causes & kTexturePastImage) && read_watch_) {
        m.remove_hook(*read_watch_);
        read_watch_.reset();
    }
}

void FaceWitness::watch_writes(emu::Machine& m) {
    const bool wanted = armed_ && !faces_.empty() && faces_.back().collects;
    if (wanted && !write_watch_)
        write_watch_ = m.watch({framebuffer_, framebuffer_ + framebuffer_size_}, emu::Access::write,
                               [this](emu::Machine&, const emu::MemoryAccess& a) {
                                   if (faces_.empty() || !faces_.back().collects) return;
                                   for (std::uint32_t i = 0; i < a.size; ++i)
                                       if (a.address + i - framebuffer_ < framebuffer_size_)
                                           faces_.back().written.push_back(a.address + i - framebuffer_);
                               });
    else if (!wanted && write_watch_) {
        m.remove_hook(*write_watch_);
        write_watch_.reset();
    }
}

bool FaceWitness::covers_taint(emu::Machine& m, std::uint32_t fv, std::uint8_t count) const {
    if (!tainted_ || !count) return false;
    if (framebuffer_size_ != std::uint32_t{kFrameWidth * kFrameHeight}) return true;
    std::int64_t x0 = std::numeric_limits<std::int32_t>::max(), y0 = x0;
    std::int64_t x1 = std::numeric_limits<std::int32_t>::min(), y1 = x1;
    for (std::uint8_t k = 0; k < count; ++k) {
        const std::uint32_t at = fv + static_cast<std::uint32_t>(k) * fv_size_;
        const auto x = static_cast<std::int32_t>(m.read_u32(at + off_fv_sx_));
        const auto y = static_cast<std::int32_t>(m.read_u32(at + off_fv_sy_));
        x0 = std::min<std::int64_t>(x0, x), x1 = std::max<std::int64_t>(x1, x);
        y0 = std::min<std::int64_t>(y0, y), y1 = std::max<std::int64_t>(y1, y);
    }
    x0 = std::max<std::int64_t>(x0 - 1, 0), y0 = std::max<std::int64_t>(y0 - 1, 0);
    x1 = std::min<std::int64_t>(x1 + 1, kFrameWidth - 1),
    y1 = std::min<std::int64_t>(y1 + 1, kFrameHeight - 1);
    for (std::int64_t y = y0; y <= y1; ++y)
        for (std::int64_t x = x0; x <= x1; ++x)
            if (taint_[static_cast<std::size_t>(y * kFrameWidth + x)]) return true;
    return false;
}

void FaceWitness::face_entry(emu::Machine& m, std::uint32_t packet, std::uint32_t fv, std::int32_t level) {
    if (!armed_) return;
    FaceInProgress f;
    f.id = ++next_id_;
    if (armed_ & kMissingNormal)
        for (const auto& x : witness(packet, fv, level))
            if (x.flag == kMissingNormal) f.flags |= kMissingNormal;
    if (const PacketKind* k = kind(m.read_u8(packet)); (armed_ & kTexturePastImage) && k && k->textured) {
        const std::uint32_t slot = m.read_u16(packet + 2);
        const std::uint32_t descriptor = slot < texture_count_ ? m.read_u32(texture_table_ + 4 * slot) : 0;
        // The end of its texture's image, from the image's own descriptor: pixels + stride x height
        // (tex.stride of its type; an invalid type has no stride and no end). It was the end of the
        // heap allocation holding the descriptor: the stand-in gives each texture its own, but a
        // heap that carves blocks out of larger regions (Watcom's), or an image that keeps its
        // textures in one block, puts the next texture's bytes there, and a read past the image
        // landed inside it, unwitnessed.
        // A descriptor pointer to memory the machine lacks (the face's routine faults reading it)
        // has no image.
        const auto word_mapped = [&m, descriptor](std::uint32_t off) {
            return m.is_mapped(descriptor + off) && m.is_mapped(descriptor + off + 3);
        };
        const bool readable = descriptor && word_mapped(off_tex_type_) && word_mapped(off_tex_pixels_) &&
                              word_mapped(off_tex_height_);
        const std::uint32_t type = readable ? m.read_u32(descriptor + off_tex_type_) : 3;
        if (type <= 2) {
            const std::uint64_t stride = std::uint64_t{16} << type;
            const std::uint64_t pixels = m.read_u32(descriptor + off_tex_pixels_);
            f.textured = true;
            f.texture_end = pixels + stride * m.read_u32(descriptor + off_tex_height_);
            // The reads that can be its samples (tex.sample: pixels + v * stride + u, u and v
            // interpolated between the vertices' values, so within their range): up to the
            // greatest v's row plus the greatest u, from the face-vertex array the original passed.
            // Other reads past the image (the face-vertex array itself, when it lies there) are not
            // samples.
            std::int64_t most_u = 0, most_v = 0;
            for (std::uint8_t k = 0; k < m.read_u8(packet + 1); ++k) {
                const std::uint32_t at = fv + static_cast<std::uint32_t>(k) * fv_size_;
                most_u =
                    std::max<std::int64_t>(most_u, static_cast<std::int32_t>(m.read_u32(at + off_fv_u_)));
                most_v =
                    std::max<std::int64_t>(most_v, static_cast<std::int32_t>(m.read_u32(at + off_fv_v_)));
            }
            const std::int64_t reach =
                static_cast<std::int64_t>(pixels) + most_v * static_cast<std::int64_t>(stride) + most_u + 1;
            f.sample_end = std::min<std::uint64_t>(
                f.texture_end + kPastReach, static_cast<std::uint64_t>(std::max<std::int64_t>(reach, 0)));
        }
    }
    // A face that may carry a cause: the framebuffer bytes it writes, watched for its call only (a
    // value written equal to the one there is still written: a face at a stray level may paint the
    // colour an earlier face left). Any other face is seen by what it changed in the framebuffer
    // (no watch: most faces of a draw are these), and its writes are watched too when it may
    // repaint a pixel with a cause in the colour there (its box covers one) or another face is
    // running (its pixels' taint waits for that face's return). The slow memory path a watch costs
    // is paid only then.
    f.carrier = f.flags || f.textured;
    f.collects = f.carrier || !faces_.empty() || covers_taint(m, fv, m.read_u8(packet + 1));
    // A face with a face nested in it collects from then on: what the nested face leaves may carry a
    // cause the outer face then repaints in the same colour.
    if (!faces_.empty()) faces_.back().collects = true;
    f.glass = !f.carrier && !glass_.empty();
    f.haze = !f.carrier && !haze_.empty();
    // What was written since the last entry or return is the running face's, or (none running)
    // was written outside the face routines (a shadow's spans, say).
    std::vector<std::uint8_t> now;
    if (tainted_ || !faces_.empty()) now = m.read_bytes(framebuffer_, framebuffer_size_);
    settle(now);
    faces_.push_back(std::move(f));
    checkpoint_ = std::move(now);
    watch_writes(m);
}

void FaceWitness::settle(const std::vector<std::uint8_t>& now) {
    FaceInProgress* f = faces_.empty() ? nullptr : &faces_.back();
    const bool compared = !now.empty() && checkpoint_.size() == now.size();
    // A pixel the running face wrote: its taint waits for the face's return, where the face decides
    // it if it is still the last writer. Whether the face is a remap is judged on every such pixel.
    auto take = [&](std::uint32_t p, std::uint8_t before, std::uint8_t after) {
        if (owner_[p] != f->id) {
            f->owned.push_back({p, owner_[p]});
            owner_[p] = f->id;
        }
        if (f->glass || f->haze) {
            f->glass = f->glass && after == glass_[before];
            f->haze = f->haze && after == haze_[before];
        }
    };
    if (!f) {
        // Outside the face routines: a direct write, which clears the pixels it changed.
        if (compared)
            for (std::uint32_t p = 0; p < framebuffer_size_ && tainted_; ++p)
                if (taint_[p] && now[p] != checkpoint_[p]) set_taint(p, 0);
        return;
    }
    if (compared)
        for (std::uint32_t p = 0; p < framebuffer_size_; ++p)
            if (now[p] != checkpoint_[p]) take(p, checkpoint_[p], now[p]);
    for (const std::uint32_t p : f->written)
        if (owner_[p] != f->id || !compared) {
            // A write the comparison did not show (the value already there, or no comparison: a
            // face that may carry a cause, entered with no pixel carrying one, is no remap).
            const std::uint8_t value = compared              ? now[p]
                                       : f->glass || f->haze ? o_.machine().read_u8(framebuffer_ + p)
                                                             : 0;
            take(p, compared ? checkpoint_[p] : value, value);
        }
    f->written.clear();
}

void FaceWitness::face_return(emu::Machine& m) {
    if (!armed_ || faces_.empty()) return;
    std::vector<std::uint8_t> now;
    if (!checkpoint_.empty()) now = m.read_bytes(framebuffer_, framebuffer_size_);
    settle(now);
    FaceInProgress f = std::move(faces_.back());
    faces_.pop_back();
    // div.taint, the pixel's last writer decides: a face with causes adds them to every pixel it
    // wrote; a face that might have had one but did not clears them; any other face clears them
    // unless it is a remap (rast.remap: the pixel's value still comes from the face with the
    // cause). A pixel a later face (nested in this one) wrote is that face's.
    const std::uint32_t flags = f.flags | (f.past_texture ? kTexturePastImage : 0u);
    const bool remap = f.glass || f.haze;
    // A remap leaves the pixel's taint to the writer before it: a running face it is nested in
    // decides the pixel at its own return (the value still comes from that face's write).
    for (const auto& [p, before] : f.owned) {
        if (owner_[p] != f.id) continue;
        owner_[p] = 0;
        if (f.carrier)
            set_taint(p, flags ? taint_[p] | flags : 0);
        else if (!remap)
            set_taint(p, 0);
        else
            owner_[p] = before;
    }
    if (tainted_ || !faces_.empty()) {
        if (now.empty()) now = m.read_bytes(framebuffer_, framebuffer_size_);
        checkpoint_ = std::move(now);
    } else {
        checkpoint_.clear();
    }
    watch_writes(m);
}

void FaceWitness::set_taint(std::uint32_t p, std::uint32_t causes) {
    const bool was = taint_[p] != 0;
    taint_[p] = static_cast<std::uint8_t>(causes);
    if (was && !causes) --tainted_;
    if (!was && causes) ++tainted_;
}

std::vector<std::uint8_t> FaceWitness::take_taint() {
    if (armed_ && tainted_ && faces_.empty())
        settle(o_.machine().read_bytes(framebuffer_, framebuffer_size_));
    std::vector<std::uint8_t> out = std::move(taint_);
    taint_.clear();
    checkpoint_.clear();
    if (out.empty()) out.assign(framebuffer_size_, 0);
    return out;
}

} // namespace refcheck::harness
