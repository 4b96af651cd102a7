#include "family/recorder.hpp"

#include "refcheck/harness/divergences.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

namespace refcheck::harness {

namespace {

constexpr std::uint32_t kHeaderProgram = 0x3c; // hdr.program (relocated by the loader)

// The fields built in place on `e`, whose field vector keeps its capacity from event to event
// (EventStream): no Field temporary, and no allocation once the stream has run.
void control_event(EventRecord& e, std::int64_t record, IntList path, std::int64_t offset,
                   std::int64_t opcode, std::int64_t next) {
    e.kind = "control_flow";
    e.fields.reserve(5);
    e.fields.emplace_back("record", record);
    e.fields.emplace_back("path", std::move(path));
    e.fields.emplace_back("offset", offset);
    e.fields.emplace_back("opcode", opcode);
    e.fields.emplace_back("next", next);
    e.key_fields = 3;
}

void winding_event(EventRecord& e, std::int64_t record, IntList path, std::int64_t w) {
    e.kind = "winding_decision";
    e.fields.reserve(3);
    e.fields.emplace_back("record", record);
    e.fields.emplace_back("path", std::move(path));
    e.fields.emplace_back("winding", w);
    e.key_fields = 2;
}

} // namespace

namespace {
std::vector<std::string> running_faces(const std::vector<std::string>& run) {
    std::vector<std::string> out;
    for (const FaceRoutine& f : kFaceRoutines)
        if (std::find(run.begin(), run.end(), f.name) != run.end()) out.emplace_back(f.name);
    return out;
}
} // namespace

FaceVertices screen_vertices(const std::vector<events::ScreenVertex>& screen) {
    FaceVertices out;
    out.sx.reserve(screen.size());
    out.sy.reserve(screen.size());
    out.sz.reserve(screen.size());
    for (const auto& p : screen) {
        out.sx.push_back(p.sx);
        out.sy.push_back(p.sy);
        out.sz.push_back(p.z);
    }
    return out;
}

FaceVertexLayout::FaceVertexLayout(const Profile& p)
    : u_(p.offset_of("face_vertex", "u")), v_(p.offset_of("face_vertex", "v")),
      level_(p.offset_of("face_vertex", "level")), sx_(p.offset_of("face_vertex", "sx")),
      sy_(p.offset_of("face_vertex", "sy")), z_(p.offset_of("face_vertex", "z")) {
    size_ = p.struct_size("face_vertex"); // the stride: the struct's "size" (a padded one too)
    // Each is read as a 32-bit word from a host copy of the vertices: a narrower field would read
    // past it (and, last in the struct, past the copy).
    for (const auto& f : p.structs.at("face_vertex"))
        if ((f.name == "u" || f.name == "v" || f.name == "level" || f.name == "sx" || f.name == "sy" ||
             f.name == "z") &&
            f.size != 4)
            throw ProfileError(p.file.string() + ": face_vertex." + f.name + " is " + std::to_string(f.size) +
                               " bytes; the harness reads it as a 32-bit word");
}

FaceVertices FaceVertexLayout::read(const emu::Machine& m, std::uint32_t at, std::size_t count) const {
    bytes_.resize(count * size_);
    m.read(at, bytes_);
    auto word = [&](std::size_t i, std::uint32_t off) -> std::int64_t {
        const std::uint8_t* p = bytes_.data() + i * size_ + off;
        return static_cast<std::int32_t>(p[0] | p[1] << 8 | p[2] << 16 |
                                         static_cast<std::uint32_t>(p[3]) << 24);
    };
    FaceVertices out;
    for (IntList* column : {&out.u, &out.v, &out.levels, &out.sx, &out.sy, &out.sz}) column->reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        out.u.push_back(word(i, u_));
        out.v.push_back(word(i, v_));
        out.levels.push_back(word(i, level_));
        out.sx.push_back(word(i, sx_));
        out.sy.push_back(word(i, sy_));
        out.sz.push_back(word(i, z_));
    }
    return out;
}

Recorder::Recorder(Original& o, const std::vector<std::string>& run)
    : o_(o), witness_(o, running_faces(run)), face_vertices_(o.profile()) {
    const Profile& p = o.profile();
    off_inst_record_ = p.offset_of("instance", "model_id");
    off_inst_model_ = p.offset_of("instance", "model");
    off_inst_position_ = p.offset_of("instance", "pos");
    off_inst_rotation_ = p.offset_of("instance", "rot");
    off_inst_child_ = p.offset_of("instance", "attach");

    // Every argument is read where the routine's profile entry ("args", by name) puts it, never
    // from fixed registers: a face routine taking them in another order needs a profile edit only.
    for (const FaceRoutine& f : kFaceRoutines) {
        // A flags argument is the stand-in's (abi.face, Chosen): an image whose face routines take
        // none names only the other three, and the entry point says primary or secondary.
        const auto& listed = p.routine(f.name).args;
        const bool has_flags =
            std::any_of(listed.begin(), listed.end(), [](const ProfileArg& a) { return a.name == "flags"; });
        const FaceArgs args{o.arg(f.name, "packet"),
                            o.arg(f.name, "vertices"),
                            o.arg(f.name, "level"),
                            has_flags ? std::optional<ArgSlot>(o.arg(f.name, "flags")) : std::nullopt,
                            f.clipped,
                            f.secondary}; // abi.face
        if (std::find(run.begin(), run.end(), f.name) != run.end()) {
            o.tap(f.name, [this, args](emu::Machine& m) { face(m, args); });
            o.note_ran(f.name);
        } else {
            const auto nargs = static_cast<unsigned>(p.routine(f.name).args.size());
            o.replace(f.name, nargs, [this, args](emu::Machine& m, const emu::Args&) {
                face(m, args);
                return 0u;
            });
        }
    }
    o.on_return("polygon_winding_",
                [this](emu::Machine& m) { winding(static_cast<std::int32_t>(m.reg(emu::Reg::eax))); });
    o.note_ran("polygon_winding_");
    o.tap("draw_attached_object_", [this, parent = o.arg("draw_attached_object_", "parent"),
                                    slot = o.arg("draw_attached_object_", "slot")](emu::Machine& m) {
        attach_enter(parent.u32(m), slot.u32(m)); // abi.attach
    });
    o.on_return("draw_attached_object_", [this](emu::Machine&) { attach_leave(); });
    // The state switches (ops 3, 4, 5; profile role control_flow): the instruction at entry, where
    // the walk goes next from the returned pointer (op.ifmask, op.choose, op.select).
    for (const char* routine : {"op_ifmask", "op_choose", "op_select"}) {
        o.tap(routine, [this, op = o.arg(routine, "op")](emu::Machine& m) {
            switches_.push_back(op.u32(m)); // the instruction
        });
        o.on_return(routine, [this](emu::Machine& m) { control(m.reg(emu::Reg::eax)); });
        o.note_ran(routine);
    }
    o.note_ran("draw_3d_object_");
}

void Recorder::begin(std::uint32_t record, std::uint32_t instance) {
    o_.forget_pending_returns();
    witness_.begin();
    frames_.assign(1, Frame{record, instance, false});
    switches_.clear();
    slots_.clear();
    events_.clear();
}

void Recorder::end() {
    frames_.clear();
    slots_.clear();
    switches_.clear();
}

IntList Recorder::path() const { return slots_; }

const Recorder::Frame& Recorder::drawing(const char* what) const {
    if (frames_.empty())
        throw std::runtime_error(std::string(what) +
                                 " was called outside a draw_3d_object_ call: the harness records the "
                                 "original's draws only, and this call is not one");
    return frames_.back();
}

EventRecord* Recorder::append() {
    if (!o_.admit_event()) return nullptr; // past the case's events_per_call: the call is being stopped
    if (observer_) observer_(events_.size());
    return &events_.append();
}

void Recorder::face(emu::Machine& m, const FaceArgs& args) {
    face(args.packet.u32(m), args.vertices.u32(m), args.level.i32(m),
         args.flags ? args.flags->u32(m) : (args.secondary ? 1u : 0u), args.clipped, args.secondary);
}

void Recorder::face(std::uint32_t packet, std::uint32_t fv, std::int32_t face_level, std::uint32_t flags,
                    bool clipped, bool entry_secondary) {
    emu::Machine& m = o_.machine();
    const Frame& top = drawing(entry_secondary ? "a secondary face routine" : "a primary face routine");
    const bool secondary = flags & 1;
    // `secondary` is the entry point the image called (abi.face.select), which its flags argument
    // must repeat (abi.face: bit 0 secondary, other bits 0). When they disagree the field holds the
    // flags word itself, which no boolean of the reimplementation's matches: a draw calling the
    // wrong routine with the right flags, or the right routine with wrong flags, both differ.
    const Value secondary_field =
        flags == (entry_secondary ? 1u : 0u) ? Value{entry_secondary} : Value{std::int64_t{flags}};
    const std::uint32_t model = m.read_u32(top.instance + off_inst_model_);
    const std::uint32_t program = m.read_u32(model + kHeaderProgram);
    const std::uint32_t op_at = packet - (secondary ? 2 : 1);
    const std::uint8_t type = m.read_u8(packet);
    const std::uint8_t count = m.read_u8(packet + 1);
    // Decoded with the image's own packet table (FaceWitness::kind), never the reimplementation's.
    const PacketKind* kind = witness_.kind(type);
    IntList material, vertices, vertex_normals;
    std::int64_t texture = -1, face_normal = -1;
    if (kind) {
        // The packet's header, then its per-vertex records, read at once.
        const std::size_t header_size = kind->header;
        bytes_.resize(header_size + std::size_t{count} * kind->per_vertex);
        m.read(packet, bytes_);
        const std::uint8_t* header = bytes_.data();
        for (std::size_t i = 2; i < header_size; ++i) material.push_back(header[i]);
        if (kind->textured && header_size >= 4) texture = header[2] | header[3] << 8;
        if (kind->normal_at && kind->normal_at < header_size) face_normal = header[kind->normal_at];
        const std::uint8_t* records = bytes_.data() + header_size;
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint8_t* r = records + i * kind->per_vertex;
            vertices.push_back(r[0]);
            if (kind->gouraud) vertex_normals.push_back(r[kind->gouraud]);
        }
    }
    FaceVertices fvs = face_vertices_.read(m, fv, count);
    std::vector<Excuse> excuses = witness_.witness(packet, fv, face_level);
    const std::uint32_t classified = witness_.classify(packet, fvs.u, fvs.v);
    EventRecord* e = append();
    if (!e) return;
    e->kind = "face_draw";
    e->flags = classified;
    // Each field built in place: no Field temporary to move.
    auto& f = e->fields;
    f.reserve(19);
    f.emplace_back("record", std::int64_t{top.record});
    f.emplace_back("path", path());
    f.emplace_back("offset", std::int64_t{op_at - program});
    f.emplace_back("opcode", std::int64_t{m.read_u8(op_at)});
    f.emplace_back("secondary", secondary_field);
    f.emplace_back("clipped", clipped);
    f.emplace_back("type", std::int64_t{type});
    f.emplace_back("material", std::move(material));
    f.emplace_back("vertices", std::move(vertices));
    f.emplace_back("texture", texture);
    f.emplace_back("u", std::move(fvs.u));
    f.emplace_back("v", std::move(fvs.v));
    f.emplace_back("face_normal", face_normal);
    f.emplace_back("vertex_normals", std::move(vertex_normals));
    f.emplace_back("face_level", std::int64_t{face_level});
    f.emplace_back("vertex_levels", std::move(fvs.levels));
    f.emplace_back("screen_x", std::move(fvs.sx));
    f.emplace_back("screen_y", std::move(fvs.sy));
    f.emplace_back("screen_z", std::move(fvs.sz));
    e->key_fields = 3;
    if (!excuses.empty()) e->excuses = std::move(excuses); // an empty one would drop the spare's capacity
}

void Recorder::winding(std::int32_t w) {
    const Frame& top = drawing("polygon_winding_");
    if (EventRecord* e = append()) winding_event(*e, top.record, path(), w);
}

void Recorder::control(std::uint32_t next) {
    if (switches_.empty()) return;
    const std::uint32_t op = switches_.back();
    switches_.pop_back();
    emu::Machine& m = o_.machine();
    const Frame& top = drawing("a state switch (op_ifmask, op_choose, op_select)");
    const std::uint32_t model = m.read_u32(top.instance + off_inst_model_);
    const std::uint32_t program = m.read_u32(model + kHeaderProgram);
    if (EventRecord* e = append())
        control_event(*e, top.record, path(), op - program, m.read_u8(op),
                      next ? std::int64_t{next} - program : -1);
}

void Recorder::attach_enter(std::uint32_t parent, std::uint32_t slot) {
    emu::Machine& m = o_.machine();
    const Frame top = drawing("draw_attached_object_");
    const std::uint32_t child = m.read_u32(parent + off_inst_child_ + 4 * slot);
    if (!child) {
        frames_.push_back({top.record, top.instance, false});
        return;
    }
    IntList position, rotation;
    for (int i = 0; i < 3; ++i)
        position.push_back(static_cast<std::int32_t>(m.read_u32(child + off_inst_position_ + 4 * i)));
    for (int i = 0; i < 9; ++i)
        rotation.push_back(static_cast<std::int32_t>(m.read_u32(child + off_inst_rotation_ + 4 * i)));
    const std::uint32_t record = m.read_u32(child + off_inst_record_);
    if (EventRecord* e = append()) {
        e->kind = "attached_draw";
        e->fields.reserve(6);
        e->fields.emplace_back("record", std::int64_t{top.record});
        e->fields.emplace_back("path", path());
        e->fields.emplace_back("slot", std::int64_t{slot});
        e->fields.emplace_back("model", std::int64_t{record});
        e->fields.emplace_back("position", std::move(position));
        e->fields.emplace_back("rotation", std::move(rotation));
        e->key_fields = 3;
    }
    frames_.push_back({record, child, true});
    slots_.push_back(slot);
}

void Recorder::attach_leave() {
    if (frames_.size() <= 1) return; // a return with no matching entry: never pop the root
    if (frames_.back().pushed_slot) slots_.pop_back();
    frames_.pop_back();
}

namespace {

Value to_value(const events::FieldValue& v) {
    return std::visit(
        [](const auto& x) -> Value {
            if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::vector<std::int64_t>>)
                return IntList(x.begin(), x.end());
            else
                return x;
        },
        v);
}

// A face event in the shape of events::visit_fields (the same names, in its order, flags left out),
// built straight from the struct: no intermediate FieldValue and no allocation for short lists. The
// program family makes millions of these.
void face_fields(const events::FaceDraw& f, std::vector<Field>& out) {
    const auto& n = events::kFaceDrawFields;
    out.reserve(n.size() - 1);
    auto list = [](const auto& xs) { return IntList(xs.begin(), xs.end()); };
    out.emplace_back(Name::of_static(n[0]), std::int64_t{f.record});
    out.emplace_back(Name::of_static(n[1]), list(f.path));
    out.emplace_back(Name::of_static(n[2]), std::int64_t{f.offset});
    out.emplace_back(Name::of_static(n[3]), std::int64_t{f.opcode});
    out.emplace_back(Name::of_static(n[4]), f.secondary);
    out.emplace_back(Name::of_static(n[5]), f.clipped);
    out.emplace_back(Name::of_static(n[6]), std::int64_t{f.type});
    out.emplace_back(Name::of_static(n[7]), list(f.material));
    out.emplace_back(Name::of_static(n[8]), list(f.vertices));
    out.emplace_back(Name::of_static(n[9]), std::int64_t{f.texture});
    out.emplace_back(Name::of_static(n[10]), list(f.u));
    out.emplace_back(Name::of_static(n[11]), list(f.v));
    out.emplace_back(Name::of_static(n[12]), std::int64_t{f.face_normal});
    out.emplace_back(Name::of_static(n[13]), list(f.vertex_normals));
    out.emplace_back(Name::of_static(n[14]), std::int64_t{f.face_level});
    out.emplace_back(Name::of_static(n[15]), list(f.vertex_levels));
    FaceVertices screen = screen_vertices(f.screen);
    out.emplace_back(Name::of_static(n[16]), std::move(screen.sx));
    out.emplace_back(Name::of_static(n[17]), std::move(screen.sy));
    out.emplace_back(Name::of_static(n[18]), std::move(screen.sz));
    static_assert(events::kFaceDrawFields.size() == 20 && events::kFaceDrawFields[19] == "flags");
}

} // namespace

void convert_reimpl(const std::vector<events::Event>& in, EventStream& out,
                    std::vector<const events::Event*>& control_flow) {
    for (const auto& ev : in) {
        EventRecord& e = out.append();
        if (const auto* c = std::get_if<events::ControlFlow>(&ev)) {
            // Compared as the original shows it: where the walk goes next (value, taken and target
            // are the reimplementation's own diagnostics).
            control_flow.push_back(&ev);
            control_event(e, c->record, IntList(c->path.begin(), c->path.end()), c->offset, c->opcode,
                          c->next);
            continue;
        }
        e.kind = Name::of_static(events::kind_name(ev));
        if (const auto* f = std::get_if<events::FaceDraw>(&ev)) {
            face_fields(*f, e.fields);
        } else {
            events::visit_fields(ev, [&](std::string_view name, const events::FieldValue& value) {
                if (name == "flags" || name == "offset" || name == "opcode") return;
                e.fields.push_back({Name::of_static(name), to_value(value)});
            });
        }
        if (const auto* f = std::get_if<events::FaceDraw>(&ev)) {
            e.flags = f->flags.bits();
            // A grid face: every screen coordinate, each vertex's with the camera-space point the
            // tolerance's box is drawn around (div.grid_tolerance).
            if (f->flags.has(events::FaceFlag::GridRounding))
                for (std::string_view s : {"screen_x", "screen_y", "screen_z"}) {
                    e.excuses.push_back({kGridModel, s, -1});
                    for (std::size_t k = 0; k < f->camera.size(); ++k)
                        e.excuses.push_back({kGridModel, s, static_cast<std::int32_t>(k), f->camera[k]});
                }
            if (!f->missing_levels.empty() && f->missing_levels[0])
                e.excuses.push_back({kMissingNormal, "face_level", -1});
            for (std::size_t k = 1; k < f->missing_levels.size(); ++k)
                if (f->missing_levels[k])
                    e.excuses.push_back({kMissingNormal, "vertex_levels", static_cast<std::int32_t>(k - 1)});
        }
        e.key_fields =
            std::holds_alternative<events::FaceDraw>(ev) || std::holds_alternative<events::AttachedDraw>(ev)
                ? 3
                : 2;
    }
}

} // namespace refcheck::harness
