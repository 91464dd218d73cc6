// Trace files (runtime/run/trace_file.ts): the JSON is a Chrome Trace
// Event document every event of which has the fields viewers need; the
// page embeds the events safely (a name holding "</script>" cannot end
// the script), inlines its script and style, and refers to no network.

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import {
  Executor,
  fillConstant,
  go,
  makeChannel,
  Program,
  recv,
  send,
  traceHtml,
  traceJson,
} from "../../../mod.ts";
import type { TraceEvent } from "../../../runtime/core/trace_event.ts";

async function realTrace(): Promise<TraceEvent[]> {
  const program = new Program();
  program.guard(() => {
    const ch = makeChannel({ dtype: "int32" });
    go(() => send(ch, fillConstant({ shape: [1], dtype: "int32", value: 1 })));
    recv(ch);
  });
  let events: TraceEvent[] = [];
  await new Executor({ trace: (e) => events = e }).run(program.desc);
  return events;
}

Deno.test("traceJson() writes every event with ph, ts, pid, tid and name", async () => {
  const events = await realTrace();
  const doc = JSON.parse(traceJson(events));
  assertEquals(doc.traceEvents.length, events.length);
  for (const e of doc.traceEvents) {
    assertEquals(typeof e.ph, "string");
    assertEquals(typeof e.ts, "number");
    assertEquals(typeof e.pid, "number");
    assertEquals(typeof e.tid, "number");
    assertEquals(typeof e.name, "string");
    if (e.ph === "X") assert(e.dur >= 0);
    if (e.ph === "s" || e.ph === "f") assertEquals(typeof e.id, "number");
  }
  const phases = new Set(doc.traceEvents.map((e: TraceEvent) => e.ph));
  for (const ph of ["X", "s", "f", "M"]) assert(phases.has(ph), ph);
});

Deno.test("traceHtml() embeds the events so that no name can end the script", () => {
  const evil: TraceEvent = {
    name: "</script><script>alert(1)</script>",
    ph: "i",
    s: "t",
    ts: 0,
    pid: 0,
    tid: 1,
  };
  const page = traceHtml([evil], "a<b>.pb");
  assertEquals(page.match(/<\/script>/g)?.length, 2); // the two real ones
  assertStringIncludes(page, "Rill trace: a&lt;b&gt;.pb");
  const json =
    /<script type="application\/json" id="trace-data">([^]*?)<\/script>/
      .exec(page)![1];
  assertEquals(JSON.parse(json).traceEvents[0].name, evil.name);
});

Deno.test("traceHtml() is self-contained: inline script and style, no network", async () => {
  const page = traceHtml(await realTrace(), "p.pb");
  assert(!/https?:\/\//.test(page));
  assert(!/<(script|link|img|iframe)\b[^>]*\b(src|href)=/i.test(page));
  assertStringIncludes(page, "<style>");
  assertStringIncludes(page, 'getElementById("trace-data")');
  assertStringIncludes(page, '<canvas id="timeline">');
});
