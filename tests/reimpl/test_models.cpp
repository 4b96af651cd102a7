#include "test_models.hpp"

namespace refcheck::reimpl::testing {

namespace {
std::vector<std::array<std::int8_t, 3>> three_normals() { return {{0, 0, -127}, {0, 0, -64}, {127, 0, 0}}; }
} // namespace

ProgramBuilder triangle_program() {
    ProgramBuilder p;
    p.primary(2, {7}, {{0}, {1}, {2}});
    p.secondary(11, {9, 1}, {{0}, {2}, {1}});
    p.ret();
    return p;
}

RecordSpec triangle_model() {
    RecordSpec r;
    r.name = "triangle";
    r.vertices = {s16_vertex(-10, -10, 0), s16_vertex(10, -10, 0), s16_vertex(0, 10, 0)};
    r.normals = three_normals();
    r.program = triangle_program().build();
    return r;
}

ProgramBuilder control_program() {
    ProgramBuilder p;
    p.primary(2, {7}, {{0}, {1}, {2}});
    p.label("plane").plane(0, 1, 2, "front", "back", "after_plane");
    p.label("after_plane").if_mask(0x1, "lit", "after_if");
    p.label("after_if").choose(0x2, "set", "clear", "after_choose");
    p.label("after_choose").select(4, 0x3, {"case0", "case1"}, "after_select");
    p.label("after_select").attach(0);
    p.attach(1);
    p.ret();
    p.label("front").primary(11, {5, 0}, {{1}, {2}, {3}}).ret();
    p.label("back").secondary(2, {9}, {{3}, {2}, {1}}).ret();
    p.label("lit").primary(0, {1}, {{0}, {1}}).ret();
    p.label("set").primary(1, {2}, {{0}, {3}}).ret();
    p.label("clear").ret();
    p.label("case0").primary(4, {3}, {{0}, {1}, {2}}).ret();
    p.label("case1").primary(5, {4}, {{0}, {1}, {3}}).ret();
    return p;
}

RecordSpec control_model() {
    RecordSpec r;
    r.name = "control";
    r.vertices = {s16_vertex(-20, -20, 0), s16_vertex(20, -20, 0), s16_vertex(20, 20, 0),
                  s16_vertex(-20, 20, 0)};
    r.normals = three_normals();
    r.attachments =
        std::vector<Attachment>{attachment(kTriangleModel, {0, 0, 100}), attachment(0, {0, 0, 0})};
    r.program = control_program().build();
    return r;
}

ProgramBuilder materials_program() {
    ProgramBuilder p;
    p.primary(3, {10, 20}, {{0}, {1}, {2}});
    p.primary(7, {1, 0, 0}, {{0, 0, 0}, {1, 63, 0}, {2, 63, 63}});
    p.secondary(16, {1, 0, 5, 1},
                {{0, 0, 0}, {1, 64, 0}, {2, 64, 80}, {3, 0, 63}}); // the spec's worked example
    p.primary(17, {30, 0}, {{0, 0}, {1, 1}, {2, 2}});
    p.primary(18, {1, 2, 1}, {{0, 0}, {1, 1}, {2, 5}}); // vertex normal 5 is missing
    p.primary(19, {1, 0, 2, 9}, {{0, 0, 0, 0}, {1, 10, 0, 1}, {2, 10, 10, 2}});
    p.primary(20, {1, 0, 1, 9}, {{0, 0, 0, 0}, {1, 10, 0, 1}, {3, 0, 10, 2}});
    p.primary(6, {}, {{0}, {1}, {2}});
    p.primary(21, {}, {{0}, {2}, {3}});
    p.primary(8, {1, 0, 3}, {{0, 0, 0}, {1, 5, 0}, {2, 5, 5}});
    p.primary(9, {40, 2}, {{0}, {3}});
    p.primary(10, {41, 1}, {{0}, {1}, {2}});
    p.primary(12, {42, 43, 0}, {{0}, {1}, {2}});
    p.primary(13, {44, 1}, {{0}, {1}, {2}});
    p.primary(14, {45, 5}, {{0}, {1}, {2}}); // face normal 5 is missing
    p.primary(15, {1, 0, 0, 2}, {{0, 1, 1}, {1, 2, 1}, {2, 2, 2}});
    p.ret();
    return p;
}

RecordSpec materials_model() {
    RecordSpec r;
    r.name = "materials";
    r.encoding = 1;
    r.vertices = {grid_vertex(31, 31, 32, 0, 0, 32), grid_vertex(33, 31, 32, 0, 0, 32),
                  grid_vertex(33, 33, 32, 0, 0, 32), grid_vertex(31, 33, 32, 0, 0, 32)};
    r.normals = three_normals();
    r.program = materials_program().build();
    return r;
}

BuiltArchive models_archive() {
    RecordSpec null_model;
    null_model.name = "null";
    null_model.has_vertices = false;
    null_model.program = Bytes{7};
    return build_model_archive({null_model, control_model(), triangle_model(), materials_model()});
}

Bytes textures_archive() { return build_texture_archive({std::nullopt, TextureSpec{2, 64, {}}}); }

} // namespace refcheck::reimpl::testing
