// `--trace FILE.json|FILE.html` from a real process: the JSON is a Chrome
// Trace Event document with the fields every viewer needs, the page is
// self-contained, a file that cannot be written fails before the run, and
// in headless Chromium (when a `chromium` binary is on PATH) the page of a
// real 2-worker trace shows its tracks and draws a non-blank timeline.

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "@std/path";
import { toBinary } from "@bufbuild/protobuf";
import { examplePath } from "../../../examples/build.ts";
import { ProgramDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import { closeChannel, makeChannel, Program } from "../../../mod.ts";
import { runRill } from "../../_helpers/rill_process.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

interface Event {
  ph: string;
  ts: number;
  pid: number;
  tid: number;
  name: string;
  dur?: number;
  id?: number;
}

Deno.test("--trace FILE.json writes a Chrome Trace Event document", async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, "run.json");
    const r = await runRill([
      examplePath("select"),
      "--workers",
      "1",
      "--trace",
      file,
    ]);
    assertEquals(r.code, 0, r.stderr);
    assertStringIncludes(r.stdout, "received 42");
    const doc = JSON.parse(await Deno.readTextFile(file));
    const events: Event[] = doc.traceEvents;
    assert(events.length > 0);
    for (const e of events) {
      for (const field of ["ph", "ts", "pid", "tid", "name"] as const) {
        assert(e[field] !== undefined, `${JSON.stringify(e)} has no ${field}`);
      }
      assert(Number.isFinite(e.ts) && e.ts >= 0);
      if (e.ph === "X") assert(e.dur! >= 0);
    }
    const selects = events.filter((e) => e.name.startsWith("select: case"));
    assertEquals(selects.map((e) => e.name), [
      "select: case 1 (default)",
      "select: case 0 (recv)",
      "select: case 0 (send)",
    ]);
  });
});

Deno.test("--trace FILE.html writes one page that names no network address", async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, "run.html");
    const r = await runRill([
      examplePath("goroutine"),
      "--workers",
      "1",
      "--trace",
      file,
    ]);
    assertEquals(r.code, 0, r.stderr);
    const page = await Deno.readTextFile(file);
    assert(page.startsWith("<!DOCTYPE html>"));
    assert(!/https?:\/\//.test(page), "the page refers to the network");
    assert(!/<(script|link|img)[^>]+(src|href)=/.test(page));
    assertStringIncludes(page, "goroutine 1 (main)");
  });
});

Deno.test("--trace to a file that cannot be written fails before the run", async () => {
  await withTempDir(async (dir) => {
    const bad = join(dir, "no", "such", "dir", "t.json");
    const r = await runRill([examplePath("select"), "--trace", bad]);
    assertEquals(r.code, 1);
    assertEquals(r.stdout, ""); // nothing ran
    assertEquals(
      r.stderr,
      `error: --trace: cannot write "${bad}": no such file\n`,
    );
    const txt = await runRill([examplePath("select"), "--trace", "t.txt"]);
    assertEquals([txt.code, txt.stdout], [1, ""]);
    assertEquals(
      txt.stderr,
      `error: --trace: "t.txt" should end in .json or .html\n`,
    );
  });
});

Deno.test("--trace of a run that panics still writes the trace, with the panic", async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, "panic.json");
    const program = join(dir, "panic.pb");
    const p = new Program();
    p.guard(() => {
      const ch = makeChannel({ dtype: "int32" });
      closeChannel(ch);
      closeChannel(ch);
    });
    await Deno.writeFile(program, toBinary(ProgramDescSchema, p.desc));
    const r = await runRill([program, "--workers", "1", "--trace", file]);
    assertEquals(r.code, 2, r.stderr);
    const events: Event[] = JSON.parse(await Deno.readTextFile(file))
      .traceEvents;
    const panic = events.find((e) =>
      e.ph === "i" && e.name.startsWith("panic")
    );
    assertEquals(panic?.name, "panic: close of closed channel");
  });
});

// The Chromium test's binary: skipped with one line when there is none.
const CHROMIUM = ["chromium", "chromium-browser", "google-chrome"].find((b) => {
  try {
    return new Deno.Command(b, { args: ["--version"] }).outputSync().success;
  } catch {
    return false;
  }
});

Deno.test({
  name:
    "--trace FILE.html shows a real 2-worker trace's tracks in headless Chromium",
  ignore: CHROMIUM === undefined,
  async fn() {
    await withTempDir(async (dir) => {
      const file = join(dir, "sieve.html");
      const r = await runRill([
        examplePath("prime_sieve"),
        "--workers",
        "2",
        "--trace",
        file,
      ]);
      assertEquals(r.code, 0, r.stderr);
      const flags = [
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        `--user-data-dir=${join(dir, "profile")}`,
        "--window-size=1200,800",
      ];
      const url = `file://${file}`;
      const dom = await chromium([...flags, "--dump-dom", url]);
      // The script ran: it rendered a label per track, grouped per worker.
      const tracks = [
        ...dom.matchAll(/class="track-label"[^>]*data-pid="(\d+)"/g),
      ]
        .map((m) => Number(m[1]));
      assert(tracks.length >= 2, `tracks: ${tracks}`);
      assertEquals([...new Set(tracks)].sort(), [0, 1]);
      assertStringIncludes(dom, "goroutine 1 (main)");
      assertStringIncludes(dom, `data-tracks="${tracks.length}"`);
      const shot = join(dir, "sieve.png");
      await chromium([...flags, `--screenshot=${shot}`, url]);
      const png = await Deno.readFile(shot);
      assertEquals([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
      const view = new DataView(png.buffer, png.byteOffset);
      assertEquals([view.getUint32(16), view.getUint32(20)], [1200, 800]);
      // A blank 1200×800 page compresses to a few kB; drawn spans, labels
      // and flow lines take far more.
      assert(png.length > 20_000, `screenshot of ${png.length} bytes`);
    });
  },
});

// Runs Chromium, bounded in time; returns its stdout.
async function chromium(args: string[]): Promise<string> {
  const child = new Deno.Command(CHROMIUM!, {
    args,
    stdout: "piped",
    stderr: "null",
    stdin: "null",
  }).spawn();
  const timer = setTimeout(() => child.kill(), 60_000);
  try {
    const out = await child.output();
    assert(out.success, `chromium exited with ${out.code}`);
    return new TextDecoder().decode(out.stdout);
  } finally {
    clearTimeout(timer);
  }
}
