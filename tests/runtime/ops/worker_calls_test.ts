// A transpiled master survives losing one of three real worker processes
// mid-run: `kill -9` (the connection breaks) and `kill -STOP` (the
// keepalive notices the silence), each time printing what one process
// prints. A piece that is not pure is not retried, and a master whose
// workers are all gone fails with one error line. The lost worker is
// chosen once it is serving its piece (its health says so), so the loss
// lands mid-call. Each retry is one warning line on stderr; a lost worker
// restarted at its address takes pieces again. Every process is continued,
// killed and awaited in `finally`; every wait is bounded.

import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import {
  assignValue,
  dropout,
  mul,
  print,
  Program,
  read,
  relu,
} from "../../../mod.ts";
import { encodeNpy } from "../../../kernels/npy.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { connectWorker } from "../../../runtime/cluster/worker_client.ts";
import { serveWorker } from "../../../runtime/cluster/worker_server.ts";
import type { RunServices } from "../../../runtime/core/thread_context.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";
import { callPiece } from "../../../runtime/ops/_worker_calls.ts";
import { rosterOf } from "../../../runtime/ops/_worker_roster.ts";
import { runRill } from "../../_helpers/rill_process.ts";
import {
  type RillWorker,
  startRillWorker,
  stopRillWorkers,
} from "../../_helpers/rill_worker.ts";
import { within } from "../../_helpers/within.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

/** Rows of the input, split into one piece per worker. */
const ROWS = 1_500;
/** Width of each row and of the products. */
const WIDTH = 128;
/** Products per piece: enough that a piece takes a second or so. */
const STEPS = 400;
/** How long a worker may take to print its address. */
const LISTEN_TIMEOUT_MS = 30_000;
/** How long a master run may take. */
const RUN_TIMEOUT_MS = 120_000;
/** How long to wait for the chosen worker to be serving its piece. */
const BUSY_TIMEOUT_MS = 60_000;

/**
 * Writes a program whose pieces take a while (STEPS products by a 0/1
 * matrix, each followed by relu) and its input; returns its path. With
 * `impure`, a training dropout makes each piece draw random numbers.
 */
async function writeSlowProgram(dir: string, impure = false): Promise<string> {
  const x = Tensor.fromArray(
    Array.from(
      { length: ROWS * WIDTH },
      (_, i) => ((i * 37) % 101) / 101 - 0.5,
    ),
    "float32",
    [ROWS, WIDTH],
  );
  await Deno.writeFile(`${dir}/x.npy`, encodeNpy(x));
  const shift = Array.from(
    { length: WIDTH * WIDTH },
    (_, i) => (i % (WIDTH + 1) === 0 || i % WIDTH === 0 ? 1 : 0),
  );
  const out = Array.from({ length: WIDTH * 2 }, (_, i) => (i % 7) - 3);
  const p = new Program();
  p.guard(() => {
    const [xs] = read(`${dir}/x.npy`);
    const w = assignValue(shift, { shape: [WIDTH, WIDTH] });
    let y = impure ? dropout(xs, 0.5) : xs;
    for (let i = 0; i < STEPS; i++) y = relu(mul(y, w));
    print(mul(y, assignValue(out, { shape: [WIDTH, 2] })), { message: "Y" });
  });
  await p.save(`${dir}/slow.pb`);
  return `${dir}/slow.pb`;
}

/** Transpiles `program` into DIR/out; returns the master and the worker. */
async function transpileTo(
  dir: string,
  program: string,
): Promise<{ master: string; worker: string }> {
  const t = await runRill(["transpile", program, "--out-dir", `${dir}/out`]);
  assertEquals([t.code, t.stderr], [0, ""]);
  return { master: `${dir}/out/master.pb`, worker: `${dir}/out/worker.pb` };
}

/** Waits until the worker at `addr` is serving a call. */
async function untilServing(addr: string): Promise<void> {
  using client = connectWorker(addr, { token: "" });
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const health = await client.health({ timeoutMs: 5_000 });
    if (health.callsInFlight > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`worker ${addr} served no call within ${BUSY_TIMEOUT_MS} ms`);
}

/**
 * Runs the master over three workers and does `lose` to worker 1 once it
 * is serving its piece; returns the run's output. Worker 1 is continued
 * and every worker killed at the end.
 */
async function runLosingOne(
  master: string,
  worker: string,
  lose: (w: RillWorker) => void,
  flags: readonly string[] = [],
): Promise<{ code: number; stdout: string; stderr: string; lost: string }> {
  const workers: RillWorker[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      workers.push(await startRillWorker(worker, LISTEN_TIMEOUT_MS));
    }
    const addrs = workers.map((w) => w.addr).join(",");
    const run = within(
      RUN_TIMEOUT_MS,
      runRill([master, ...flags, "--worker-addrs", addrs]),
    );
    await untilServing(workers[1].addr);
    lose(workers[1]);
    return { ...await run, lost: workers[1].addr };
  } finally {
    for (const w of workers) {
      try {
        w.child.kill("SIGCONT");
      } catch {
        // already gone
      }
    }
    await stopRillWorkers(workers);
  }
}

/**
 * Asserts that `stderr` holds only warnings of lost workers, one of them
 * losing `lost` and retrying piece `piece` on `on` (by default on any
 * other worker). On a loaded host a busy worker may miss its PINGs too:
 * it is lost, re-dialled and used again, with a line of its own.
 */
function assertLostLine(
  stderr: string,
  lost: string,
  piece: number,
  on?: string,
): void {
  const lines = stderr.trimEnd().split("\n");
  const warning =
    /^warning: worker (\S+) lost \(.+\); retrying piece (\d+) on (\S+)$/;
  const parsed = lines.map((line) => warning.exec(line));
  assert(parsed.every((m) => m !== null), stderr);
  assert(
    parsed.some((m) =>
      m![1] === lost && m![2] === `${piece}` &&
      (on === undefined ? m![3] !== lost : m![3] === on)
    ),
    stderr,
  );
}

Deno.test("a master whose worker is killed (-9) mid-run completes on the other two with the single-process answer", async () => {
  await withTempDir(async (dir) => {
    const program = await writeSlowProgram(dir);
    const single = await runRill([program]);
    assertEquals(single.code, 0, single.stderr);
    const { master, worker } = await transpileTo(dir, program);
    const run = await runLosingOne(
      master,
      worker,
      (w) => w.child.kill("SIGKILL"),
    );
    assertEquals(run.code, 0, run.stderr);
    assertLostLine(run.stderr, run.lost, 1);
    assertStringIncludes(single.stdout, "Y [[");
    assertEquals(run.stdout, single.stdout);
  });
});

Deno.test("a master whose worker is stopped (-STOP) mid-run notices by keepalive and completes with the single-process answer", async () => {
  await withTempDir(async (dir) => {
    const program = await writeSlowProgram(dir);
    const single = await runRill([program]);
    assertEquals(single.code, 0, single.stderr);
    const { master, worker } = await transpileTo(dir, program);
    const run = await runLosingOne(
      master,
      worker,
      (w) => w.child.kill("SIGSTOP"),
      // Short enough to keep the test short, long enough that a busy worker
      // on a loaded machine (ten runnable processes on two cores) still
      // answers its PINGs in time: with 1 s, the live workers were given up
      // too, 3 runs in 5 at load 16.
      ["--rpc-keepalive", "5s"],
    );
    assertEquals(run.code, 0, run.stderr);
    assertLostLine(run.stderr, run.lost, 1);
    assertEquals(run.stdout, single.stdout);
  });
});

Deno.test("a master dials its lost only worker again: restarted at the same address, it takes the piece and the run completes", async () => {
  await withTempDir(async (dir) => {
    const program = await writeSlowProgram(dir);
    const single = await runRill([program]);
    assertEquals(single.code, 0, single.stderr);
    const { master, worker } = await transpileTo(dir, program);
    const workers: RillWorker[] = [];
    try {
      workers.push(await startRillWorker(worker, LISTEN_TIMEOUT_MS));
      const addr = workers[0].addr;
      // A re-dial window far longer than a restart takes on a loaded host.
      const run = within(
        RUN_TIMEOUT_MS,
        runRill([master, "--worker-addrs", addr, "--rpc-redial", "60s"]),
      );
      await untilServing(addr);
      workers[0].child.kill("SIGKILL");
      await workers[0].child.status;
      // The same port: a later --listen wins over the helper's (parseArgs
      // keeps the last).
      workers.push(
        await startRillWorker(worker, LISTEN_TIMEOUT_MS, "null", [
          "--listen",
          addr,
        ]),
      );
      const result = await run;
      assertEquals(result.code, 0, result.stderr);
      assertEquals(result.stdout, single.stdout);
      assertLostLine(result.stderr, addr, 0, addr);
      // The restarted worker, not the killed one, served the piece.
      using client = connectWorker(addr, { token: "" });
      assertEquals((await client.health()).callsServed, 1n);
    } finally {
      await stopRillWorkers(workers);
    }
  });
});

Deno.test("a master does not retry a piece that draws random numbers: losing its worker is one error line", async () => {
  await withTempDir(async (dir) => {
    const { master, worker } = await transpileTo(
      dir,
      await writeSlowProgram(dir, true),
    );
    const dump = await runRill(["dump", master]);
    assert(!dump.stdout.includes("retry=true"), dump.stdout);
    const run = await runLosingOne(
      master,
      worker,
      (w) => w.child.kill("SIGKILL"),
    );
    assertEquals([run.code, run.stdout], [1, ""]);
    assertEquals(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
    assertStringIncludes(run.stderr, "error: worker ");
    assertStringIncludes(run.stderr, "unavailable");
  });
});

/** An address nothing listens on. */
function closedPort(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  return `127.0.0.1:${listener.addr.port}`;
}

Deno.test("callPiece() sends a piece whose worker is gone to a worker a rediscovery finds", async () => {
  const server = await serveWorker({
    token: "",
    handler: (_endpoint, tensors) => ({ output: tensors.get("input")! }),
  });
  try {
    const run = {} as RunServices;
    let asked = 0;
    rosterOf(run).setRediscovery(() => {
      asked++;
      return Promise.resolve([server.addr]);
    });
    const lost = closedPort();
    const call = { endpoints: [lost], index: 0, program: "", retry: true };
    // The master's warning goes to stderr: caught here, it is asserted
    // rather than printed among the suite's results.
    const warnings: string[] = [];
    const consoleError = console.error;
    console.error = (line: string) => warnings.push(line);
    try {
      const reply = await within(
        20_000,
        callPiece(run, call, Tensor.fromArray([3, 4], "float32")),
      );
      assertEquals(reply.toNested(), [3, 4]);
    } finally {
      console.error = consoleError;
    }
    assertEquals(asked, 1);
    assertLostLine(warnings.join("\n"), lost, 0, server.addr);
  } finally {
    await server.close();
  }
});

Deno.test("callPiece() never retries a call its worker failed: the worker's error stands", async () => {
  let calls = 0;
  const failing = await serveWorker({
    token: "",
    handler: () => {
      calls++;
      throw new Error("panic: index out of range");
    },
  });
  try {
    const call = {
      endpoints: [failing.addr, closedPort()],
      index: 0,
      program: "",
      retry: true,
    };
    const e = await assertRejects(() =>
      callPiece({} as RunServices, call, Tensor.fromArray([1], "float32"))
    );
    assert(!(e instanceof ProgramError), String(e));
    assertStringIncludes(String(e), "index out of range");
    assertEquals(calls, 1);
  } finally {
    await failing.close();
  }
});

Deno.test("callPiece() refuses a server that is no Rill worker with one error line, before any work is sent", async () => {
  const paths: string[] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      paths.push(new URL(request.url).pathname);
      return new Response("hello");
    },
  );
  const addr = `127.0.0.1:${server.addr.port}`;
  const call = { endpoints: [addr], index: 0, program: "", retry: true };
  const e = await assertRejects(
    () => callPiece({} as RunServices, call, Tensor.fromArray([1], "float32")),
    ProgramError,
  );
  assertStringIncludes(
    e.message,
    `worker ${addr} is not a Rill worker: its health call failed: `,
  );
  assertEquals(e.message.split("\n").length, 1);
  assertEquals(paths, ["/rill.v1.WorkerService/Health"]);
});
