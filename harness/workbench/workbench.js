// The workbench pages: the index of every record, and one record in 3D (orbit, zoom, light,
// animation state, level-of-detail chain, face picking with the `refcheck dump` lines).
"use strict";
(function () {
    const WB = (window.WB = window.WB || {});
    const el = (id) => document.getElementById(id);
    const text = (tag, content, cls) => {
        const e = document.createElement(tag);
        e.textContent = content;
        if (cls) e.className = cls;
        return e;
    };
    const hex = (n) => "0x" + n.toString(16).padStart(4, "0");

    WB.indexPage = function () {
        const records = window.WB_INDEX.records, main = el("records");
        const cards = records.map((r) => {
            const a = document.createElement("a");
            a.className = "card";
            a.href = "record.html?r=" + r.record;
            if (r.thumb) {
                const img = document.createElement("img");
                img.loading = "lazy";
                img.src = r.thumb;
                img.alt = "record " + r.record;
                a.appendChild(img);
            }
            a.appendChild(text("div", r.record + " " + (r.name || "")));
            if (r.error) a.appendChild(text("div", r.error, "error"));
            else a.appendChild(text("div", (r.description || "") + " · " + r.encoding + " · " + r.faces + " faces"));
            a.dataset.key = (r.record + " " + (r.name || "") + " " + (r.description || "")).toLowerCase();
            main.appendChild(a);
            return a;
        });
        const filter = () => {
            const q = el("filter").value.trim().toLowerCase();
            let shown = 0;
            for (const c of cards) {
                c.hidden = q !== "" && !c.dataset.key.includes(q);
                shown += c.hidden ? 0 : 1;
            }
            el("count").textContent = shown + " of " + cards.length + " records";
        };
        el("filter").addEventListener("input", filter);
        filter();
        window.WB_READY = true;
    };

    // The records of the level-of-detail chain through r (hdr.next), first to last.
    function lodChain(r) {
        const next = new Map(), prev = new Map();
        for (const e of window.WB_INDEX.records) {
            if (e.next !== undefined && e.next >= 0) next.set(e.record, e.next), prev.set(e.next, e.record);
        }
        let first = r;
        const seen = new Set([r]);
        while (prev.has(first) && !seen.has(prev.get(first))) seen.add((first = prev.get(first)));
        const chain = [first];
        while (next.has(chain[chain.length - 1]) && !chain.includes(next.get(chain[chain.length - 1])))
            chain.push(next.get(chain[chain.length - 1]));
        return chain;
    }

    // A listing line's program offset ("> 0012  02 ..." or "  0012  ..."), or -1.
    function lineOffset(line) {
        const m = /^[> ] ([0-9a-f]{4,})  /.exec(line);
        return m ? parseInt(m[1], 16) : -1;
    }

    WB.recordPage = async function () {
        const params = new URLSearchParams(location.search);
        const r = parseInt(params.get("r") || "0", 10);
        const depth = params.get("depth") === "interpolated" ? 1 : 0;
        if (depth) {
            el("seeded").hidden = false;
            el("seeded").textContent = "SEEDED FAULT: ordinary interpolated depth instead of plane depth (wb.depth)";
        }
        // A report's link names the 3DOBJS.BIN its run read: a site built from another one shows
        // whatever model has that index here, so it says so first.
        const runObjs = params.get("objs"), built = (window.WB_INDEX.archives || {})["3DDATA/3DOBJS.BIN"];
        if (runObjs && runObjs !== built) {
            el("mismatch").hidden = false;
            el("mismatch").textContent = "OTHER ARCHIVES: the run read a 3DOBJS.BIN of SHA-256 " + runObjs.slice(0, 16) +
                "..., this workbench was built from one of " + String(built).slice(0, 16) +
                "...: record " + r + " here may be another model. Rebuild it: refcheck workbench --data DATA (the run's data root).";
        }
        const rec = await WB.loadRecord(r);
        document.title = "record " + r + " " + rec.name + " - refcheck workbench";
        el("title").textContent = "record " + r + " " + rec.name;
        el("description").textContent = rec.description + " · " + rec.encoding;
        const offsets = new Set((params.get("faces") || "").split(",").filter((s) => s !== "").map((s) => Number(s)));
        const highlight = new Set();
        rec.faces.forEach((f, id) => {
            if (rec.instances[f.i].model === r && offsets.has(f.o)) highlight.add(id);
        });

        const canvas = el("view"), renderer = new WB.Renderer(canvas);
        renderer.setRecord(rec, highlight);
        for (const m of lodChain(r)) {
            const o = new Option("record " + m + " " + ((window.WB_INDEX.records.find((e) => e.record === m) || {}).name || ""), m);
            o.selected = m === r;
            el("lod").appendChild(o);
        }
        el("lod").addEventListener("change", () => (location.search = "?r=" + el("lod").value));
        rec.states.forEach((s, i) => el("state").appendChild(new Option("state " + s.state + " (" + hex(s.state) + ")", i)));
        const wanted = rec.states.findIndex((s) => String(s.state) === params.get("state"));
        if (wanted >= 0) el("state").value = wanted;

        const cam = { yaw: rec.view.yaw, pitch: rec.view.pitch, distance: rec.view.distance, target: rec.view.target };
        const L = rec.view.light;
        el("lightYaw").value = Math.round((Math.atan2(L[0], L[2]) * 180) / Math.PI);
        el("lightPitch").value = Math.round((Math.asin(L[1] / Math.hypot(...L)) * 180) / Math.PI);
        let selected = -1;
        const view = () => {
            const rows = WB.orbitRows(cam.yaw, cam.pitch);
            const eye = [0, 1, 2].map((k) => cam.target[k] - rows[2][k] * cam.distance);
            const offset = [0, 1, 2].map((i) => -(rows[i][0] * eye[0] + rows[i][1] * eye[1] + rows[i][2] * eye[2]));
            const ly = (el("lightYaw").value * Math.PI) / 180, lp = (el("lightPitch").value * Math.PI) / 180;
            const light = [Math.sin(ly) * Math.cos(lp), Math.sin(lp), Math.cos(ly) * Math.cos(lp)].map((x) => Math.round(x * 16384));
            return { rows, offset, focal: (256 * canvas.width) / 320, width: canvas.width, height: canvas.height,
                state: Number(el("state").value), light, depth, engine: false, preview: el("preview").checked, selected };
        };
        const draw = () => {
            const drawn = renderer.render(view());
            el("stats").textContent = drawn.length + " of " + rec.faces.length + " faces drawn in this view, " +
                rec.planes.length + " planes, " + rec.instances.length + " instances" +
                (highlight.size ? ", " + highlight.size + " highlighted" : "");
        };
        for (const id of ["state", "lightYaw", "lightPitch", "preview"]) el(id).addEventListener("input", draw);

        let drag = null;
        canvas.addEventListener("mousedown", (e) => (drag = { x: e.clientX, y: e.clientY, moved: false }));
        window.addEventListener("mouseup", () => setTimeout(() => (drag = null)));
        window.addEventListener("mousemove", (e) => {
            if (!drag) return;
            const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
            if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
            cam.yaw -= dx * 0.4;
            cam.pitch = Math.max(-89, Math.min(89, cam.pitch + dy * 0.4));
            drag.x = e.clientX;
            drag.y = e.clientY;
            draw();
        });
        canvas.addEventListener("wheel", (e) => {
            e.preventDefault();
            cam.distance = Math.max(80, cam.distance * Math.exp(e.deltaY * 0.001));
            draw();
        }, { passive: false });
        canvas.addEventListener("click", (e) => {
            if (drag && drag.moved) return;
            const b = canvas.getBoundingClientRect();
            const x = ((e.clientX - b.left) * canvas.width) / b.width, y = ((e.clientY - b.top) * canvas.height) / b.height;
            selected = renderer.pick(view(), x, y);
            WB.lastClick = showFace(rec, selected).then(draw); // tests await it
        });
        draw();
        window.WB_READY = true;
    };

    async function showFace(rec, id) {
        const box = el("face");
        box.textContent = "";
        if (id < 0) {
            box.textContent = "No face there.";
            return;
        }
        const f = rec.faces[id], inst = rec.instances[f.i];
        const owner = inst.model === rec.record ? rec : await WB.loadRecord(inst.model);
        const name = (t) => t + " " + (WB.TYPE_NAMES[t] || "?");
        const rows = [
            ["face", id + (inst.path.length ? " of attached instance [" + inst.path.join(", ") + "]" : "")],
            ["record", inst.model + " " + owner.name],
            ["program offset", hex(f.o) + " (op " + f.op + ", " + (f.op === 0 ? "primary" : "secondary") + ")"],
            ["packet", name(f.t) + ", " + f.v.length + " vertices, material [" + f.mat.join(" ") + "]"],
        ];
        if (f.dt !== undefined) rows.push(["drawn as", name(f.dt) + " (a missing normal: fault.normal.flag)"]);
        rows.push(["vertices", f.v.join(" ")]);
        if (f.u) rows.push(["u, v", f.u.map((u, k) => u + "," + f.vv[k]).join("  ")]);
        if (f.tex !== undefined) rows.push(["texture", f.tex + (f.m !== undefined ? ", mask " + f.m : "")]);
        const table = document.createElement("table");
        for (const [k, v] of rows) {
            const tr = document.createElement("tr");
            tr.appendChild(text("th", k));
            tr.appendChild(text("td", v));
            table.appendChild(tr);
        }
        box.appendChild(table);
        const lines = owner.listing, at = lines.findIndex((l) => lineOffset(l) === f.o);
        const pre = document.createElement("pre");
        pre.className = "listing";
        for (let i = Math.max(0, at - 6); at >= 0 && i <= Math.min(lines.length - 1, at + 6); ++i) {
            pre.appendChild(text("div", (i === at ? "-> " : "   ") + lines[i], i === at ? "at" : ""));
        }
        box.appendChild(text("div", "refcheck dump " + inst.model + ":"));
        box.appendChild(pre);
    }
})();
