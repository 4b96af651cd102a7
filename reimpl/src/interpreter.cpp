#include "refcheck/reimpl/interpreter.hpp"

#include <array>

#include <fmt/format.h>

#include "refcheck/reimpl/face_event.hpp"
#include "refcheck/reimpl/geometry.hpp"

namespace refcheck::reimpl {

// One model draw: one instance's program run with its own transform, levels and last winding.
class ModelDraw {
 public:
  ModelDraw(Interpreter& interpreter, const Instance& instance, const DrawInput& input,
            std::vector<std::int32_t>& path, events::EventSink& sink)
      : interpreter_(interpreter),
        instance_(instance),
        record_(interpreter.models_.record(instance.model)),
        program_(interpreter.program(instance.model)),
        input_(input),
        path_(path),
        sink_(sink) {}

  void run();

 private:
  struct Position {
    std::uint32_t offset = 0;
    std::uint32_t nesting = 0;
  };
  using Handler = void (ModelDraw::*)(const Instruction&);

  void prepare_vertices();
  void prepare_levels();
  [[noreturn]] void fail(std::uint32_t at, std::string_view detail) const;

  // Handlers, indexed by opcode.
  void primary(const Instruction& in);
  void secondary(const Instruction& in);
  void plane(const Instruction& in);
  void if_mask(const Instruction& in);
  void choose(const Instruction& in);
  void select(const Instruction& in);
  void attach(const Instruction& in);
  void return_(const Instruction& in);
  static constexpr std::array<Handler, kOpcodeCount> kHandlers{
      &ModelDraw::primary, &ModelDraw::secondary, &ModelDraw::plane,  &ModelDraw::if_mask,
      &ModelDraw::choose,  &ModelDraw::select,    &ModelDraw::attach, &ModelDraw::return_};

  // Runs `first` (and then `second`, if any) as branches, then continues at `continuation`.
  void run_branches(const Instruction& in, std::uint32_t first, std::optional<std::uint32_t> second,
                    std::uint32_t continuation);
  void continue_at(std::uint32_t offset) { at_.offset = offset; }
  bool any_behind(std::span<const std::uint8_t> vertices) const;
  void emit_face(const Instruction& in, const Packet& packet);
  void emit_control(const Instruction& in, std::uint32_t value, std::int32_t taken, std::int64_t target);

  Interpreter& interpreter_;
  const Instance& instance_;
  const ModelRecord& record_;
  const Program& program_;
  const DrawInput& input_;
  std::vector<std::int32_t>& path_;
  events::EventSink& sink_;

  std::vector<ScreenPoint> screen_;
  std::vector<std::int32_t> levels_;
  std::int32_t last_winding_ = -1;  // op.last_wind
  Position at_;
  std::vector<Position> pending_;  // where to go when the current branch returns
  bool finished_ = false;
};

void ModelDraw::run() {
  if (program_.empty()) return;  // hdr.absent.empty: an absent program draws nothing
  prepare_vertices();
  prepare_levels();
  std::uint32_t steps = 0;
  while (!finished_) {
    const Instruction& in = program_.at(at_.offset);
    if (++steps > kMaxSteps) fail(in.offset, fmt::format("more than {} instructions executed (op.steps)", kMaxSteps));
    (this->*kHandlers[static_cast<std::size_t>(in.opcode)])(in);
  }
}

void ModelDraw::prepare_vertices() {
  const CameraTransform ct = camera_transform(input_.camera, instance_.transform);
  std::optional<GridTables> grid;
  if (record_.encoding == Encoding::Grid) grid.emplace(ct);
  screen_.reserve(record_.vertices.size());
  for (const RawVertex& raw : record_.vertices) {
    screen_.push_back(project(transform_vertex(record_.encoding, ct, grid ? &*grid : nullptr, raw)));
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

void ModelDraw::fail(std::uint32_t at, std::string_view detail) const {
  interpreter_.models_.reader(record_.index)
      .fail(program_.base + at, fmt::format("program +0x{:x}: {}", at, detail));
}

bool ModelDraw::any_behind(std::span<const std::uint8_t> vertices) const {
  for (std::uint8_t index : vertices) {
    if (screen_[index].behind) return true;
  }
  return false;
}

void ModelDraw::emit_face(const Instruction& in, const Packet& packet) {
  FaceContext context{record_.encoding, screen_, levels_, interpreter_.options_.gouraud, &interpreter_.textures_};
  events::FaceDraw face = face_event(packet, context);
  face.record = static_cast<std::int32_t>(record_.index);
  face.path = path_;
  face.offset = in.offset;
  face.opcode = static_cast<std::uint8_t>(in.opcode);
  face.secondary = in.opcode == Opcode::Secondary;
  sink_.emit(std::move(face));
}

void ModelDraw::emit_control(const Instruction& in, std::uint32_t value, std::int32_t taken, std::int64_t target) {
  sink_.emit(events::ControlFlow{static_cast<std::int32_t>(record_.index), path_, in.offset,
                                 static_cast<std::uint8_t>(in.opcode), value, taken, target});
}

// op 0: winding of the first three vertices (-1 with a vertex behind, 0 under three vertices),
// stored as the last winding; the face is drawn unless a vertex is behind (op.primary.order).
void ModelDraw::primary(const Instruction& in) {
  const Packet& packet = std::get<FaceOperands>(in.operands).packet;
  continue_at(in.offset + in.size);
  if (any_behind(packet.vertices)) {
    last_winding_ = -1;
    return;
  }
  last_winding_ = 0;
  if (packet.vertices.size() >= 3) {
    const auto& v = packet.vertices;
    last_winding_ = winding(screen_[v[0]], screen_[v[1]], screen_[v[2]]);
    sink_.emit(events::WindingDecision{static_cast<std::int32_t>(record_.index), path_, in.offset, 0, last_winding_});
  }
  emit_face(in, packet);
}

// op 1: drawn when the last winding is >= 0 and no vertex is behind.
void ModelDraw::secondary(const Instruction& in) {
  const Packet& packet = std::get<FaceOperands>(in.operands).packet;
  continue_at(in.offset + in.size);
  if (last_winding_ >= 0 && !any_behind(packet.vertices)) emit_face(in, packet);
}

// op 2: w >= 0 runs back then front, else front then back; then the continuation.
void ModelDraw::plane(const Instruction& in) {
  const auto& o = std::get<PlaneOperands>(in.operands);
  std::int32_t w = -1;
  if (!any_behind(o.vertices)) {
    w = winding(screen_[o.vertices[0]], screen_[o.vertices[1]], screen_[o.vertices[2]]);
    sink_.emit(events::WindingDecision{static_cast<std::int32_t>(record_.index), path_, in.offset, 2, w});
  }
  if (w >= 0) {
    run_branches(in, o.back, o.front, o.continuation);
  } else {
    run_branches(in, o.front, o.back, o.continuation);
  }
}

void ModelDraw::if_mask(const Instruction& in) {
  const auto& o = std::get<IfMaskOperands>(in.operands);
  const std::uint32_t value = input_.state & o.mask;
  emit_control(in, value, value != 0 ? 1 : 0, value != 0 ? std::int64_t{o.branch} : -1);
  if (value != 0) {
    run_branches(in, o.branch, std::nullopt, o.continuation);
  } else {
    continue_at(o.continuation);
  }
}

void ModelDraw::choose(const Instruction& in) {
  const auto& o = std::get<ChooseOperands>(in.operands);
  const std::uint32_t value = input_.state & o.mask;
  const std::uint32_t target = value != 0 ? o.set : o.clear;
  emit_control(in, value, value != 0 ? 1 : 0, target);
  run_branches(in, target, std::nullopt, o.continuation);
}

// op.select.value / op.select.bound: a value past the authored table runs no case.
void ModelDraw::select(const Instruction& in) {
  const auto& o = std::get<SelectOperands>(in.operands);
  const std::uint32_t value = (input_.state >> o.shift) & o.mask;
  if (value < o.cases.size()) {
    emit_control(in, value, static_cast<std::int32_t>(value), o.cases[value]);
    run_branches(in, o.cases[value], std::nullopt, o.continuation);
  } else {
    emit_control(in, value, -1, -1);
    continue_at(o.continuation);
  }
}

// op 6: a filled slot emits the attached draw, then the child's events with the path extended.
void ModelDraw::attach(const Instruction& in) {
  const std::uint8_t slot = std::get<AttachOperands>(in.operands).slot;
  continue_at(in.offset + in.size);
  const Instance* child = instance_.slot(slot);
  if (child == nullptr) return;
  sink_.emit(events::AttachedDraw{static_cast<std::int32_t>(record_.index), path_, in.offset, slot,
                                  static_cast<std::int32_t>(child->model), child->transform.position,
                                  child->transform.rotation});
  path_.push_back(slot);
  interpreter_.draw_instance(*child, input_, path_, sink_);
  path_.pop_back();
}

void ModelDraw::return_(const Instruction&) {
  if (pending_.empty()) {
    finished_ = true;
    return;
  }
  at_ = pending_.back();
  pending_.pop_back();
}

void ModelDraw::run_branches(const Instruction& in, std::uint32_t first, std::optional<std::uint32_t> second,
                             std::uint32_t continuation) {
  const std::uint32_t nesting = at_.nesting + 1;
  if (nesting > kMaxNesting) fail(in.offset, fmt::format("branch nesting deeper than {} (op.nesting)", kMaxNesting));
  pending_.push_back({continuation, at_.nesting});
  if (second) pending_.push_back({*second, nesting});
  at_ = {first, nesting};
}

Interpreter::Interpreter(const ModelArchive& models, const TextureArchive& textures, DrawOptions options)
    : models_(models), textures_(textures), options_(options) {}

const Program& Interpreter::program(std::uint32_t record) {
  auto it = programs_.find(record);
  if (it == programs_.end()) it = programs_.emplace(record, decode_program(models_, record, &textures_)).first;
  return it->second;
}

void Interpreter::draw(const Instance& root, const DrawInput& input, events::EventSink& sink) {
  std::vector<std::int32_t> path;
  draw_instance(root, input, path, sink);
}

void Interpreter::draw_instance(const Instance& instance, const DrawInput& input, std::vector<std::int32_t>& path,
                                events::EventSink& sink) {
  ModelDraw(*this, instance, input, path, sink).run();
}

}  // namespace refcheck::reimpl
