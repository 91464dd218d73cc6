// The timeline page's own style and script, inlined into every trace page
// (trace_html.ts), so that the page needs nothing from the network. The
// script reads the events from the page's JSON block, makes one labelled
// row per track (grouped per worker), and draws spans, instants and flows
// on a canvas that the wheel zooms (about the pointer) and a drag pans.
// It is plain JavaScript, written without backquotes so that it can live
// in this template string.

/** The page's style sheet. */
export const VIEWER_CSS = `
body { margin: 0; font: 12px system-ui, sans-serif; color: #222; background: #fff; }
header { padding: 6px 10px; border-bottom: 1px solid #ccc; display: flex; gap: 12px; align-items: center; }
header h1 { font-size: 14px; margin: 0; }
header button { font: inherit; }
#summary { color: #555; }
#view { display: flex; position: relative; }
#labels { flex: 0 0 260px; border-right: 1px solid #ccc; }
.axis-label { height: 20px; border-bottom: 1px solid #ccc; }
.group-label { height: 20px; line-height: 20px; padding: 0 6px; background: #eef; font-weight: 600; }
.track-label { height: 20px; line-height: 20px; padding: 0 6px 0 16px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#canvas-box { flex: 1 1 auto; overflow: hidden; }
canvas { display: block; cursor: grab; }
#tip { position: absolute; pointer-events: none; background: #ffd; border: 1px solid #aa8; padding: 4px 6px; white-space: pre; display: none; }
#legend span { display: inline-block; padding: 0 6px; margin-right: 4px; border-radius: 3px; }
`;

/** The page's script: reads #trace-data and draws the timeline. */
export const VIEWER_JS = `
(function () {
  "use strict";
  var ROW = 20, AXIS = 20;
  var data = JSON.parse(document.getElementById("trace-data").textContent);
  var events = data.traceEvents || [];
  var COLORS = { thread: "#7bc47f", op: "#4a7fd4", wait: "#e0b050", gpu: "#b070d0", rpc: "#d07050" };
  var WAITS = { "chan receive": "#f0c060", "chan send": "#f0a040", "select": "#e8d070", "sleep": "#c8c8c8" };

  // Tracks: one per (pid, tid) that has an event, in worker then id order.
  var names = {}, procNames = {}, tracks = [], byKey = {};
  events.forEach(function (e) {
    if (e.ph === "M" && e.name === "thread_name") names[e.pid + ":" + e.tid] = e.args.name;
    if (e.ph === "M" && e.name === "process_name") procNames[e.pid] = e.args.name;
  });
  events.forEach(function (e) {
    if (e.ph === "M") return;
    var key = e.pid + ":" + e.tid;
    if (byKey[key] === undefined) {
      byKey[key] = { pid: e.pid, tid: e.tid, key: key, spans: [], ops: [], marks: [] };
      tracks.push(byKey[key]);
    }
    var t = byKey[key];
    // Ops are drawn last, over the running span they sit in.
    if (e.ph === "X") (e.cat === "op" ? t.ops : t.spans).push(e);
    else if (e.ph === "i") t.marks.push(e);
  });
  tracks.sort(function (a, b) { return a.pid - b.pid || (a.tid < 0) - (b.tid < 0) || a.tid - b.tid; });

  // Rows: a group row per worker, then its tracks.
  var rows = [], labels = document.getElementById("labels"), lastPid = null;
  function addLabel(cls, text, attrs) {
    var div = document.createElement("div");
    div.className = cls;
    div.textContent = text;
    div.title = text;
    for (var k in attrs) div.setAttribute(k, attrs[k]);
    labels.appendChild(div);
  }
  tracks.forEach(function (t) {
    if (t.pid !== lastPid) {
      lastPid = t.pid;
      rows.push(null);
      addLabel("group-label", procNames[t.pid] || ("worker " + t.pid), { "data-pid": t.pid });
    }
    t.row = rows.length;
    rows.push(t);
    addLabel("track-label", names[t.key] || (t.tid < 0 ? "GPU" : "goroutine " + t.tid), { "data-pid": t.pid, "data-tid": t.tid });
  });

  // Flows: each id's start (s) and end (f).
  var flows = {};
  events.forEach(function (e) {
    if (e.ph !== "s" && e.ph !== "f") return;
    var f = flows[e.id] || (flows[e.id] = {});
    f[e.ph] = e;
  });

  var t0 = Infinity, t1 = -Infinity;
  events.forEach(function (e) {
    if (e.ph === "M") return;
    t0 = Math.min(t0, e.ts);
    t1 = Math.max(t1, e.ts + (e.dur || 0));
  });
  if (!isFinite(t0)) { t0 = 0; t1 = 1; }
  if (t1 <= t0) t1 = t0 + 1;
  document.getElementById("summary").textContent = Object.keys(procNames).length + " worker(s), " +
    tracks.length + " track(s), " + events.length + " events, " + ((t1 - t0) / 1000).toFixed(3) + " ms";

  var canvas = document.getElementById("timeline"), box = document.getElementById("canvas-box");
  var ctx = canvas.getContext("2d");
  var view = { from: t0, to: t1 };
  function width() { return Math.max(200, box.clientWidth || 800); }
  function x(ts) { return (ts - view.from) / (view.to - view.from) * width(); }
  function y(row) { return AXIS + row * ROW; }
  function rowOf(e) { var t = byKey[e.pid + ":" + e.tid]; return t ? t.row : 0; }

  function draw() {
    var w = width(), h = AXIS + rows.length * ROW + 4;
    canvas.width = w;
    canvas.height = h;
    ctx.clearRect(0, 0, w, h);
    ctx.font = "10px sans-serif";
    // Axis: about ten ticks at round times.
    var span = view.to - view.from, step = Math.pow(10, Math.floor(Math.log10(span / 10)));
    if (span / step > 20) step *= 5; else if (span / step > 10) step *= 2;
    ctx.fillStyle = "#555";
    ctx.strokeStyle = "#eee";
    for (var rel = Math.ceil((view.from - t0) / step) * step; t0 + rel <= view.to; rel += step) {
      var tick = t0 + rel, tx = x(tick);
      ctx.beginPath(); ctx.moveTo(tx, AXIS); ctx.lineTo(tx, h); ctx.stroke();
      ctx.fillText(+(rel / 1000).toFixed(6) + " ms", tx + 2, 12);
    }
    rows.forEach(function (t, r) {
      if (t === null) { ctx.fillStyle = "#eef"; ctx.fillRect(0, y(r), w, ROW); return; }
      t.spans.concat(t.ops).forEach(function (e) {
        var a = x(e.ts), b = x(e.ts + e.dur);
        if (b < 0 || a > w) return;
        var op = e.cat === "op";
        ctx.fillStyle = e.cat === "wait" ? (WAITS[e.name] || COLORS.wait) : (COLORS[e.cat] || "#999");
        var top = y(r) + (op ? 10 : 2), height = op ? 8 : 16;
        ctx.fillRect(a, top, Math.max(1, b - a), height);
        if (b - a > 40) {
          ctx.fillStyle = op ? "#fff" : "#000";
          ctx.font = op ? "8px sans-serif" : "10px sans-serif";
          // A span's label sits above the op bars; an op's inside its bar.
          ctx.fillText(e.name, Math.max(a, 0) + 2, op ? top + 7 : top + 8, b - a - 4);
        }
      });
      t.marks.forEach(function (e) {
        var a = x(e.ts);
        ctx.fillStyle = e.cat === "panic" ? "#d00" : e.cat === "select" ? "#70c" : "#555";
        ctx.beginPath();
        ctx.moveTo(a, y(r) + 2); ctx.lineTo(a - 5, y(r) + 12); ctx.lineTo(a + 5, y(r) + 12);
        ctx.fill();
      });
    });
    ctx.strokeStyle = "rgba(40,40,40,0.7)";
    for (var id in flows) {
      var f = flows[id];
      if (!f.s || !f.f) continue;
      var ya = y(rowOf(f.s)) + ROW / 2, yb = y(rowOf(f.f)) + ROW / 2;
      ctx.beginPath(); ctx.moveTo(x(f.s.ts), ya); ctx.lineTo(x(f.f.ts), yb); ctx.stroke();
      ctx.beginPath(); ctx.arc(x(f.f.ts), yb, 2, 0, 2 * Math.PI); ctx.stroke();
    }
  }

  function zoom(factor, at) {
    var pivot = view.from + at / width() * (view.to - view.from);
    var from = pivot - (pivot - view.from) * factor, to = pivot + (view.to - pivot) * factor;
    if (to - from < 0.01) return;
    view.from = from; view.to = to;
    draw();
  }
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    zoom(ev.deltaY < 0 ? 0.8 : 1.25, ev.offsetX);
  }, { passive: false });
  var dragging = null;
  canvas.addEventListener("mousedown", function (ev) { dragging = { x: ev.clientX, from: view.from, to: view.to }; });
  window.addEventListener("mouseup", function () { dragging = null; });
  window.addEventListener("mousemove", function (ev) {
    if (dragging === null) return;
    var dt = (ev.clientX - dragging.x) / width() * (dragging.to - dragging.from);
    view.from = dragging.from - dt; view.to = dragging.to - dt;
    draw();
  });
  document.getElementById("zoom-in").onclick = function () { zoom(0.5, width() / 2); };
  document.getElementById("zoom-out").onclick = function () { zoom(2, width() / 2); };
  document.getElementById("reset").onclick = function () { view.from = t0; view.to = t1; draw(); };

  // A tooltip naming the span or instant under the pointer.
  var tip = document.getElementById("tip");
  canvas.addEventListener("mousemove", function (ev) {
    var t = rows[Math.floor((ev.offsetY - AXIS) / ROW)], ts = view.from + ev.offsetX / width() * (view.to - view.from);
    var hit = null;
    if (t) t.spans.concat(t.ops).forEach(function (e) { if (e.ts <= ts && ts <= e.ts + e.dur && (!hit || e.cat === "op")) hit = e; });
    if (!hit) { tip.style.display = "none"; return; }
    tip.textContent = hit.name + "\\n" + (hit.dur / 1000).toFixed(3) + " ms at " + ((hit.ts - t0) / 1000).toFixed(3) + " ms" +
      (hit.args ? "\\n" + JSON.stringify(hit.args) : "");
    tip.style.left = (ev.offsetX + 270) + "px";
    tip.style.top = (ev.offsetY + 40) + "px";
    tip.style.display = "block";
  });
  window.addEventListener("resize", draw);
  draw();
  document.body.setAttribute("data-tracks", String(tracks.length));
})();
`;
