// Run traces as the Executor records them (runtime/core/run_tracer.ts):
// a track per green thread per worker, running and wait spans that never
// overlap on a track, op spans inside them, a flow from each send to the
// receive it handed over to (on one worker and across two), the branch a
// select took, a panic as an instant event, GPU work and RPC calls on
// tracks of their own.

import { assert, assertEquals, assertRejects } from "@std/assert";
import {
  closeChannel,
  elementwiseAdd,
  Executor,
  fillConstant,
  go,
  kubeGetWorkersAddrs,
  listenAndDo,
  makeChannel,
  matmul,
  type PoolHandle,
  print,
  Program,
  recv,
  rpcRecv,
  rpcSend,
  scale,
  select,
  send,
  uniformRandom,
  type Variable,
} from "../../../mod.ts";
import { within } from "../../_helpers/within.ts";
import {
  GPU_TRACK,
  KERNEL_TRACK,
  RPC_TRACK,
  type TraceEvent,
} from "../../../runtime/core/trace_event.ts";
import { ignoreGpu } from "../../kernels/webgpu/_gpu.ts";
import { buildExample } from "../../../examples/build.ts";

/** Runs `program` traced and returns its events (also when it fails). */
async function traced(
  program: Program,
  workers = 1,
): Promise<{ events: TraceEvent[]; error: unknown }> {
  let events: TraceEvent[] = [];
  let error: unknown;
  await new Executor({ workers, print: () => {}, trace: (e) => events = e })
    .run(program.desc).catch((e) => error = e);
  return { events, error };
}

/** A main thread and a goroutine that hand a value over, then a select. */
function handOff(): Program {
  const program = new Program();
  program.guard(() => {
    const ch = makeChannel({ dtype: "int32" });
    const done = makeChannel({ dtype: "int32", capacity: 1 });
    go(() => {
      send(ch, fillConstant({ shape: [1], dtype: "int32", value: 7 }));
      send(done, fillConstant({ shape: [1], dtype: "int32", value: 1 }));
    });
    print(recv(ch));
    select((s) => {
      s.recv(done, (v) => print(v));
    });
  });
  return program;
}

function threadNames(events: TraceEvent[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const e of events) {
    if (e.ph === "M" && e.name === "thread_name") {
      names.set(`${e.pid}:${e.tid}`, String(e.args?.name));
    }
  }
  return names;
}

// On each track, the thread and wait spans follow each other, and every
// op span lies inside a running span and nests with the other ops (as
// Perfetto needs spans of one track to nest).
function assertNested(events: TraceEvent[]): void {
  const byTrack = Map.groupBy(
    events.filter((e) => e.ph === "X" && e.tid > 0),
    (e) => `${e.pid}:${e.tid}`,
  );
  const end = (e: TraceEvent) => e.ts + e.dur!;
  for (const [track, spans] of byTrack) {
    const states = spans.filter((e) => e.cat !== "op")
      .sort((a, b) => a.ts - b.ts);
    for (let i = 1; i < states.length; i++) {
      const prev = states[i - 1];
      assert(
        states[i].ts >= end(prev) - 1e-6,
        `${track}: ${prev.name} overlaps ${states[i].name}`,
      );
    }
    const running = states.filter((e) => e.name === "running");
    const ops = spans.filter((e) => e.cat === "op")
      .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
    const open: TraceEvent[] = [];
    for (const op of ops) {
      assert(
        running.some((r) => r.ts <= op.ts + 1e-6 && end(op) <= end(r) + 1e-6),
        `${track}: op ${op.name} at ${op.ts} outside every running span`,
      );
      while (open.length > 0 && end(open.at(-1)!) <= op.ts + 1e-6) open.pop();
      const outer = open.at(-1);
      assert(
        outer === undefined || end(op) <= end(outer) + 1e-6,
        `${track}: op ${op.name} crosses the end of ${outer?.name}`,
      );
      open.push(op);
    }
  }
}

// Every flow's ends, by id.
function flows(events: TraceEvent[]) {
  const ends = new Map<number, { s?: TraceEvent; f?: TraceEvent }>();
  for (const e of events) {
    if (e.ph !== "s" && e.ph !== "f") continue;
    const pair = ends.get(e.id!) ?? {};
    pair[e.ph] = e;
    ends.set(e.id!, pair);
  }
  return [...ends.values()];
}

Deno.test("a traced run on one worker has a named track per green thread", async () => {
  const { events, error } = await traced(handOff());
  assertEquals(error, undefined);
  const names = threadNames(events);
  assertEquals(names.get("0:1"), "goroutine 1 (main)");
  assert(names.get("0:2")?.startsWith("goroutine 2"), names.get("0:2"));
  assert(
    events.some((e) =>
      e.ph === "M" && e.name === "process_name" && e.pid === 0
    ),
  );
});

Deno.test("a traced run's spans: running, waits with their reason, ops inside", async () => {
  const { events } = await traced(handOff());
  const spans = events.filter((e) => e.ph === "X");
  assert(spans.some((e) => e.cat === "thread" && e.name === "running"));
  const waits = spans.filter((e) => e.cat === "wait").map((e) => e.name);
  assert(
    waits.includes("chan receive") || waits.includes("chan send"),
    `waits: ${waits}`,
  );
  const recvOp = spans.find((e) => e.cat === "op" && e.name === "channel_recv");
  assertEquals(recvOp?.args, { block: 0, index: 3 });
  assertNested(events);
});

Deno.test("a traced run links each send to the receive it handed over to", async () => {
  const { events } = await traced(handOff());
  const pairs = flows(events);
  // ch's value and done's value, each sent by goroutine 2 and received by
  // the main thread.
  assertEquals(pairs.length, 2);
  for (const { s, f } of pairs) {
    assertEquals([s?.tid, f?.tid], [2, 1]);
    assert(s!.ts <= f!.ts);
    assertEquals(f!.bp, "e");
  }
});

Deno.test("a traced run records the case a select took", async () => {
  const { events } = await traced(handOff());
  const taken = events.filter((e) => e.cat === "select");
  assertEquals(taken.length, 1);
  assertEquals([taken[0].ph, taken[0].tid, taken[0].args], ["i", 1, {
    case: 0,
    kind: "recv",
  }]);
});

Deno.test("a traced run that panics ends with a panic instant event", async () => {
  const program = new Program();
  program.guard(() => {
    const ch = makeChannel({ dtype: "int32" });
    closeChannel(ch);
    closeChannel(ch);
  });
  const { events, error } = await traced(program);
  assert(error instanceof Error);
  const panic = events.find((e) => e.cat === "panic");
  assertEquals(panic?.ph, "i");
  assertEquals(panic?.tid, 1);
  assertEquals(panic?.args?.message, "close of closed channel");
});

Deno.test("a traced run on 2 workers has tracks per worker and flows across them", async () => {
  const { events, error } = await traced(await buildExample("prime_sieve"), 2);
  assertEquals(error, undefined);
  const pids = new Set(events.filter((e) => e.ph === "X").map((e) => e.pid));
  assertEquals([...pids].sort(), [0, 1]);
  const names = threadNames(events);
  assert([...names.keys()].some((k) => k.startsWith("1:")));
  const pairs = flows(events).filter(({ s, f }) => s && f);
  assert(pairs.some(({ s, f }) => s!.pid !== f!.pid), "no cross-worker flow");
  // A flow id is unique: its two ends and no more.
  const ids = events.filter((e) => e.ph === "f").map((e) => e.id);
  assertEquals(new Set(ids).size, ids.length);
  assertNested(events);
});

Deno.test("Executor without trace records nothing and runs as before", async () => {
  const printed: string[] = [];
  await new Executor({ print: (l) => printed.push(l) }).run(handOff().desc);
  assertEquals(printed, ["7", "1"]);
});

Deno.test("a traced run's trace callback gets the events of a failed run", async () => {
  const program = new Program();
  program.guard(() => {
    recv(makeChannel({ dtype: "int32" })); // deadlock
  });
  let events: TraceEvent[] | undefined;
  await assertRejects(() =>
    new Executor({ trace: (e) => events = e }).run(program.desc)
  );
  assert(events?.some((e) => e.cat === "wait" && e.name === "chan receive"));
  const end = events?.find((e) => e.ph === "i" && e.tid === 1);
  assertEquals(end?.name, "fatal error: all goroutines are asleep - deadlock!");
});

Deno.test({
  name:
    "a traced run on the GPU has a GPU track with dispatches and read-backs",
  ignore: ignoreGpu,
  async fn() {
    const program = new Program();
    let y: Variable | undefined;
    program.guard(() => {
      const x = fillConstant({ shape: [256, 256], dtype: "float32", value: 2 });
      y = elementwiseAdd(x, x);
    });
    let events: TraceEvent[] = [];
    await new Executor({ device: "webgpu", trace: (e) => events = e })
      .run(program.desc, { fetch: [y!.name] });
    const gpu = events.filter((e) => e.tid === GPU_TRACK);
    assert(gpu.some((e) => e.ph === "i" && e.name.startsWith("dispatch ")));
    const readBack = gpu.find((e) => e.name === "read-back");
    assertEquals(readBack?.args?.bytes, 256 * 256 * 4);
    assert(
      events.some((e) =>
        e.ph === "M" && e.tid === GPU_TRACK && e.args?.name === "GPU"
      ),
    );
  },
});

Deno.test("a traced run's RPC calls sit on an RPC track with their bytes", async () => {
  const worker = new Program();
  worker.guard(() =>
    listenAndDo((input) => scale(input, { scale: 2 }), { maxRequests: 1 })
  );
  const addr = Promise.withResolvers<string>();
  const served = new Executor({
    print: (line) => {
      if (line.startsWith("listening on ")) addr.resolve(line.slice(13));
    },
  }).run(worker);
  served.catch(addr.reject);
  const master = new Program();
  master.guard(() => {
    const workers = kubeGetWorkersAddrs();
    rpcSend(fillConstant({ shape: [3], value: 4 }), workers);
    print(rpcRecv(workers));
  });
  let events: TraceEvent[] = [];
  await within(
    10_000,
    new Executor({
      cluster: { workerAddrs: await within(10_000, addr.promise) },
      print: () => {},
      trace: (e) => events = e,
    }).run(master),
  );
  await within(10_000, served);
  const call = events.find((e) => e.tid === RPC_TRACK && e.ph === "X");
  assertEquals(call?.cat, "rpc");
  assertEquals(call?.args?.sentBytes, 12);
  assertEquals(call?.args?.receivedBytes, 12);
  assertEquals(call?.args?.thread, 1);
  // The main thread awaited the reply in its recv op.
  assert(events.some((e) => e.tid === 1 && e.name === "await recv"));
});

Deno.test("a traced run's spans nest where ops run sub-blocks and park in loops", async () => {
  for (const name of ["fibonacci", "prime_sieve", "while_loop"]) {
    const { events, error } = await traced(await buildExample(name));
    assertEquals(error, undefined);
    assert(events.some((e) => e.cat === "op" && e.name === "while"), name);
    assertNested(events);
  }
});

Deno.test("a traced run on 2 workers shows the rows a worker computed for another's kernel", async () => {
  const program = new Program();
  let y: Variable | undefined;
  program.guard(() => {
    const x = uniformRandom({ shape: [1024, 1024] });
    y = matmul(x, x);
  });
  let events: TraceEvent[] = [];
  let pool: PoolHandle | undefined;
  await new Executor({
    workers: 2,
    trace: (e) => events = e,
    onPool: (p) => pool = p,
  }).run(program.desc, { fetch: [y!.name] });
  const spans = events.filter((e) => e.tid === KERNEL_TRACK && e.ph === "X");
  assert(spans.every((e) => e.pid === 1 && Number(e.args?.rows) > 0));
  // Every row a worker computed for another is in a span, and no more.
  const rows = spans.reduce((sum, e) => sum + Number(e.args?.rows), 0);
  assertEquals(rows, pool!.helpedRows());
});
