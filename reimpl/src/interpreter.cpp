#include "refcheck/reimpl/interpreter.hpp"

#include <fmt/format.h>

#include "refcheck/reimpl/face_event.hpp"
#include "refcheck/reimpl/geometry.hpp"
#include "program_walk.hpp"

namespace refcheck::reimpl {

// One model draw: one instance's program walked with its own transform and levels; faces, windings,
// control flow and attachments become events.
class ModelDraw final : public ProgramVisitor {
public:
    ModelDraw(Interpreter& interpreter, const Instance& instance, const DrawInput& input,
              std::vector<std::int32_t>& path, events::EventSink& sink)
        : interpreter_(interpreter), instance_(instance), record_(interpreter.models_.record(instance.model)),
          program_(interpreter.program(instance.model)), input_(input), path_(path), sink_(sink) {}

    void run();

    void winding(const Instruction& in, std::int32_t w) override;
    void face(const Instruction& in, const Packet& packet) override;
    void control(const Instruction& in, std::uint32_t value, std::int32_t taken, std::int64_t target,
                 std::int64_t next) override;
    void attach(const Instruction& in, std::uint8_t slot) override;
    [[noreturn]] void fail(std::uint32_t at, std::string_view detail) override;
    void reached_invalid(const Instruction& in, std::string_view why, bool ends_draw) override {
        interpreter_.stops_.push_back({record_.index, in.offset, std::string(why), ends_draw});
    }

private:
    void prepare_vertices();
    void prepare_levels();

    Interpreter& interpreter_;
    const Instance& instance_;
    const ModelRecord& record_;
    const Program& program_;
    const DrawInput& input_;
    std::vector<std::int32_t>& path_;
    events::EventSink& sink_;

    std::vector<ScreenPoint> screen_;
    std::vector<Vec3> camera_; // grid models only (div.grid_tolerance)
    std::vector<std::int32_t> levels_;
};

void ModelDraw::run() {
    // A list cut by the record's end (CutLists::Clamp): the draw goes on with what fits.
    for (const std::string& cut : record_.cut) interpreter_.stops_.push_back({record_.index, 0, cut, false});
    if (program_.empty()) return; // hdr.absent.empty: an absent program draws nothing
    prepare_vertices();
    prepare_levels();
    walk_program(program_, screen_, input_.state, *this);
}

void ModelDraw::prepare_vertices() {
    const CameraTransform ct = camera_transform(input_.camera, instance_.transform);
    std::optional<GridTables> grid;
    if (record_.encoding == Encoding::Grid) grid.emplace(ct);
    screen_.reserve(record_.vertices.size());
    if (grid) camera_.reserve(record_.vertices.size());
    for (const RawVertex& raw : record_.vertices) {
        const Vec3 cam = transform_vertex(record_.encoding, ct, grid ? &*grid : nullptr, raw);
        screen_.push_back(project(cam));
        if (grid) camera_.push_back(cam);
    }
}

void ModelDraw::prepare_levels() {
    // light.gouraud, light.missing.lit: s16 models light count_flat normals when Gouraud is off;
    // grid models compute any stored normal's level on demand.
    const NormalList& normals = record_.normals;
    const bool all = interpreter_.options_.gouraud || record_.encoding == Encoding::Grid;
    const std::uint32_t lit = all ? normals.count_all : normals.count_flat;
    const Vec3 lm = model_space_light(instance_.transform, input_.light);
    for (std::uint32_t k = 0; k < lit; ++k) levels_.push_back(light_level(lm, normals.vectors[k]));
}

void ModelDraw::fail(std::uint32_t at, std::string_view detail) {
    interpreter_.models_.reader(record_.index)
        .fail(program_.base + at, fmt::format("program +0x{:x}: {}", at, detail));
}

// The draw routine's polygon_winding_ call (op 0, op 2).
void ModelDraw::winding(const Instruction& in, std::int32_t w) {
    sink_.emit(events::WindingDecision{static_cast<std::int32_t>(record_.index), path_, in.offset,
                                       static_cast<std::uint8_t>(in.opcode), w});
}

void ModelDraw::face(const Instruction& in, const Packet& packet) {
    FaceContext context{record_.encoding,       screen_, camera_, levels_, interpreter_.options_.gouraud,
                        &interpreter_.textures_};
    events::FaceDraw face = face_event(packet, context);
    face.record = static_cast<std::int32_t>(record_.index);
    face.path = path_;
    face.offset = in.offset;
    face.opcode = static_cast<std::uint8_t>(in.opcode);
    face.secondary = in.opcode == Opcode::Secondary;
    sink_.emit(std::move(face));
}

void ModelDraw::control(const Instruction& in, std::uint32_t value, std::int32_t taken, std::int64_t target,
                        std::int64_t next) {
    sink_.emit(events::ControlFlow{static_cast<std::int32_t>(record_.index), path_, in.offset,
                                   static_cast<std::uint8_t>(in.opcode), value, taken, target, next});
}

// op 6: a filled slot emits the attached draw, then the child's events with the path extended.
void ModelDraw::attach(const Instruction& in, std::uint8_t slot) {
    const Instance* child = instance_.slot(slot);
    if (child == nullptr) return;
    sink_.emit(events::AttachedDraw{static_cast<std::int32_t>(record_.index), path_, in.offset, slot,
                                    static_cast<std::int32_t>(child->model), child->transform.position,
                                    child->transform.rotation});
    path_.push_back(slot);
    interpreter_.draw_instance(*child, input_, path_, sink_);
    path_.pop_back();
}

Interpreter::Interpreter(const ModelArchive& models, const TextureArchive& textures, DrawOptions options)
    : models_(models), textures_(textures), options_(options) {}

const Program& Interpreter::program(std::uint32_t record) {
    auto it = programs_.find(record);
    if (it == programs_.end())
        it = programs_.emplace(record, decode_program(models_, record, &textures_, options_.invalid_data))
                 .first;
    return it->second;
}

void Interpreter::draw(const Instance& root, const DrawInput& input, events::EventSink& sink) {
    std::vector<std::int32_t> path;
    draw_instance(root, input, path, sink);
}

void Interpreter::draw(const Instance* root, const Camera* camera, const Light* light, std::uint32_t state,
                       events::EventSink& sink) {
    if (!root || !camera || !light) return; // abi.null
    draw(*root, DrawInput{*camera, *light, state}, sink);
}

void Interpreter::draw_instance(const Instance& instance, const DrawInput& input,
                                std::vector<std::int32_t>& path, events::EventSink& sink) {
    ModelDraw(*this, instance, input, path, sink).run();
}

} // namespace refcheck::reimpl
