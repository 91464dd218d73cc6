// The transpile and worker commands with real processes on 127.0.0.1:
// three workers and a master print exactly what the original program
// prints in one process for the design doc's mult, and the same up to the
// last float32 digit for a Paddle model directory; a master whose workers
// are all dead fails with one error line, in bounded time (losing one of
// them is tests/runtime/ops/worker_calls_test.ts's). Every process is killed and every directory removed in
// `finally`.

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { assignValue, mul, print, Program, read } from "../../../mod.ts";
import { encodeNpy } from "../../../kernels/npy.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { runRill } from "../../_helpers/rill_process.ts";
import {
  IGNORE_PADDLE_MODELS,
  PADDLE_MODELS,
} from "../../_helpers/paddle_models.ts";
import {
  type RillWorker,
  startRillWorker,
  stopRillWorkers,
} from "../../_helpers/rill_worker.ts";
import { within } from "../../_helpers/within.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

const MLP = `${PADDLE_MODELS}/recognize_digits_mlp`;

/** How long a worker may take to print its address. */
const LISTEN_TIMEOUT_MS = 30_000;
/** How long a master run may take. */
const RUN_TIMEOUT_MS = 60_000;

/**
 * Runs the original and the distributed program (the master with
 * `masterFlags`); returns both outputs.
 */
async function bothRuns(
  dir: string,
  program: string,
  flags: readonly string[],
  workerCount: number,
  masterFlags: readonly string[] = flags,
): Promise<{ single: string; distributed: string; stderr: string }> {
  const out = `${dir}/out`;
  const t = await runRill(["transpile", program, "--out-dir", out]);
  assertEquals([t.code, t.stderr], [0, ""]);
  const single = await runRill([program, ...flags]);
  assertEquals(single.code, 0, single.stderr);
  const workers: RillWorker[] = [];
  try {
    for (let i = 0; i < workerCount; i++) {
      workers.push(
        await startRillWorker(`${out}/worker.pb`, LISTEN_TIMEOUT_MS),
      );
    }
    const addrs = workers.map((w) => w.addr).join(",");
    const run = await within(
      RUN_TIMEOUT_MS,
      runRill([`${out}/master.pb`, ...masterFlags, "--worker-addrs", addrs]),
    );
    return {
      single: single.stdout,
      distributed: run.stdout,
      stderr: run.stderr,
    };
  } finally {
    await stopRillWorkers(workers);
  }
}

async function writeMult(dir: string): Promise<string> {
  const x = Tensor.fromArray(
    Array.from({ length: 7 }, (_, i) => [i + 1, 2 * i - 3]),
    "float32",
  );
  await Deno.writeFile(`${dir}/x.npy`, encodeNpy(x));
  const p = new Program();
  p.guard(() => {
    const [xs] = read(`${dir}/x.npy`);
    print(mul(xs, assignValue([1, 3, 2, 4], { shape: [2, 2] })), {
      message: "Y",
    });
  });
  await p.save(`${dir}/mult.pb`);
  return `${dir}/mult.pb`;
}

Deno.test("transpile + 3 workers: mult prints what one process prints", async () => {
  await withTempDir(async (dir) => {
    const runs = await bothRuns(dir, await writeMult(dir), [], 3);
    assertEquals(runs.stderr, "");
    assertStringIncludes(runs.single, "Y [[");
    assertEquals(runs.distributed, runs.single);
  });
});

Deno.test("transpile + 2 workers: a pooled master joins replies of 16,384 elements", async () => {
  // Each reply is 16 × 1024 floats: a large tensor, which the master's
  // pool threads store into the shared results array. (Reading one back
  // under the array's lock once waited for that lock for ever.)
  await withTempDir(async (dir) => {
    const x = Tensor.fromArray(
      Array.from({ length: 32 }, (_, i) => [i - 16, 1, i % 5, -2]),
      "float32",
    );
    await Deno.writeFile(`${dir}/x.npy`, encodeNpy(x));
    const w = Array.from({ length: 4 * 1024 }, (_, i) => (i % 13) - 6);
    const p = new Program();
    const y = p.guard(() => {
      const [xs] = read(`${dir}/x.npy`);
      const ys = mul(xs, assignValue(w, { shape: [4, 1024] }));
      // A Paddle-style fetch op marks Y as the program's output.
      const block = p.currentBlock;
      block.appendOp({
        type: "fetch",
        inputs: { X: ys },
        outputs: { Out: block.createVar({ name: "fetch", kind: "array" }) },
        attrs: { col: 0 },
      });
      return ys;
    });
    await p.save(`${dir}/wide.pb`);
    const fetch = (file: string) => [
      "--workers",
      "2",
      "--fetch",
      `${y.name}=${dir}/${file}`,
    ];
    const runs = await bothRuns(
      dir,
      `${dir}/wide.pb`,
      fetch("one.npy"),
      2,
      fetch("two.npy"),
    );
    assertEquals(runs.stderr, "");
    const [one, two] = await Promise.all(
      ["one.npy", "two.npy"].map((f) => Deno.readFile(`${dir}/${f}`)),
    );
    assert(one.length > 32 * 1024 * 4);
    assertEquals(two, one);
  });
});

Deno.test({
  name:
    "transpile + 3 workers: a model directory fetches what one process fetches",
  ignore: IGNORE_PADDLE_MODELS,
  fn: async () => {
    await withTempDir(async (dir) => {
      const rows = Tensor.fromArray(
        Array.from({ length: 5 * 784 }, (_, i) => ((i * 37) % 101) / 101 - 0.5),
        "float32",
        [5, 1, 28, 28],
      );
      await Deno.writeFile(`${dir}/img.npy`, encodeNpy(rows));
      const runs = await bothRuns(
        dir,
        MLP,
        ["--feed", `img=${dir}/img.npy`],
        3,
      );
      assertEquals(runs.stderr, "");
      assertStringIncludes(runs.single, "fc_2.tmp_2 [[");
      // Exactly: the CPU matmul picks its kernel by a row's work, never by
      // the number of rows (5 here, 2 + 2 + 1 on the workers).
      assertEquals(runs.distributed, runs.single);
    });
  },
});

Deno.test("a master whose workers are all dead fails with one error line naming one, in bounded time", async () => {
  await withTempDir(async (dir) => {
    const out = `${dir}/out`;
    const t = await runRill([
      "transpile",
      await writeMult(dir),
      "--out-dir",
      out,
    ]);
    assertEquals(t.code, 0, t.stderr);
    const workers: RillWorker[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        workers.push(
          await startRillWorker(`${out}/worker.pb`, LISTEN_TIMEOUT_MS),
        );
      }
      for (const dead of workers) {
        dead.child.kill("SIGKILL");
        await dead.child.status;
      }
      const run = await within(
        RUN_TIMEOUT_MS,
        runRill([
          `${out}/master.pb`,
          "--worker-addrs",
          workers.map((w) => w.addr).join(","),
        ]),
      );
      // An operational failure, not the program's: one error line, exit 1,
      // after a warning for each retry.
      assertEquals(run.code, 1);
      assertEquals(run.stdout, "");
      const lines = run.stderr.trimEnd().split("\n");
      const errors = lines.filter((l) => !/^warning: worker \S+ lost /.test(l));
      assertEquals(errors.length, 1, run.stderr);
      assert(lines.length > 1, run.stderr);
      assertStringIncludes(errors[0], "error: worker 127.0.0.1:");
      assertStringIncludes(run.stderr, "unavailable");
      // Each piece went to every worker in turn before the run gave up.
      assertStringIncludes(run.stderr, "no other worker is left to retry on");
    } finally {
      await stopRillWorkers(workers);
    }
  });
});

Deno.test("transpile prints one error line naming the op and variable it cannot split", async () => {
  await withTempDir(async (dir) => {
    const p = new Program();
    p.guard(() => {
      const [x] = read(`${dir}/x.npy`);
      print(mul(assignValue([1, 2, 3, 4], { shape: [2, 2] }), x));
    });
    await p.save(`${dir}/bad.pb`);
    const t = await runRill([
      "transpile",
      `${dir}/bad.pb`,
      "--out-dir",
      `${dir}/out`,
    ]);
    assertEquals(t.code, 1);
    assertEquals(t.stderr.split("\n").length, 2, t.stderr);
    assert(
      t.stderr.startsWith("error: block 0 op 2 (mul): cannot split"),
      t.stderr,
    );
    assertStringIncludes(t.stderr, '"read.out_0"');
  });
});
