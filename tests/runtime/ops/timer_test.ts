// The timer ops as programs (docs/architecture.md §3–4): `sleep` parks a green thread
// and `channel_after` delivers `true` once. A pending timer is not a
// deadlock; once it has fired, nothing more comes. Sleeps here only make
// timers pending: no assertion depends on how long anything took.

import { create } from "@bufbuild/protobuf";
import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import {
  after,
  appendLayer,
  AttrType,
  closeChannel,
  Executor,
  fillConstant,
  go,
  increment,
  makeChannel,
  print,
  Program,
  ProgramError,
  recv,
  recvOk,
  select,
  send,
  sleep,
  Tensor,
  type Variable,
  VarType_Type,
  whileLoop,
} from "../../../mod.ts";
import { ProgramDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import { Deadlock } from "../../../scheduler/mod.ts";
import { int64 } from "../../_helpers/int64.ts";
import { buildProgram, printedBy } from "../../_helpers/run_program.ts";
import { within } from "../../_helpers/within.ts";
import { TEST_WORKERS } from "../../_helpers/test_workers.ts";

Deno.test("sleep() parks the thread and then goes on", async () => {
  const lines = await printedBy(() => {
    print(int64(1), { message: "before" });
    sleep(2);
    print(int64(2), { message: "after" });
  });
  assertEquals(lines, ["before 1", "after 2"]);
});

Deno.test("sleep() takes its duration from Duration over ms", async () => {
  const lines = await printedBy(() => {
    const done = makeChannel({ capacity: 1, dtype: "int64" });
    go(() => {
      appendLayer("sleep", { Duration: int64(1) }, { ms: 3_600_000 });
      appendLayer("sleep", { Duration: int64(0) }, { ms: 3_600_000 });
      send(done, int64(1));
    });
    // A margin of 30,000 to 1: only an ignored Duration loses this race.
    // (At 1,000 to 1 it lost on two workers at load 14: the goroutine's
    // worker had not started within the second.)
    select((s) => {
      s.recv(done, () => print(int64(1), { message: "Duration used" }));
      s.recv(after(30_000), () => print(int64(0), { message: "ms used" }));
    });
  });
  assertEquals(lines, ["Duration used 1"]);
});

Deno.test("sleep() in a goroutine keeps a receiver from deadlocking", async () => {
  const lines = await printedBy(() => {
    const ch = makeChannel({ dtype: "int64" });
    go(() => {
      sleep(3);
      send(ch, int64(5));
    });
    print(recv(ch));
  });
  assertEquals(lines, ["5"]);
});

Deno.test("after() delivers true once; a pending timer is not a deadlock", async () => {
  const lines = await printedBy(() => {
    const t = after(2);
    const [v, ok] = recvOk(t);
    print(v, { message: "value" });
    print(ok, { message: "ok" });
    select((s) => {
      s.recv(t, (again) => print(again, { message: "again" }));
      s.default(() => print(int64(0), { message: "nothing more" }));
    });
  });
  assertEquals(lines, ["value true", "ok true", "nothing more 0"]);
});

Deno.test("after() delivers a bool tensor of shape [1]", async () => {
  const program = new Program();
  const v = program.guard(() => recv(after(1)));
  const { fetched } = await new Executor({ workers: TEST_WORKERS }).run(
    program,
    { fetch: [v.name] },
  );
  const t = fetched[v.name];
  if (!(t instanceof Tensor)) throw new TypeError("not a tensor");
  assertEquals([t.dtype, t.shape, t.item(0)], ["bool", [1], true]);
});

Deno.test("after() channel received from again after firing deadlocks", async () => {
  const [program] = buildProgram(() => {
    const t = after(1);
    recv(t);
    recv(t);
  });
  const deadlock: Deadlock = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    Deadlock,
  );
  const second = program.desc.blocks[0].ops.findLastIndex((op) =>
    op.type === "channel_recv"
  );
  assertEquals(
    deadlock.dump,
    `goroutine 1 [chan receive]:\n\tblock 0 op ${second} channel_recv`,
  );
});

Deno.test("after() times out a select whose other case never becomes ready", async () => {
  const lines = await printedBy(() => {
    const never = makeChannel({ dtype: "int64" });
    select((s) => {
      s.recv(never, (v) => print(v, { message: "never" }));
      s.recv(after(2), (v) => print(v, { message: "timeout" }));
    });
  });
  assertEquals(lines, ["timeout true"]);
});

Deno.test("sleep() of a goroutine delays a deadlock until it has finished", async () => {
  const [program] = buildProgram(() => {
    const never = makeChannel({ dtype: "int64" });
    go(() => sleep(3));
    recv(never);
  });
  const deadlock: Deadlock = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    Deadlock,
  );
  assertEquals(deadlock.threads.map((t) => t.id), [1]);
});

Deno.test("the run ends with a goroutine asleep, leaving no timer behind", async () => {
  // Deno's sanitizers fail this test if the hour-long timer outlives the run.
  const lines = await printedBy(() => {
    go(() => sleep(3_600_000));
    go(() => {
      recv(after(3_600_000));
    });
    print(int64(0), { message: "main done" });
  });
  assertEquals(lines, ["main done 0"]);
});

/** Sets `running` false when `stop` is ready; else counts a spin. */
function spinUntil(stop: Variable, running: Variable, spins: Variable): void {
  select((s) => {
    s.recv(
      stop,
      () =>
        fillConstant({ shape: [1], dtype: "bool", value: false, out: running }),
    );
    s.default(() => {
      increment(spins);
    });
  });
}

Deno.test("after() fires while the only green thread spins on a select default", async () => {
  const lines = await within(
    20_000,
    printedBy(() => {
      const t = after(2);
      const spins = int64(0);
      const running = fillConstant({ shape: [1], dtype: "bool", value: true });
      whileLoop(running, () => spinUntil(t, running, spins));
      print(running, { message: "running" });
    }),
  );
  assertEquals(lines, ["running false"]);
});

Deno.test("sleep() wakes while another green thread spins", async () => {
  const lines = await within(
    20_000,
    printedBy(() => {
      const quit = makeChannel({ dtype: "int64" });
      const done = makeChannel({ dtype: "int64" });
      go(() => {
        const spins = int64(0);
        const running = fillConstant({
          shape: [1],
          dtype: "bool",
          value: true,
        });
        whileLoop(running, () => spinUntil(quit, running, spins));
        send(done, int64(1));
      });
      sleep(2);
      closeChannel(quit);
      print(recv(done), { message: "spinner stopped" });
    }),
  );
  assertEquals(lines, ["spinner stopped 1"]);
});

Deno.test("sleep() wakes while another green thread runs a loop of scalar ops", async () => {
  const lines = await within(
    20_000,
    printedBy(() => {
      const running = fillConstant({ shape: [1], dtype: "bool", value: true });
      go(() => {
        const count = int64(0);
        whileLoop(running, () => {
          increment(count);
        });
      });
      sleep(2);
      fillConstant({ shape: [1], dtype: "bool", value: false, out: running });
      print(running, { message: "main done, running" });
    }),
  );
  assertEquals(lines, ["main done, running false"]);
});

Deno.test("validate() rejects channel_after without ms", async () => {
  const program = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [{ name: "t", type: { type: VarType_Type.CHANNEL } }],
      ops: [{
        type: "channel_after",
        outputs: [{ parameter: "Out", arguments: ["t"] }],
      }],
    }],
  });
  const error: ProgramError = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    ProgramError,
  );
  assertEquals(error.where.opType, "channel_after");
  assertStringIncludes(error.message, "ms");
});

Deno.test("validate() rejects sleep with a ms of the wrong attribute type", async () => {
  const program = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      ops: [{
        type: "sleep",
        attrs: [{ name: "ms", type: AttrType.STRING, s: "10" }],
      }],
    }],
  });
  const error: ProgramError = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    ProgramError,
  );
  assertEquals(error.where.opType, "sleep");
});
