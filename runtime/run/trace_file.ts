// A run trace as a file: JSON in the Chrome Trace Event format, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open, or one HTML page
// that shows the same events on a zoomable timeline without any network
// access (its style and script are inlined: _trace_viewer.ts).

import type { TraceEvent } from "../core/trace_event.ts";
import { VIEWER_CSS, VIEWER_JS } from "./_trace_viewer.ts";

/**
 * The events as a Chrome Trace Event JSON document (`{"traceEvents": …}`),
 * times rounded to nanoseconds.
 *
 * @param events The run's events.
 * @returns The JSON text.
 *
 * @example Usage
 * ```ts
 * import { traceJson } from "./trace_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const json = traceJson([{ name: "running", ph: "X", ts: 1.23456, dur: 2, pid: 0, tid: 1 }]);
 * assertEquals(JSON.parse(json).traceEvents[0].ts, 1.235);
 * ```
 */
export function traceJson(events: readonly TraceEvent[]): string {
  const lines = events.map((e) => JSON.stringify(rounded(e)));
  return `{"displayTimeUnit":"ms","traceEvents":[\n${lines.join(",\n")}\n]}\n`;
}

/**
 * The events as one self-contained HTML page: a row per track, grouped per
 * worker, with spans, instants and flows on a timeline that the wheel
 * zooms and a drag pans.
 *
 * @param events The run's events.
 * @param title The page's title (the program's name).
 * @returns The HTML text.
 *
 * @example Usage
 * ```ts
 * import { traceHtml } from "./trace_file.ts";
 * import { assert } from "@std/assert";
 *
 * const page = traceHtml([], "p.pb");
 * assert(page.startsWith("<!DOCTYPE html>"));
 * assert(!/https?:\/\//.test(page));
 * ```
 */
export function traceHtml(
  events: readonly TraceEvent[],
  title: string,
): string {
  // "</" would end the script element early: escape it inside the JSON.
  const data = traceJson(events).replaceAll("</", "<\\/");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(`Rill trace: ${title}`)}</title>
<style>${VIEWER_CSS}</style>
</head>
<body>
<header>
<h1>${escapeHtml(`Rill trace: ${title}`)}</h1>
<span id="summary"></span>
<button id="zoom-in">zoom in</button>
<button id="zoom-out">zoom out</button>
<button id="reset">reset</button>
<span id="legend"><span style="background:#7bc47f">running</span><span style="background:#4a7fd4;color:#fff">op</span><span style="background:#f0c060">wait</span><span style="background:#b070d0">GPU</span> ▲ select/panic, lines: send → receive</span>
</header>
<div id="view">
<div id="labels"><div class="axis-label"></div></div>
<div id="canvas-box"><canvas id="timeline"></canvas></div>
<div id="tip"></div>
</div>
<script type="application/json" id="trace-data">${data}</script>
<script>${VIEWER_JS}</script>
</body>
</html>
`;
}

function rounded(e: TraceEvent): TraceEvent {
  const r = { ...e, ts: Math.round(e.ts * 1000) / 1000 };
  if (e.dur !== undefined) r.dur = Math.round(e.dur * 1000) / 1000;
  return r;
}

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;");
}
