// The workbench renderer (docs/formats/apache-3d.md, section 20): WebGL 2, our own shaders.
// Each triangle carries its canonical plane (wb.plane) as a flat attribute; the fragment shader
// intersects the view ray with that plane for its depth (wb.depth), so coplanar faces have equal
// depth and the later one in program order wins (wb.order, depth test LEQUAL). Colours go through
// the exported palette and intensity tables in the shader (wb.colour); textures are sampled by the
// engine's address rule, masks discard (wb.texture); op 2 and op 1 are decided per view (wb.walk).
"use strict";
(function () {
    const WB = (window.WB = window.WB || {});

    WB.loadScript = function (src) {
        return new Promise((resolve, reject) => {
            const s = document.createElement("script");
            s.src = src;
            s.onload = () => resolve();
            s.onerror = () => reject(new Error("cannot load " + src));
            document.head.appendChild(s);
        });
    };
    WB.recordFile = (r) => "records/r" + String(r).padStart(4, "0") + ".js";
    WB.loadRecord = async function (r) {
        if (!(window.WB_RECORDS && window.WB_RECORDS[r])) await WB.loadScript(WB.recordFile(r));
        return window.WB_RECORDS[r];
    };
    WB.bytes = function (b64) {
        const bin = atob(b64);
        const out = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; ++i) out[i] = bin.charCodeAt(i);
        return out;
    };

    // Packet types (spec section 9) by what the shader does with them.
    const POINTS = new Set([0, 9]);
    const LINES = new Set([1, 10]);
    const REMAP = new Set([6, 21]); // glass, heat haze: previewed with transparency (wb.preview)
    const GOURAUD = new Set([17, 18, 19, 20]);
    const FLAT_SHADED = new Set([9, 10, 11, 12, 13, 14, 15, 16]);
    WB.TYPE_NAMES = ["points", "polyline", "polygon", "two-colour", "fine mesh", "coarse mesh", "glass",
        "texture", "masked texture", "shaded points", "shaded polyline", "shaded polygon", "shaded two-colour",
        "shaded fine mesh", "shaded coarse mesh", "shaded texture", "shaded masked texture", "Gouraud polygon",
        "two-colour Gouraud", "Gouraud texture", "Gouraud masked texture", "heat haze"];

    const VERTEX = `#version 300 es
precision highp float; precision highp int;
in vec3 a_pos; in vec3 a_screen; in vec2 a_uv; in float a_level; in vec4 a_plane; in ivec4 a_mat; in ivec4 a_face;
in float a_hl; in int a_poly;
uniform mat3 u_rot; uniform vec3 u_off; uniform vec2 u_size; uniform float u_focal, u_near, u_far, u_point;
uniform int u_engine;
out vec4 v_uvlw; flat out vec4 v_plane; flat out ivec4 v_mat; flat out ivec4 v_face; flat out float v_hl;
flat out int v_poly; out float v_ndcz;
void main() {
    vec3 e = u_rot * a_pos + u_off;            // camera space: x right, y up, z forward
    float w = e.z;
    float A = (u_far + u_near) / (u_far - u_near), B = -2.0 * u_far * u_near / (u_far - u_near);
    if (u_engine == 1) {
        // wb.screen: the engine's own integer screen vertex (sx, sy) and camera z (WB.engineScreen),
        // pixel x sampled at window x + 0.5, row y at window H - y - 0.5.
        // Its depth is written by the fragment shader (clip z 0: triangles grown by wb.raster
        // are not cut by the near and far planes); v_ndcz / w interpolates as gl_FragCoord.z would.
        w = a_screen.z;
        gl_Position = vec4(((a_screen.x + 0.5) / (0.5 * u_size.x) - 1.0) * w,
                           ((u_size.y - a_screen.y - 0.5) / (0.5 * u_size.y) - 1.0) * w, 0.0, w);
    } else {
        // The engine's screen (geo.project): sx = W/2 + f x / z, sy = H/2 - f y / z, pixels sampled at
        // integer sx, sy; the window samples at +0.5, hence the half-pixel shift.
        gl_Position = vec4((u_focal * e.x + 0.5 * w) / (0.5 * u_size.x),
                           (u_focal * e.y - 0.5 * w) / (0.5 * u_size.y), A * w + B, w);
    }
    gl_PointSize = u_point;
    v_uvlw = vec4(a_uv * w, a_level * w, w); // divided by the interpolated w: screen-affine, as the engine
    v_ndcz = A * w + B;
    v_plane = a_plane; v_mat = a_mat; v_face = a_face; v_hl = a_hl; v_poly = a_poly;
}`;

    const FRAGMENT = `#version 300 es
precision highp float; precision highp int; precision highp usampler2D;
uniform usampler2D u_palette, u_intensity, u_atlas;
uniform highp isampler2D u_poly;
uniform int u_engine;
uniform mat3 u_rot; uniform vec3 u_off; uniform vec2 u_size; uniform float u_focal, u_far;
uniform int u_depth, u_pass, u_selected;
in vec4 v_uvlw; flat in vec4 v_plane; flat in ivec4 v_mat; flat in ivec4 v_face; flat in float v_hl;
flat in int v_poly; in float v_ndcz;
out vec4 o_colour;
uint shade(int level, uint c) { return texelFetch(u_intensity, ivec2(int(c), level), 0).r; }
// wb.raster: the engine's polygon rules (rast.rows, rast.edge, rast.span, rast.attr) for one pixel,
// with the face's screen vertices (sx, sy, u, v) and levels from u_poly at v_poly (WB.polyData).
ivec4 polyAt(int i) { return texelFetch(u_poly, ivec2(i & 1023, i >> 10), 0); }
int tdiv(int a, int b, int c) { // a * b / c truncated toward zero, as the engine's 64-bit arithmetic
    uint q = (uint(abs(a)) * uint(abs(b))) / uint(abs(c));
    return ((a < 0) != (b < 0)) != (c < 0) ? -int(q) : int(q);
}
ivec3 edgeAttributes(int n, int e, int y) { // u, v, level on edge e at row y
    ivec4 a = polyAt(v_poly + 1 + e), b = polyAt(v_poly + 1 + (e + 1) % n);
    int la = polyAt(v_poly + 1 + n + e).x, lb = polyAt(v_poly + 1 + n + (e + 1) % n).x;
    int dy = y - a.y, span = b.y - a.y;
    return ivec3(a.z + tdiv(dy, b.z - a.z, span), a.w + tdiv(dy, b.w - a.w, span), la + tdiv(dy, lb - la, span));
}
// false when the engine does not write pixel p; else its u, v and level there.
bool engineAttributes(ivec2 p, out ivec3 attr) {
    int n = polyAt(v_poly).x, ymin = 1 << 30, ymax = -(1 << 30);
    for (int k = 0; k < n; ++k) { int y = polyAt(v_poly + 1 + k).y; ymin = min(ymin, y); ymax = max(ymax, y); }
    if (p.y < max(0, ymin) || p.y >= min(int(u_size.y), ymax)) return false;
    int le = -1, re = -1, left = 0, right = 0;
    for (int e = 0; e < n; ++e) {
        ivec4 a = polyAt(v_poly + 1 + e), b = polyAt(v_poly + 1 + (e + 1) % n);
        if (a.y == b.y || p.y < min(a.y, b.y) || p.y >= max(a.y, b.y)) continue;
        int x = a.x + tdiv(p.y - a.y, b.x - a.x, b.y - a.y);
        if (le < 0 || x < left) { le = e; left = x; }
        if (re < 0 || x > right) { re = e; right = x; }
    }
    if (le < 0 || p.x < max(left, 0) || p.x >= min(right, int(u_size.x))) return false;
    ivec3 l = edgeAttributes(n, le, p.y), r = edgeAttributes(n, re, p.y);
    int dx = p.x - left, w = right - left;
    attr = ivec3(l.x + tdiv(dx, r.x - l.x, w), l.y + tdiv(dx, r.y - l.y, w), l.z + tdiv(dx, r.z - l.z, w));
    return true;
}
void main() {
    int type = v_mat.x;
    ivec2 p = ivec2(int(gl_FragCoord.x), int(u_size.y) - 1 - int(gl_FragCoord.y)); // engine pixel
    ivec3 exact = ivec3(0);
    if (u_engine == 1 && u_pass != 2 && !engineAttributes(p, exact)) discard;
    // ordinary interpolated window depth (screen-linear NDC z), as gl_FragCoord.z without clipping
    float interpolated = u_engine == 1 ? 0.5 * (v_ndcz / v_uvlw.w) + 0.5 : gl_FragCoord.z;
    if (u_pass == 2 && (u_depth != 0 || dot(v_plane.xyz, v_plane.xyz) == 0.0)) {
        // wb.lines: a point or line on no plane of its model, or any with the seeded fault, has
        // its interpolated depth, brought forward a little so that it shows on a surface it touches.
        gl_FragDepth = u_depth == 0 ? (0.99999 / gl_FragCoord.w) / u_far : interpolated * 0.99999;
    } else if (u_depth == 0) {
        // wb.depth: the ray through this pixel meets the triangle's plane n.x = d at depth z.
        vec3 n = u_rot * v_plane.xyz;
        float d = v_plane.w + dot(n, u_off);
        vec2 s = vec2(gl_FragCoord.x - 0.5, u_size.y - gl_FragCoord.y - 0.5);
        vec3 dir = vec3((s.x - 0.5 * u_size.x) / u_focal, (0.5 * u_size.y - s.y) / u_focal, 1.0);
        gl_FragDepth = clamp((d / dot(n, dir)) / u_far, 0.0, 1.0);
    } else {
        gl_FragDepth = interpolated; // the seeded fault: ordinary interpolated depth
    }
    bool parity = ((p.x + p.y) & 1) == 0;
    if ((type == 4 || type == 13) && !parity) discard;                       // rast.mesh.fine
    if ((type == 5 || type == 14) && ((p.x & 1) != 0 || (p.y & 1) != 0)) discard; // rast.mesh.coarse
    vec3 uvl = v_uvlw.xyz / v_uvlw.w;
    ivec2 uv = ivec2(floor(uvl.xy));
    int level = clamp(int(floor(uvl.z)), 0, 31);
    if (u_engine == 1 && u_pass != 2) { uv = exact.xy; level = clamp(exact.z, 0, 31); }
    uint index;
    bool textured = type == 7 || type == 8 || type == 15 || type == 16 || type == 19 || type == 20;
    if (textured) {
        int addr = uv.y * v_face.z + uv.x;                              // tex.sample: no wrap, no clamp
        if (uv.x < 0 || uv.y < 0 || addr >= v_face.w) discard;          // fault.tex.past_alloc.flag
        int linear = v_face.y + addr;
        index = texelFetch(u_atlas, ivec2(linear & 255, linear >> 8), 0).r;
        if ((type == 8 || type == 16 || type == 20) && int(index) == v_mat.w) discard; // rast.mask
    } else if (type == 3 || type == 12 || type == 18) {
        index = uint(parity ? v_mat.y : v_mat.z);                     // rast.two_colour
    } else {
        index = uint(v_mat.y);
    }
    if (type >= 9 && type <= 20) index = shade(level, index);        // rast.shade
    if (u_pass == 3) {
        int id = v_face.x + 1;
        o_colour = vec4(float(id & 255), float((id >> 8) & 255), float((id >> 16) & 255), 255.0) / 255.0;
        return;
    }
    if (type == 6 || type == 21) {                                     // wb.preview
        o_colour = type == 6 ? vec4(0.55, 0.72, 0.9, 0.45) : vec4(1.0, 0.95, 0.85, 0.18);
        return;
    }
    vec3 rgb = vec3(texelFetch(u_palette, ivec2(int(index), 0), 0).rgb) / 255.0;
    if (v_hl > 0.5) rgb = mix(rgb, (((p.x + p.y) >> 2) & 1) == 0 ? vec3(1.0, 0.0, 1.0) : vec3(1.0, 1.0, 0.0), 0.6);
    if (v_face.x == u_selected) rgb = mix(rgb, vec3(0.0, 1.0, 1.0), 0.5);
    o_colour = vec4(rgb, 1.0);
}`;

    function compile(gl, type, text) {
        const s = gl.createShader(type);
        gl.shaderSource(s, text);
        gl.compileShader(s);
        if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
        return s;
    }

    function integerTexture(gl, unit, width, height, format, internal, data) {
        const t = gl.createTexture();
        gl.activeTexture(gl.TEXTURE0 + unit);
        gl.bindTexture(gl.TEXTURE_2D, t);
        gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
        gl.texImage2D(gl.TEXTURE_2D, 0, internal, width, height, 0, format, gl.UNSIGNED_BYTE, data);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
        return t;
    }

    // light.transform, light.dot, light.clamp, light.level, in exact integer arithmetic.
    WB.modelLight = function (rotation, light) {
        const lm = [0, 0, 0];
        for (let j = 0; j < 3; ++j) {
            let s = 0;
            for (let k = 0; k < 3; ++k) s += rotation[k * 3 + j] * light[k];
            lm[j] = Math.floor(s / 2147483648);
        }
        return lm;
    };
    WB.level = function (lm, n) {
        const dot = Math.floor((n[0] * lm[0] + n[1] * lm[1] + n[2] * lm[2]) / 16384);
        return Math.min(Math.floor(Math.max(dot, 0) / 4), 31);
    };

    // rows right, up, forward of a camera turned by yaw about world y and pitched down (wb.camera)
    WB.orbitRows = function (yaw, pitch) {
        const y = (yaw * Math.PI) / 180, p = (pitch * Math.PI) / 180;
        const f = [Math.sin(y) * Math.cos(p), -Math.sin(p), Math.cos(y) * Math.cos(p)];
        const r = [Math.cos(y), 0, -Math.sin(y)];
        const u = [f[1] * r[2] - f[2] * r[1], f[2] * r[0] - f[0] * r[2], f[0] * r[1] - f[1] * r[0]];
        return [r, u, f];
    };

    class Renderer {
        constructor(canvas) {
            this.canvas = canvas;
            const gl = (this.gl = canvas.getContext("webgl2", { antialias: false, preserveDrawingBuffer: true }));
            if (!gl) throw new Error("this browser has no WebGL 2");
            const prog = (this.prog = gl.createProgram());
            gl.attachShader(prog, compile(gl, gl.VERTEX_SHADER, VERTEX));
            gl.attachShader(prog, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
            gl.linkProgram(prog);
            if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(prog));
            this.u = {};
            for (const name of ["u_rot", "u_off", "u_size", "u_focal", "u_near", "u_far", "u_point", "u_palette",
                "u_intensity", "u_atlas", "u_depth", "u_pass", "u_selected", "u_engine", "u_poly"]) {
                this.u[name] = gl.getUniformLocation(prog, name);
            }
            this.loadTables();
            // wb.raster's face table (unit 3), filled by render() in the engine's mode.
            this.polyTexture = gl.createTexture();
            gl.activeTexture(gl.TEXTURE3);
            gl.bindTexture(gl.TEXTURE_2D, this.polyTexture);
            gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32I, 1, 1, 0, gl.RGBA_INTEGER, gl.INT, new Int32Array(4));
            gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
            gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
        }

        loadTables() {
            const gl = this.gl, pal = window.WB_PALETTE;
            const rgb = WB.bytes(pal.rgb), rgba = new Uint8Array(256 * 4);
            for (let i = 0; i < 256; ++i) {
                rgba.set(rgb.subarray(i * 3, i * 3 + 3), i * 4);
                rgba[i * 4 + 3] = 255;
            }
            this.rgb = rgb;
            integerTexture(gl, 0, 256, 1, gl.RGBA_INTEGER, gl.RGBA8UI, rgba);
            integerTexture(gl, 1, 256, 32, gl.RED_INTEGER, gl.R8UI, WB.bytes(pal.intensity));
            // The texture atlas: each texture's pixels laid out linearly from a row of 256 (wb.texture).
            this.atlasBase = {};
            let rows = 0;
            const entries = Object.entries(window.WB_TEXTURES || {});
            for (const [slot, t] of entries) {
                this.atlasBase[slot] = rows * 256;
                rows += Math.ceil((t.stride * t.height) / 256) + 1;
            }
            const atlas = new Uint8Array(Math.max(rows, 1) * 256);
            for (const [slot, t] of entries) atlas.set(WB.bytes(t.pixels), this.atlasBase[slot]);
            integerTexture(gl, 2, 256, Math.max(rows, 1), gl.RED_INTEGER, gl.R8UI, atlas);
        }

        // Builds the vertex buffers of one record (its faces' fan triangles, lines and points).
        setRecord(rec, highlight) {
            const gl = this.gl;
            this.rec = rec;
            const pos = [], uv = [], plane = [], mat = [], face = [], hl = [], corner = [], poly = [];
            this.faceRange = [];
            this.polyBase = [];
            let polyTexels = 0;
            rec.faces.forEach((f, id) => {
                const inst = rec.instances[f.i];
                const at = (k) => (inst.placed ? inst.placed[f.v[k]] : inst.local[f.v[k]]);
                const type = f.dt !== undefined ? f.dt : f.t;
                const tex = window.WB_TEXTURES && f.tex !== undefined ? window.WB_TEXTURES[f.tex] : null;
                const texInfo = tex ? [this.atlasBase[f.tex], tex.stride, tex.stride * tex.height] : [0, 0, 0];
                const lit = highlight && highlight.has(id) ? 1 : 0;
                const start = pos.length / 3;
                this.polyBase.push(polyTexels); // WB.polyData: 1 + 2n texels per face
                polyTexels += 1 + 2 * f.v.length;
                const push = (k, pl) => {
                    pos.push(...at(k));
                    uv.push(f.u ? f.u[k] : 0, f.vv ? f.vv[k] : 0);
                    plane.push(...pl);
                    mat.push(type, f.c !== undefined ? f.c : 0, f.c2 !== undefined ? f.c2 : 0, f.m !== undefined ? f.m : -1);
                    face.push(id, ...texInfo);
                    hl.push(lit);
                    corner.push(id, k);
                    poly.push(this.polyBase[id]);
                };
                let kind = "tri";
                // wb.lines: a point or segment on a plane of its model takes that plane; a zero
                // normal marks one on none.
                const held = (k) => (f.pl && f.pl[k] >= 0 ? rec.planes[f.pl[k]].n : [0, 0, 0, 0]);
                if (POINTS.has(type)) {
                    kind = "point";
                    f.v.forEach((_, k) => push(k, held(k)));
                } else if (LINES.has(type)) {
                    kind = "line";
                    for (let k = 0; k + 1 < f.v.length; ++k) push(k, held(k)), push(k + 1, held(k));
                } else {
                    (f.tri || []).forEach((t, ti) => {
                        if (f.pl[ti] < 0) return; // collinear: covers no area
                        const pl = rec.planes[f.pl[ti]].n;
                        for (const k of t) push(k, pl);
                    });
                    if (REMAP.has(type)) kind = "remap";
                }
                this.faceRange.push({ start, count: pos.length / 3 - start, kind });
            });
            this.corner = corner;
            this.vertexCount = pos.length / 3;
            const vao = (this.vao = gl.createVertexArray());
            gl.bindVertexArray(vao);
            const attribute = (name, data, size, integer) => {
                const loc = gl.getAttribLocation(this.prog, name);
                const b = gl.createBuffer();
                gl.bindBuffer(gl.ARRAY_BUFFER, b);
                gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
                gl.enableVertexAttribArray(loc);
                if (integer) gl.vertexAttribIPointer(loc, size, gl.INT, 0, 0);
                else gl.vertexAttribPointer(loc, size, gl.FLOAT, false, 0, 0);
                return b;
            };
            attribute("a_pos", new Float32Array(pos), 3);
            attribute("a_uv", new Float32Array(uv), 2);
            this.levelBuffer = attribute("a_level", new Float32Array(this.vertexCount), 1);
            this.screenBuffer = attribute("a_screen", new Float32Array(3 * this.vertexCount), 3);
            attribute("a_plane", new Float32Array(plane), 4);
            attribute("a_mat", new Int32Array(mat), 4, true);
            attribute("a_face", new Int32Array(face), 4, true);
            attribute("a_hl", new Float32Array(hl), 1);
            attribute("a_poly", new Int32Array(poly), 1, true);
            this.polyTexels = polyTexels;
            this.indexBuffer = gl.createBuffer();
            gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, this.indexBuffer);
            this.light = null;
        }

        // light.levels per vertex for a world light (Q14 integers); the root at identity (Q31).
        setLight(light) {
            const rec = this.rec, gl = this.gl;
            const lms = rec.instances.map((inst) => WB.modelLight(inst.rotation, light));
            const levels = new Float32Array(this.vertexCount);
            // light.levels: each face vertex's integer level, as the engine passes it
            this.faceLevels = rec.faces.map((f) => {
                const type = f.dt !== undefined ? f.dt : f.t;
                return f.v.map((_, k) => {
                    if (GOURAUD.has(type) && f.g) return WB.level(lms[f.i], rec.instances[f.i].normals[f.g[k]]);
                    if ((FLAT_SHADED.has(type) || GOURAUD.has(type)) && f.n !== undefined)
                        return WB.level(lms[f.i], rec.instances[f.i].normals[f.n]);
                    return 31;
                });
            });
            for (let i = 0; i < this.vertexCount; ++i) {
                const f = rec.faces[this.corner[2 * i]], k = this.corner[2 * i + 1];
                const type = f.dt !== undefined ? f.dt : f.t;
                const inst = rec.instances[f.i];
                let level = 31;
                if (GOURAUD.has(type) && f.g) level = WB.level(lms[f.i], inst.normals[f.g[k]]);
                else if ((FLAT_SHADED.has(type) || GOURAUD.has(type)) && f.n !== undefined)
                    level = WB.level(lms[f.i], inst.normals[f.n]);
                levels[i] = level + 1 / 64; // so that float error cannot floor a vertex's own level below it
            }
            gl.bindBuffer(gl.ARRAY_BUFFER, this.levelBuffer);
            gl.bufferData(gl.ARRAY_BUFFER, levels, gl.STATIC_DRAW);
            this.light = light;
        }

        // wb.walk: the program tree of one state walked for this view: op 0 stores its winding
        // (-1 with a vertex behind, 0 under three vertices), op 1 draws when it is >= 0, op 2 runs
        // the back branch first when its winding is >= 0, op 6 walks the child with its own winding.
        order(tree, screen) {
            const rec = this.rec, drawn = [];
            const behind = (i, vs) => vs.some((v) => screen[i][v].behind);
            const wind = (i, a, b, c) => {
                const s = screen[i], p0 = s[a], p1 = s[b], p2 = s[c];
                return (p1.x - p0.x) * (p2.y - p0.y) - (p1.y - p0.y) * (p2.x - p0.x) >= 0 ? 0 : -1;
            };
            // A branch continues the same model draw: its op 0 updates the caller's last winding.
            const walkSeq = (nodes, last) => {
                for (const n of nodes) {
                    if (typeof n === "number") {
                        const f = rec.faces[n];
                        if (f.op === 0) {
                            if (behind(f.i, f.v)) last = -1;
                            else {
                                last = f.v.length >= 3 ? wind(f.i, f.v[0], f.v[1], f.v[2]) : 0;
                                drawn.push(n);
                            }
                        } else if (last >= 0 && !behind(f.i, f.v)) drawn.push(n);
                    } else if (n.p) {
                        const [i, a, b, c] = n.p;
                        const w = behind(i, [a, b, c]) ? -1 : wind(i, a, b, c);
                        const [first, second] = w >= 0 ? [n.b, n.f] : [n.f, n.b];
                        last = walkSeq(first, last);
                        last = walkSeq(second, last);
                    } else if (n.a !== undefined) {
                        walkSeq(n.n, -1);
                    }
                }
                return last;
            };
            walkSeq(tree, -1);
            return drawn;
        }

        // view: {rows: [[...],[...],[...]] camera rows, offset: rows * (placement - camera) (doubles),
        //        focal, width, height, state (index into rec.states), light, depth: 0 plane | 1 interpolated,
        //        engine: {camera, placement} of the engine (check.html) to draw with the engine's own
        //        integer screen vertices (wb.screen), at 320 x 200 with focal 256}
        render(view, pass = 0) {
            const gl = this.gl, rec = this.rec;
            if (!this.light || this.light.join() !== view.light.join()) this.setLight(view.light);
            const R = view.rows, off = view.offset, W = view.width, H = view.height, f = view.focal;
            let far = 1024;
            let screen;
            if (view.engine) {
                screen = WB.engineScreen(rec, view.engine.camera, view.engine.placement);
                const data = new Float32Array(3 * this.vertexCount);
                for (let i = 0; i < this.vertexCount; ++i) {
                    const face = rec.faces[this.corner[2 * i]], s = screen[face.i][face.v[this.corner[2 * i + 1]]];
                    data.set([s.x, s.y, s.z], 3 * i);
                }
                // wb.raster: the engine writes pixels up to one beyond the exact polygon (its
                // crossings are truncated), so each fan triangle is drawn over its screen box grown
                // by 2 pixels and the fragment shader keeps the engine's pixels. 1/z stays the
                // triangle's own screen-affine function (the seeded fault's interpolated depth).
                this.faceRange.forEach((r) => {
                    if (r.kind !== "tri" && r.kind !== "remap") return;
                    for (let t = r.start; t + 2 < r.start + r.count; t += 3) WB.growTriangle(data, t);
                });
                for (const s of screen) for (const p of s) far = Math.max(far, p.z);
                gl.bindBuffer(gl.ARRAY_BUFFER, this.screenBuffer);
                gl.bufferData(gl.ARRAY_BUFFER, data, gl.STREAM_DRAW);
                // WB.polyData: per face [n], [sx, sy, u, v] per vertex, [level] per vertex
                const rows = Math.max(1, Math.ceil(this.polyTexels / 1024));
                const texels = new Int32Array(rows * 1024 * 4);
                rec.faces.forEach((face, id) => {
                    const at = this.polyBase[id], n = face.v.length, s = screen[face.i];
                    texels[4 * at] = n;
                    face.v.forEach((vtx, k) => {
                        texels.set([s[vtx].x, s[vtx].y, face.u ? face.u[k] : 0, face.vv ? face.vv[k] : 0], 4 * (at + 1 + k));
                        texels[4 * (at + 1 + n + k)] = this.faceLevels[id][k];
                    });
                });
                gl.activeTexture(gl.TEXTURE3);
                gl.bindTexture(gl.TEXTURE_2D, this.polyTexture);
                gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
                gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32I, 1024, rows, 0, gl.RGBA_INTEGER, gl.INT, texels);
                gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
                gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
            } else {
                screen = rec.instances.map((inst) => {
                    const vs = inst.placed || inst.local;
                    return vs.map((p) => {
                        const e = [0, 1, 2].map((i) => R[i][0] * p[0] + R[i][1] * p[1] + R[i][2] * p[2] + off[i]);
                        far = Math.max(far, e[2]);
                        if (e[2] < 64) return { behind: true }; // geo.near
                        return { x: W / 2 + (f * e[0]) / e[2], y: H / 2 - (f * e[1]) / e[2], behind: false };
                    });
                });
            }
            far = far * 1.25 + 256;
            const drawn = this.order(rec.states[view.state || 0].tree, screen);
            this.drawn = drawn;
            gl.viewport(0, 0, W, H);
            gl.useProgram(this.prog);
            gl.bindVertexArray(this.vao);
            gl.uniformMatrix3fv(this.u.u_rot, false, [R[0][0], R[1][0], R[2][0], R[0][1], R[1][1], R[2][1], R[0][2], R[1][2], R[2][2]]);
            gl.uniform3fv(this.u.u_off, off);
            gl.uniform2f(this.u.u_size, W, H);
            gl.uniform1f(this.u.u_focal, f);
            gl.uniform1f(this.u.u_near, 16);
            gl.uniform1f(this.u.u_far, far);
            gl.uniform1f(this.u.u_point, Math.max(1, Math.round(W / 320)));
            gl.uniform1i(this.u.u_palette, 0);
            gl.uniform1i(this.u.u_intensity, 1);
            gl.uniform1i(this.u.u_atlas, 2);
            gl.uniform1i(this.u.u_poly, 3);
            gl.uniform1i(this.u.u_depth, view.depth || 0);
            gl.uniform1i(this.u.u_engine, view.engine ? 1 : 0);
            gl.uniform1i(this.u.u_selected, view.selected === undefined ? -1 : view.selected);
            const sky = this.rgb.subarray(224 * 3, 224 * 3 + 3); // fb.clear
            if (pass === 3) gl.clearColor(0, 0, 0, 0);
            else gl.clearColor(sky[0] / 255, sky[1] / 255, sky[2] / 255, 1);
            gl.clearDepth(1);
            gl.enable(gl.DEPTH_TEST);
            gl.depthFunc(gl.LEQUAL);
            gl.depthMask(true);
            gl.disable(gl.BLEND);
            gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
            // Every face in the walk's order (wb.order): runs of one primitive kind, one draw call each.
            // Opaque fragments have alpha 1, so blending leaves them exact; the remap preview blends.
            if (pass === 3) gl.disable(gl.BLEND);
            else gl.enable(gl.BLEND);
            gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
            const modes = { tri: gl.TRIANGLES, remap: gl.TRIANGLES, line: gl.LINES, point: gl.POINTS };
            const runs = [];
            for (const id of drawn) {
                const r = this.faceRange[id];
                if (!r.count || (r.kind === "remap" && view.preview === false)) continue;
                if (pass === 3 && (r.kind === "line" || r.kind === "point")) continue;
                const mode = modes[r.kind], p = pass === 3 ? 3 : r.kind === "line" || r.kind === "point" ? 2 : 0;
                if (!runs.length || runs[runs.length - 1].mode !== mode || runs[runs.length - 1].pass !== p)
                    runs.push({ mode, pass: p, list: [] });
                const list = runs[runs.length - 1].list;
                for (let k = 0; k < r.count; ++k) list.push(r.start + k);
            }
            const all = new Uint32Array(runs.reduce((n, r) => n + r.list.length, 0));
            let at = 0;
            for (const r of runs) {
                all.set(r.list, at);
                r.at = at;
                at += r.list.length;
            }
            gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, all, gl.STREAM_DRAW);
            for (const r of runs) {
                gl.uniform1i(this.u.u_pass, r.pass);
                gl.drawElements(r.mode, r.list.length, gl.UNSIGNED_INT, r.at * 4);
            }
            gl.disable(gl.BLEND);
            return drawn;
        }

        // The face under a pixel (canvas coordinates from the top left), or -1.
        pick(view, x, y) {
            const gl = this.gl, W = view.width, H = view.height;
            if (!this.pickFbo || this.pickW !== W || this.pickH !== H) {
                this.pickFbo = gl.createFramebuffer();
                gl.bindFramebuffer(gl.FRAMEBUFFER, this.pickFbo);
                const c = gl.createRenderbuffer();
                gl.bindRenderbuffer(gl.RENDERBUFFER, c);
                gl.renderbufferStorage(gl.RENDERBUFFER, gl.RGBA8, W, H);
                gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, c);
                const d = gl.createRenderbuffer();
                gl.bindRenderbuffer(gl.RENDERBUFFER, d);
                gl.renderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24, W, H);
                gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, d);
                this.pickW = W;
                this.pickH = H;
            }
            gl.bindFramebuffer(gl.FRAMEBUFFER, this.pickFbo);
            this.render(view, 3);
            const px = new Uint8Array(4);
            gl.readPixels(Math.floor(x), H - 1 - Math.floor(y), 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
            gl.bindFramebuffer(gl.FRAMEBUFFER, null);
            return px[0] + (px[1] << 8) + (px[2] << 16) - 1;
        }

        // RGBA rows top to bottom of what was last drawn on the canvas.
        pixels(width, height) {
            const gl = this.gl, px = new Uint8Array(width * height * 4), out = new Uint8Array(width * height * 4);
            gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, px);
            for (let y = 0; y < height; ++y) out.set(px.subarray((height - 1 - y) * width * 4, (height - y) * width * 4), y * width * 4);
            return out;
        }
    }
    WB.Renderer = Renderer;

    // wb.screen: every instance's screen vertices as the engine computes them (geo.camera,
    // geo.transform, geo.grid, geo.project) in its integer arithmetic, for a camera of the engine
    // (position, Q14 rows) and a placement of the root: {x: sx, y: sy, z, behind} per vertex.
    // Products stay below 2^53, so doubles hold them exactly; >> is Math.floor of a power of two.
    const Q31 = 2147483648, Q14 = 16384;
    const int32 = (x) => x | 0;
    const clamp16 = (x) => Math.min(Math.max(x, -32768), 32767);
    WB.engineScreen = function (rec, camera, placement) {
        const r = camera.rotation;
        return rec.instances.map((inst) => {
            const q = inst.rotation, m = [], t = [];
            const d = [0, 1, 2].map((k) => inst.position[k] + placement[k] - camera.position[k]);
            for (let i = 0; i < 3; ++i) {
                for (let j = 0; j < 3; ++j)
                    m.push(int32(Math.floor((r[3 * i] * q[j] + r[3 * i + 1] * q[3 + j] + r[3 * i + 2] * q[6 + j]) / Q31)));
                t.push(int32(Math.floor((r[3 * i] * d[0] + r[3 * i + 1] * d[1] + r[3 * i + 2] * d[2]) / Q14)));
            }
            const grid = inst.grid || null;
            return inst.local.map((v, k) => {
                const cam = [0, 1, 2].map((i) => {
                    if (!grid) return int32(Math.floor((m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2]) / Q14) + t[i]);
                    let sum = 0; // geo.grid: the rotated coarse and fine tables, each entry floored
                    for (let j = 0; j < 3; ++j) {
                        sum += Math.floor((m[3 * i + j] * (grid[k][j] - 32) * 4096) / Q14);
                        sum += Math.floor((m[3 * i + j] * (grid[k][3 + j] - 32) * 64) / Q14);
                    }
                    return int32(sum + t[i]);
                });
                if (cam[2] < 64) return { x: 0, y: 0, z: cam[2], behind: true }; // geo.near
                const qx = int32(Math.trunc((cam[0] * 256) / cam[2])), qy = int32(Math.trunc((cam[1] * 256) / cam[2]));
                return { x: clamp16(int32(160 + qx)), y: clamp16(int32(100 - qy)), z: cam[2], behind: false };
            });
        });
    };

    // Replaces the corners t, t+1, t+2 of `data` ([x, y, z] each) by a triangle over their screen box
    // grown by 2 pixels ((x0, y0), (x0 + 2w, y0), (x0, y0 + 2h)), whose 1/z is the original
    // triangle's screen-affine function (its mean for an edge-on one), kept positive.
    WB.growTriangle = function (data, t) {
        const P = [0, 1, 2].map((k) => [data[3 * (t + k)], data[3 * (t + k) + 1], 1 / data[3 * (t + k) + 2]]);
        if (P.some((p) => !(p[2] > 0))) return; // behind
        const det = (P[1][0] - P[0][0]) * (P[2][1] - P[0][1]) - (P[2][0] - P[0][0]) * (P[1][1] - P[0][1]);
        const xs = P.map((p) => p[0]), ys = P.map((p) => p[1]);
        const x0 = Math.min(...xs) - 2, y0 = Math.min(...ys) - 2;
        const w = Math.max(...xs) + 2 - x0, h = Math.max(...ys) + 2 - y0;
        const least = Math.min(P[0][2], P[1][2], P[2][2]) / 4;
        [[x0, y0], [x0 + 2 * w, y0], [x0, y0 + 2 * h]].forEach(([x, y], k) => {
            let inv = (P[0][2] + P[1][2] + P[2][2]) / 3;
            if (det !== 0) {
                const b1 = ((x - P[0][0]) * (P[2][1] - P[0][1]) - (P[2][0] - P[0][0]) * (y - P[0][1])) / det;
                const b2 = ((P[1][0] - P[0][0]) * (y - P[0][1]) - (x - P[0][0]) * (P[1][1] - P[0][1])) / det;
                inv = (1 - b1 - b2) * P[0][2] + b1 * P[1][2] + b2 * P[2][2];
            }
            data.set([x, y, 1 / Math.max(inv, least)], 3 * (t + k));
        });
    };

    // A view from a camera of the engine (position, Q14 rows) and a placement of the root.
    WB.engineView = function (camera, placement) {
        const rows = [0, 1, 2].map((i) => [0, 1, 2].map((k) => camera.rotation[i * 3 + k] / 16384));
        const d = [0, 1, 2].map((k) => placement[k] - camera.position[k]);
        const offset = [0, 1, 2].map((i) => rows[i][0] * d[0] + rows[i][1] * d[1] + rows[i][2] * d[2]);
        return { rows, offset };
    };
})();
