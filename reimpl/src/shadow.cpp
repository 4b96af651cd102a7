// The shadow renderer: shadow.caster, substitute, geometry, world, project, camera, attach, faces,
// mesh and colour (spec section 15), walking the program exactly as section 8 does.
#include "refcheck/reimpl/shadow.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "refcheck/reimpl/fixed_point.hpp"
#include "refcheck/reimpl/geometry.hpp"
#include "refcheck/reimpl/interpreter.hpp"

namespace refcheck::reimpl {

using fixed::dot3;
using fixed::low32;

namespace {

// (a / b) on int64 with b != 0, the one overflowing quotient (INT64_MIN / -1) wrapped.
std::int64_t divide64(std::int64_t a, std::int64_t b) { return b == -1 ? fixed::sub64(0, a) : a / b; }

// shadow.world: p[i] = pos[i] + (int32)((Σ_j (int64)Q[i][j] * v[j]) >> 31).
Vec3 world_point(const Transform& t, const Vec3& v) {
  Vec3 p{};
  const Mat3& q = t.rotation;
  for (int i = 0; i < 3; ++i) {
    p[i] = fixed::add32(t.position[i], low32(dot3(q[3 * i], v[0], q[3 * i + 1], v[1], q[3 * i + 2], v[2]) >> 31));
  }
  return p;
}

// shadow.camera: cam[i] = (int32)((Σ_k (int64)R[i][k] * ((int64)p'[k] - C[k])) >> 14).
Vec3 camera_point(const Camera& camera, const Vec3& p) {
  const Mat3& r = camera.rotation;
  std::array<std::int64_t, 3> d{};
  for (int k = 0; k < 3; ++k) d[k] = fixed::sub64(p[k], camera.position[k]);
  Vec3 cam{};
  for (int i = 0; i < 3; ++i) cam[i] = low32(dot3(r[3 * i], d[0], r[3 * i + 1], d[1], r[3 * i + 2], d[2]) >> 14);
  return cam;
}

// Everything one shadow draw shares across the instance tree.
struct Pass {
  const Camera& camera;
  const ShadowParams& params;
  std::uint32_t state;
  Frame& frame;
  std::vector<ShadowFace>& faces;
};

// One instance's shadow: its geometry record's program run over the projected vertices, with its
// own last winding, nesting and step count (op.last_wind, op.nesting, op.steps).
class ShadowDraw {
 public:
  ShadowDraw(ShadowRenderer& renderer, const Instance& instance, const Pass& pass, std::vector<std::int32_t>& path)
      : renderer_(renderer),
        instance_(instance),
        record_(renderer.archive().record(shadow_geometry(renderer.archive(), instance.model))),
        program_(renderer.program(record_.index)),
        pass_(pass),
        path_(path) {}

  void run();

 private:
  struct Position {
    std::uint32_t offset = 0;
    std::uint32_t nesting = 0;
  };
  using Handler = void (ShadowDraw::*)(const Instruction&);

  void prepare_vertices();
  [[noreturn]] void fail(std::uint32_t at, std::string_view detail) const;
  bool any_behind(std::span<const std::uint8_t> vertices) const;
  void draw_face(const Instruction& in, const Packet& packet);

  void primary(const Instruction& in);
  void secondary(const Instruction& in);
  void plane(const Instruction& in);
  void if_mask(const Instruction& in);
  void choose(const Instruction& in);
  void select(const Instruction& in);
  void attach(const Instruction& in);
  void return_(const Instruction& in);
  static constexpr std::array<Handler, kOpcodeCount> kHandlers{
      &ShadowDraw::primary, &ShadowDraw::secondary, &ShadowDraw::plane,  &ShadowDraw::if_mask,
      &ShadowDraw::choose,  &ShadowDraw::select,    &ShadowDraw::attach, &ShadowDraw::return_};

  void run_branches(const Instruction& in, std::uint32_t first, std::optional<std::uint32_t> second,
                    std::uint32_t continuation);
  void continue_at(std::uint32_t offset) { at_.offset = offset; }

  ShadowRenderer& renderer_;
  const Instance& instance_;
  const ModelRecord& record_;  // the geometry record
  const Program& program_;
  const Pass& pass_;
  std::vector<std::int32_t>& path_;

  std::vector<ScreenPoint> screen_;
  std::int32_t last_winding_ = -1;
  Position at_;
  std::vector<Position> pending_;
  bool finished_ = false;
};

void ShadowDraw::run() {
  if (program_.empty()) return;
  prepare_vertices();
  std::uint32_t steps = 0;
  while (!finished_) {
    const Instruction& in = program_.at(at_.offset);
    if (++steps > kMaxSteps) fail(in.offset, fmt::format("more than {} instructions executed (op.steps)", kMaxSteps));
    (this->*kHandlers[static_cast<std::size_t>(in.opcode)])(in);
  }
}

// shadow.world, shadow.project, shadow.camera, geo.project: exact local coordinates, no tables.
void ShadowDraw::prepare_vertices() {
  screen_.reserve(record_.vertices.size());
  for (const RawVertex& raw : record_.vertices) {
    const Vec3 world = world_point(instance_.transform, decode_vertex(record_.encoding, raw));
    const Vec3 on_plane = project_to_plane(world, pass_.params.sun, pass_.params.plane_height);
    screen_.push_back(project(camera_point(pass_.camera, on_plane)));
  }
}

void ShadowDraw::fail(std::uint32_t at, std::string_view detail) const {
  renderer_.archive().reader(record_.index).fail(program_.base + at, fmt::format("program +0x{:x}: {}", at, detail));
}

bool ShadowDraw::any_behind(std::span<const std::uint8_t> vertices) const {
  return std::any_of(vertices.begin(), vertices.end(), [this](std::uint8_t i) { return screen_[i].behind; });
}

// shadow.faces, shadow.mesh: a mesh type makes one draw_shadow_face_ call; the others none.
void ShadowDraw::draw_face(const Instruction& in, const Packet& packet) {
  const std::optional<ShadowMesh> mesh = shadow_mesh(packet.type);
  if (!mesh) return;
  ShadowFace face{record_.index, path_, in.offset, static_cast<std::uint8_t>(in.opcode), packet.type, *mesh, {}};
  face.screen.reserve(packet.vertices.size());
  for (std::uint8_t i : packet.vertices) face.screen.push_back({screen_[i].sx, screen_[i].sy, screen_[i].z});
  draw_shadow_face(face.screen, *mesh, pass_.frame);
  pass_.faces.push_back(std::move(face));
}

// op 0 (op.primary.order): winding stored as the last winding, then the face unless a vertex is behind.
void ShadowDraw::primary(const Instruction& in) {
  const Packet& packet = std::get<FaceOperands>(in.operands).packet;
  continue_at(in.offset + in.size);
  if (any_behind(packet.vertices)) {
    last_winding_ = -1;
    return;
  }
  const auto& v = packet.vertices;
  last_winding_ = v.size() >= 3 ? winding(screen_[v[0]], screen_[v[1]], screen_[v[2]]) : 0;
  draw_face(in, packet);
}

// op 1: drawn when the last winding is >= 0 and no vertex is behind.
void ShadowDraw::secondary(const Instruction& in) {
  const Packet& packet = std::get<FaceOperands>(in.operands).packet;
  continue_at(in.offset + in.size);
  if (last_winding_ >= 0 && !any_behind(packet.vertices)) draw_face(in, packet);
}

// op 2 (op.plane.order): w >= 0 runs back then front, else front then back.
void ShadowDraw::plane(const Instruction& in) {
  const auto& o = std::get<PlaneOperands>(in.operands);
  const std::int32_t w = any_behind(o.vertices) ? -1 : winding(screen_[o.vertices[0]], screen_[o.vertices[1]],
                                                               screen_[o.vertices[2]]);
  if (w >= 0) {
    run_branches(in, o.back, o.front, o.continuation);
  } else {
    run_branches(in, o.front, o.back, o.continuation);
  }
}

void ShadowDraw::if_mask(const Instruction& in) {
  const auto& o = std::get<IfMaskOperands>(in.operands);
  if ((pass_.state & o.mask) != 0) {
    run_branches(in, o.branch, std::nullopt, o.continuation);
  } else {
    continue_at(o.continuation);
  }
}

void ShadowDraw::choose(const Instruction& in) {
  const auto& o = std::get<ChooseOperands>(in.operands);
  run_branches(in, (pass_.state & o.mask) != 0 ? o.set : o.clear, std::nullopt, o.continuation);
}

// op.select.value, op.select.bound.
void ShadowDraw::select(const Instruction& in) {
  const auto& o = std::get<SelectOperands>(in.operands);
  const std::uint32_t value = (pass_.state >> o.shift) & o.mask;
  if (value < o.cases.size()) {
    run_branches(in, o.cases[value], std::nullopt, o.continuation);
  } else {
    continue_at(o.continuation);
  }
}

// shadow.attach: a filled slot of the drawn instance recurses into the child's shadow.
void ShadowDraw::attach(const Instruction& in) {
  const std::uint8_t slot = std::get<AttachOperands>(in.operands).slot;
  continue_at(in.offset + in.size);
  if (slot >= instance_.slots.size()) {
    fail(in.offset, fmt::format("attachment slot {} of the shadow geometry is past model {}'s {} attachments", slot,
                                instance_.model, instance_.slots.size()));
  }
  const Instance* child = instance_.slot(slot);
  if (child == nullptr) return;
  path_.push_back(slot);
  ShadowDraw(renderer_, *child, pass_, path_).run();
  path_.pop_back();
}

void ShadowDraw::return_(const Instruction&) {
  if (pending_.empty()) {
    finished_ = true;
    return;
  }
  at_ = pending_.back();
  pending_.pop_back();
}

void ShadowDraw::run_branches(const Instruction& in, std::uint32_t first, std::optional<std::uint32_t> second,
                              std::uint32_t continuation) {
  const std::uint32_t nesting = at_.nesting + 1;
  if (nesting > kMaxNesting) fail(in.offset, fmt::format("branch nesting deeper than {} (op.nesting)", kMaxNesting));
  pending_.push_back({continuation, at_.nesting});
  if (second) pending_.push_back({*second, nesting});
  at_ = {first, nesting};
}

}  // namespace

Vec3 project_to_plane(const Vec3& p, const Vec3& sun, std::int32_t h) {
  if (sun[1] >= 0) throw std::invalid_argument(fmt::format("shadow projection with sun y {} >= 0", sun[1]));
  const std::int64_t drop = fixed::sub64(p[1], h);
  const auto along = [&](std::int32_t d) { return low32(divide64(fixed::mul64(d, drop), sun[1])); };
  return {fixed::sub32(p[0], along(sun[0])), h, fixed::sub32(p[2], along(sun[2]))};
}

std::optional<ShadowMesh> shadow_mesh(std::uint8_t type) {
  if (type == 6) return ShadowMesh::Medium;
  if (type >= 2 && type <= 20 && type != 9 && type != 10) return ShadowMesh::Fine;
  return std::nullopt;  // 0, 1, 9, 10 (points, lines), 21 (heat haze), unknown types
}

void draw_shadow_face(std::span<const events::ScreenVertex> screen, ShadowMesh mesh, Frame& frame) {
  const std::int32_t pattern = mesh == ShadowMesh::Fine ? 1 : 3;  // rast.mesh.fine, rast.mesh.medium
  for (const PolygonRow& row : polygon_rows(screen)) {
    for (std::int32_t x = row.x_begin(); x < row.x_end(); ++x) {
      if (((x + row.y) & pattern) != 0) continue;
      const std::size_t at = static_cast<std::size_t>(row.y) * kFrameWidth + x;
      frame.pixels[at] = kShadowColour;
      frame.taint[at] = 0;  // div.taint: an unflagged direct write
    }
  }
}

std::uint32_t shadow_geometry(const ModelArchive& archive, std::uint32_t model) {
  const ModelRecord& record = archive.record(model);
  if (std::find(std::begin(kShadowSubstituted), std::end(kShadowSubstituted), model) != std::end(kShadowSubstituted)) {
    if (!archive.populated(kShadowSubstitute)) {
      archive.reader(model).fail(record.extent.begin, fmt::format("shadow geometry substitute 0x{:x} is not a "
                                                                  "populated record", kShadowSubstitute));
    }
    return kShadowSubstitute;
  }
  if (!record.shadow_record || *record.shadow_record == -1) return model;
  const std::int32_t index = *record.shadow_record;
  if (index < 0 || !archive.populated(static_cast<std::uint32_t>(index))) {
    archive.reader(model).fail(record.absolute(record.header.shadow),
                               fmt::format("shadow data names record {}, not a populated record", index));
  }
  return static_cast<std::uint32_t>(index);
}

const Program& ShadowRenderer::program(std::uint32_t record) {
  auto it = programs_.find(record);
  if (it == programs_.end()) it = programs_.emplace(record, decode_program(archive_, record)).first;
  return it->second;
}

std::vector<ShadowFace> ShadowRenderer::draw(const Instance& root, const Camera& camera, const ShadowParams& params,
                                             std::uint32_t state, Frame& frame) {
  std::vector<ShadowFace> faces;
  if ((archive_.record(root.model).header.properties & kShadowCasterBit) == 0) return faces;  // shadow.caster
  if (params.sun[1] >= 0) return faces;                                                       // shadow.project
  std::vector<std::int32_t> path;
  const Pass pass{camera, params, state, frame, faces};
  ShadowDraw(*this, root, pass, path).run();
  return faces;
}

std::vector<ShadowFace> draw_shadow(const ModelArchive& archive, const Instance& root, const Camera& camera,
                                    const ShadowParams& params, std::uint32_t state, Frame& frame) {
  return ShadowRenderer(archive).draw(root, camera, params, state, frame);
}

}  // namespace refcheck::reimpl
