// --record and --replay through the real CLI: a run whose output depends
// on the schedule, recorded on two workers, replays the same on one and two;
// a changed program, a garbage file and an unwritable path are one error
// line each, exit 1.

import { assertEquals, assertMatch } from "@std/assert";
import { toBinary } from "@bufbuild/protobuf";
import { ProgramDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import {
  fillConstant,
  forRange,
  go,
  load,
  makeChannel,
  print,
  Program,
  recv,
  select,
  send,
} from "../../../mod.ts";
import { encodeNpy } from "../../../kernels/npy.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { runRill } from "../../_helpers/rill_process.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

// Two producers race to a select in the main thread: which value comes
// out when depends on the workers' timing and on select's random choice.
function race(n: number): Uint8Array {
  const p = new Program();
  p.guard(() => {
    const a = makeChannel({ dtype: "int32" });
    const b = makeChannel({ dtype: "int32" });
    for (const [ch, base] of [[a, 100], [b, 200]] as const) {
      go(() => {
        for (let i = 0; i < n; i++) {
          send(
            ch,
            fillConstant({ shape: [1], dtype: "int32", value: base + i }),
          );
        }
      });
    }
    for (let i = 0; i < 2 * n; i++) {
      select((s) => {
        s.recv(a, (v) => print(v, { message: "a" }));
        s.recv(b, (v) => print(v, { message: "b" }));
      });
    }
  });
  return toBinary(ProgramDescSchema, p.desc);
}

Deno.test("--replay repeats a 2-worker recording on 1 and 2 workers", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/race.pb`, race(6));
    const rec = await runRill([
      `${dir}/race.pb`,
      "--workers",
      "2",
      "--record",
      `${dir}/race.rec`,
    ]);
    assertEquals(rec.code, 0, rec.stderr);
    assertEquals(rec.stdout.trim().split("\n").length, 12);
    for (const workers of ["1", "2", "1", "2", "1", "2"]) {
      const r = await runRill([
        `${dir}/race.pb`,
        "--workers",
        workers,
        "--replay",
        `${dir}/race.rec`,
      ]);
      assertEquals([r.code, r.stdout], [0, rec.stdout], r.stderr);
    }
  });
});

Deno.test("--replay refuses a record of another program", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/a.pb`, race(3));
    await Deno.writeFile(`${dir}/b.pb`, race(4));
    const rec = await runRill([`${dir}/a.pb`, "--record", `${dir}/a.rec`]);
    assertEquals(rec.code, 0, rec.stderr);
    const r = await runRill([`${dir}/b.pb`, "--replay", `${dir}/a.rec`]);
    assertEquals([r.code, r.stdout], [1, ""]);
    assertMatch(
      r.stderr,
      /^error: --replay: ".*a\.rec" was recorded from another program or other feeds\n$/,
    );
  });
});

Deno.test("--replay refuses a file that is not a record", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/a.pb`, race(2));
    await Deno.writeTextFile(`${dir}/junk.rec`, "not a record at all");
    const r = await runRill([`${dir}/a.pb`, "--replay", `${dir}/junk.rec`]);
    assertEquals([r.code, r.stdout], [1, ""]);
    assertMatch(
      r.stderr,
      /^error: --replay: ".*junk\.rec": not a Rill record \(no RILLSCHD header\)\n$/,
    );
  });
});

Deno.test("--record into an unwritable path fails before the run", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/a.pb`, race(2));
    const r = await runRill([
      `${dir}/a.pb`,
      "--record",
      `${dir}/no/such/dir/a.rec`,
    ]);
    assertEquals([r.code, r.stdout], [1, ""]);
    assertMatch(r.stderr, /^error: --record: cannot write ".*a\.rec": .+\n$/);
  });
});

// A goroutine sends three values; main receives as many as the file
// `count.npy` says: the program and its feeds stay the same when the file
// changes, and a replay then ends before its record does.
function countedReceives(countFile: string): Uint8Array {
  const p = new Program();
  p.guard(() => {
    const n = load(countFile);
    const ch = makeChannel({ dtype: "int64", capacity: 4 });
    go(() => forRange(3, (i) => send(ch, i)));
    forRange(n, () => print(recv(ch)));
  });
  return toBinary(ProgramDescSchema, p.desc);
}

Deno.test("--replay names the first recorded event a run ended without", async () => {
  await withTempDir(async (dir) => {
    const count = (n: number) =>
      Deno.writeFile(
        `${dir}/count.npy`,
        encodeNpy(Tensor.fromArray([n], "int64", [1])),
      );
    await Deno.writeFile(`${dir}/p.pb`, countedReceives(`${dir}/count.npy`));
    await count(3);
    // Recorded on one worker, the channel's order is fixed: main's first
    // receive, the three sends, main's two other receives.
    const rec = await runRill([
      `${dir}/p.pb`,
      "--workers",
      "1",
      "--record",
      `${dir}/p.rec`,
    ]);
    assertEquals([rec.code, rec.stdout], [0, "0\n1\n2\n"], rec.stderr);
    await count(1);
    for (const workers of ["1", "2"]) {
      const r = await runRill([
        `${dir}/p.pb`,
        "--workers",
        workers,
        "--replay",
        `${dir}/p.rec`,
      ]);
      assertEquals([r.code, r.stdout], [1, "0\n"], r.stderr);
      assertMatch(
        r.stderr,
        /^error: --replay: the run ended before its record: channel 0 expected recv by the main thread at block \d+ op \d+ \(event 5 of 6\), which never came\n$/,
      );
    }
  });
});

Deno.test("--record on a pool stops at its channel limit with one error line", async () => {
  // A goroutine (placed on the second worker) makes 2^18 + 1 channels:
  // one more than a pool's recording has room for.
  const p = new Program();
  p.guard(() => {
    const done = makeChannel({ dtype: "int32" });
    go(() => {
      forRange((1 << 18) + 1, () => {
        makeChannel({ dtype: "int32" });
      });
      send(done, fillConstant({ shape: [1], dtype: "int32", value: 1 }));
    });
    recv(done);
  });
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/p.pb`, toBinary(ProgramDescSchema, p.desc));
    const r = await runRill([
      `${dir}/p.pb`,
      "--workers",
      "2",
      "--record",
      `${dir}/p.rec`,
    ]);
    assertEquals([r.code, r.stdout, r.stderr], [
      1,
      "",
      "error: --record: more than 262144 channels made\n",
    ]);
  });
});
