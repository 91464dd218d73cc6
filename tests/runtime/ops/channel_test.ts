// The channel ops as programs (docs/architecture.md §3–4): `channel_create`,
// `channel_send`, `channel_recv` and `channel_close` with Go's semantics,
// after the behaviours Go's test/chan and runtime/chan_test.go check: FIFO
// order, rendezvous, the closed-channel and nil-channel rules, the panics
// with their contract strings and op locations, and the deadlock dump.

import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import {
  appendLayer,
  assign,
  closeChannel,
  defaultProgram,
  Executor,
  fillConstant,
  forRange,
  go,
  ifElse,
  lessThan,
  makeChannel,
  print,
  Program,
  ProgramError,
  recv,
  recvOk,
  runCli,
  select,
  send,
  sleep,
  type Variable,
  VarType_Type,
  whileLoop,
} from "../../../mod.ts";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import { receiversOf, sendersOf } from "../../../scheduler/_channel_select.ts";
import { runBlock } from "../../../runtime/exec/block_runner.ts";
import { PreparedProgram } from "../../../runtime/exec/prepare.ts";
import { OPS } from "../../../runtime/ops/mod.ts";
import { Scope } from "../../../runtime/core/scope.ts";
import type { ThreadContext } from "../../../runtime/core/thread_context.ts";
import { threadContext } from "../../../runtime/exec/thread_context.ts";
import {
  type Channel,
  Deadlock,
  Panic,
  Scheduler,
} from "../../../scheduler/mod.ts";
import { int64 } from "../../_helpers/int64.ts";
import { locationOf } from "../../_helpers/location_of.ts";
import { nilChannel } from "../../_helpers/nil_channel.ts";
import {
  buildProgram,
  runProgram,
  tensorOf,
} from "../../_helpers/run_program.ts";
import { TEST_WORKERS } from "../../_helpers/test_workers.ts";
import { assertSameDump } from "../../_helpers/pool_dump.ts";

function int32(value: number): Variable {
  return fillConstant({ shape: [1], dtype: "int32", value });
}

/** Runs `program`; returns the error it ends with and what it printed. */
async function failureOf<E extends Error>(
  program: Program,
  type: new (...args: never[]) => E,
  workers: number = TEST_WORKERS,
): Promise<{ error: E; lines: string[] }> {
  const lines: string[] = [];
  const error: E = await assertRejects(
    () => new Executor({ workers, print: (l) => lines.push(l) }).run(program),
    type,
  );
  return { error, lines };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => String(i));

Deno.test("channel_recv() on a buffered channel is FIFO", async () => {
  const { lines } = await runProgram(() => {
    const ch = makeChannel({ capacity: 100, dtype: "int64" });
    forRange(100, (i) => send(ch, i));
    forRange(100, () => print(recv(ch)));
  });
  assertEquals(lines, range(100));
});

for (const capacity of [0, 1, 3, 199]) {
  Deno.test(
    `channel_recv() keeps a goroutine's order, capacity ${capacity}, then zero with Status false`,
    async () => {
      const { lines } = await runProgram(() => {
        const ch = makeChannel({ capacity, dtype: "int64" });
        go(() => {
          forRange(200, (i) => send(ch, i));
          closeChannel(ch);
        });
        const [v, ok] = recvOk(ch);
        whileLoop(ok, () => {
          print(v);
          recv(ch, { out: v, status: ok });
        });
        print(v, { message: "after close" });
      });
      assertEquals(lines, [...range(200), "after close 0"]);
    },
  );
}

Deno.test(
  "channel_send() on an unbuffered channel completes only after the receiver arrives",
  async () => {
    const { lines } = await runProgram(() => {
      const ch = makeChannel({ dtype: "int64" });
      const done = makeChannel({ dtype: "int64" });
      go(() => {
        forRange(3, (i) => {
          print(i, { message: "ready" });
          print(recv(ch), { message: "got" });
        });
        send(done, int64(0));
      });
      forRange(3, (i) => {
        send(ch, i);
        print(i, { message: "sent" });
      });
      recv(done); // the receiver has printed its last value
    });
    for (let k = 0; k < 3; k++) {
      assert(
        lines.indexOf(`ready ${k}`) < lines.indexOf(`sent ${k}`),
        `receive ${k} starts before send ${k} completes: ${lines}`,
      );
    }
    assertEquals(lines.filter((l) => l.startsWith("got")), [
      "got 0",
      "got 1",
      "got 2",
    ]);
  },
);

Deno.test("channel_send() on a buffered channel with room needs no receiver", async () => {
  const { lines } = await runProgram(() => {
    const ch = makeChannel({ capacity: 3, dtype: "int64" });
    forRange(3, (i) => send(ch, i));
    print(int64(3), { message: "sent" });
  });
  assertEquals(lines, ["sent 3"]);
});

Deno.test("channel_send() on an unbuffered channel with no receiver deadlocks", async () => {
  const [program] = buildProgram(() => send(makeChannel(), int32(1)));
  const { error } = await failureOf(program, Deadlock);
  assertEquals(
    error.message,
    "fatal error: all goroutines are asleep - deadlock!",
  );
  assertEquals(
    error.dump,
    `goroutine 1 [chan send]:\n\t${locationOf(program, 0, "channel_send")}`,
  );
});

Deno.test(
  "channel_recv() from a closed channel yields buffered values, then zero with Status false, forever",
  async () => {
    const { lines, values } = await runProgram(() => {
      const ch = makeChannel({ capacity: 3, dtype: "int32" });
      send(ch, int32(1));
      send(ch, int32(2));
      closeChannel(ch);
      let last: Variable | undefined;
      for (let k = 0; k < 4; k++) {
        const [v, ok] = recvOk(ch);
        print(v);
        print(ok);
        last = v;
      }
      return last!;
    });
    assertEquals(lines, [
      "1",
      "true",
      "2",
      "true",
      "0",
      "false",
      "0",
      "false",
    ]);
    const zero = tensorOf(values[0]);
    assertEquals([zero.dtype, zero.shape], ["int32", [1]]);
  },
);

Deno.test("channel_recv() from a closed untyped channel yields a float32 zero", async () => {
  const { values } = await runProgram(() => {
    const ch = makeChannel();
    closeChannel(ch);
    return recv(ch);
  });
  const zero = tensorOf(values[0]);
  assertEquals([zero.dtype, zero.shape, zero.item(0)], ["float32", [1], 0]);
});

Deno.test("channel_close() wakes every blocked receiver with Status false", async () => {
  const { lines } = await runProgram(() => {
    const ch = makeChannel({ dtype: "int32" });
    const results = makeChannel({ capacity: 3, dtype: "bool" });
    for (let k = 0; k < 3; k++) {
      go(() => {
        const [, ok] = recvOk(ch);
        send(results, ok);
      });
    }
    sleep(1); // lets the receivers park; the outcome does not depend on it
    closeChannel(ch);
    forRange(3, () => print(recv(results)));
  });
  assertEquals(lines, ["false", "false", "false"]);
});

Deno.test("channel_send() on a closed channel panics at the send", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ capacity: 1 });
    closeChannel(ch);
    send(ch, int32(1));
  });
  const { error } = await failureOf(program, Panic);
  assertEquals(error.message, "send on closed channel");
  assertEquals(error.where, locationOf(program, 0, "channel_send"));
  assertEquals(error.thread?.id, 1);
});

Deno.test("channel_send() blocked when the channel is closed panics", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ dtype: "int32" });
    go(() => closeChannel(ch));
    send(ch, int32(1));
    print(int32(0), { message: "unreachable" });
  });
  const { error, lines } = await failureOf(program, Panic);
  assertEquals(error.message, "send on closed channel");
  assertEquals(error.where, locationOf(program, 0, "channel_send"));
  assertEquals(error.thread?.id, 1);
  assertEquals(lines, []);
});

Deno.test("channel_close() of a closed channel panics", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel();
    closeChannel(ch);
    closeChannel(ch);
  });
  const { error } = await failureOf(program, Panic);
  assertEquals(error.message, "close of closed channel");
  assertEquals(error.where, locationOf(program, 0, "channel_close", 1));
});

Deno.test("channel_close() of a nil channel panics", async () => {
  const [program] = buildProgram(() => closeChannel(nilChannel("never_made")));
  const { error } = await failureOf(program, Panic);
  assertEquals(error.message, "close of nil channel");
  assertEquals(error.where, "block 0 op 0 channel_close");
});

Deno.test("channel_create() with a negative capacity panics", async () => {
  const [program] = buildProgram(() => makeChannel({ capacity: -1 }));
  const { error } = await failureOf(program, Panic);
  assertEquals(error.message, "makechan: size out of range");
  assertEquals(error.where, "block 0 op 0 channel_create");
});

Deno.test("channel_recv() from a nil channel blocks forever", async () => {
  const [program] = buildProgram(() => {
    recv(nilChannel("never_made"));
  });
  const { error } = await failureOf(program, Deadlock);
  assertEquals(
    error.dump,
    "goroutine 1 [chan receive (nil chan)]:\n\tblock 0 op 0 channel_recv",
  );
});

Deno.test("channel_send() on a nil channel blocks forever", async () => {
  const [program] = buildProgram(() =>
    send(nilChannel("never_made"), int32(1))
  );
  const { error } = await failureOf(program, Deadlock);
  assertEquals(
    error.dump,
    `goroutine 1 [chan send (nil chan)]:\n\t${
      locationOf(program, 0, "channel_send")
    }`,
  );
});

Deno.test(
  "a deadlock dump names each thread's wait reason, op and creating go op",
  async () => {
    const [program] = buildProgram(() => {
      const one = int32(1);
      const a = makeChannel({ dtype: "int32", name: "a" });
      const b = makeChannel({ dtype: "int32", name: "b" });
      const c = makeChannel({ dtype: "int32", name: "c" });
      const d = makeChannel({ dtype: "int32", name: "d" });
      const e = makeChannel({ dtype: "int32", name: "e" });
      go(() => {
        recv(a);
      });
      go(() => send(b, one));
      go(() =>
        select((s) => {
          s.recv(c);
          s.send(d, one);
        })
      );
      recv(e);
    });
    const { error } = await failureOf(program, Deadlock);
    const goAt = (n: number) => locationOf(program, 0, "go", n);
    const blocks = program.desc.blocks[0].ops
      .filter((op) => op.type === "go")
      .map((op) => op.attrs.find((a) => a.name === "sub_block")!.blockIdx);
    assertEquals(error.threads.map((t) => t.id).sort(), [1, 2, 3, 4]);
    assertSameDump(
      error.dump,
      [
        `goroutine 1 [chan receive]:\n\t${
          locationOf(program, 0, "channel_recv")
        }`,
        `goroutine 2 [chan receive]:\n\t${
          locationOf(program, blocks[0], "channel_recv")
        }\n\tcreated at ${goAt(0)}`,
        `goroutine 3 [chan send]:\n\t${
          locationOf(program, blocks[1], "channel_send")
        }\n\tcreated at ${goAt(1)}`,
        `goroutine 4 [select]:\n\t${
          locationOf(program, blocks[2], "select")
        }\n\tcreated at ${goAt(2)}`,
      ].join("\n\n"),
    );
  },
);

Deno.test("a panic's dump lists the other goroutines where they wait", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ dtype: "int64" });
    go(() => {
      recv(ch);
    });
    sleep(1); // parks the main thread, so the goroutine runs and parks
    closeChannel(nilChannel("never_made"));
  });
  // On one worker the sleep orders the two threads: the goroutine runs while
  // the main thread waits, and parks before the timer fires. With a second
  // worker it could start on the other one later than 1 ms (a loaded
  // machine), and show as runnable; no op lets a thread see that another
  // has parked without waking it. Remote goroutines in dumps have their own
  // tests in tests/runtime/pool/.
  const { error } = await failureOf(program, Panic, 1);
  const close = locationOf(program, 0, "channel_close");
  assertEquals(error.message, "close of nil channel");
  assertSameDump(
    error.dump,
    `goroutine 1 [runnable]:\n\t${close}\n\n` +
      `goroutine 2 [chan receive]:\n\tblock 1 op 0 channel_recv\n` +
      `\tcreated at ${locationOf(program, 0, "go")}`,
  );
});

Deno.test("the run ends when block 0 ends, whatever goroutines are blocked", async () => {
  const { lines } = await runProgram(() => {
    const a = makeChannel({ dtype: "int32" });
    const b = makeChannel({ dtype: "int32" });
    go(() => {
      recv(a);
    });
    go(() => send(b, int32(1)));
    go(() => {
      const forever = fillConstant({ shape: [1], dtype: "bool", value: true });
      whileLoop(forever, () => {
        recv(a);
      });
    });
    sleep(1); // lets the goroutines park
    print(int32(0), { message: "main done" });
  });
  assertEquals(lines, ["main done 0"]);
});

Deno.test("channel_send() of another dtype on a typed channel panics naming both", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ capacity: 1, dtype: "int64" });
    send(ch, int32(1));
  });
  const { error } = await failureOf(program, Panic);
  assertStringIncludes(error.message, "int32");
  assertStringIncludes(error.message, "int64");
  assertEquals(error.where, locationOf(program, 0, "channel_send"));
});

Deno.test("channel_send() of the element dtype on a typed channel succeeds", async () => {
  const { lines } = await runProgram(() => {
    const ch = makeChannel({ capacity: 1, dtype: "int32" });
    send(ch, int32(5));
    print(recv(ch));
  });
  assertEquals(lines, ["5"]);
});

Deno.test("channel_send() of any dtype on an untyped channel succeeds", async () => {
  const { lines } = await runProgram(() => {
    const ch = makeChannel({ capacity: 2 });
    send(ch, int32(5));
    send(ch, fillConstant({ shape: [1], dtype: "bool", value: true }));
    print(recv(ch));
    print(recv(ch));
  });
  assertEquals(lines, ["5", "true"]);
});

Deno.test("an untyped channel is declared as carrying any tensor, and dumps so", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ capacity: 1, name: "ch" });
    send(ch, fillConstant({ shape: [1], dtype: "int64", value: 7 }));
    print(recv(ch));
  });
  const decl = program.desc.blocks[0].vars.find((v) => v.name === "ch")!;
  assertEquals(decl.type?.channel?.dataType, VarType_Type.LOD_TENSOR);
  assertStringIncludes(program.toString(), "var ch CHANNEL any capacity 1\n");
  const { lines } = await runProgram(program);
  assertEquals(lines, ["7"]);
});

Deno.test("channel_recv() declares its Out with the channel's element type, none for any", () => {
  const [, [typed, any]] = buildProgram(() => [
    recv(makeChannel({ dtype: "int64" })),
    recv(makeChannel()),
  ]);
  assertEquals([typed.dtype, any.dtype], ["int64", undefined]);
});

Deno.test("validate() rejects channel_create of another element type than Out is declared with", async () => {
  const [program] = buildProgram(() => {
    const ch = defaultProgram().currentBlock.createVar({
      name: "ch",
      kind: "channel",
      dtype: "int64",
    });
    appendLayer("channel_create", {}, {
      data_type: VarType_Type.FP32,
    }, { Out: ch });
  });
  const { error } = await failureOf(program, ProgramError);
  assertEquals(error.where.opType, "channel_create");
  assertStringIncludes(
    error.message,
    'output "Out": variable "ch" is declared a channel of int64 but the op makes a channel of float32',
  );
});

for (const type of ["channel_send", "channel_recv", "channel_close"]) {
  Deno.test(`validate() rejects ${type} whose Channel names a tensor`, async () => {
    const [program] = buildProgram(() => {
      print(int32(1)); // must not run
      const x = int32(2);
      const inputs = type === "channel_send"
        ? { Channel: x, X: x }
        : { Channel: x };
      appendLayer(type, inputs);
    });
    const { error, lines } = await failureOf(program, ProgramError);
    assertEquals(error.where, {
      file: undefined,
      block: 0,
      op: 3,
      opType: type,
      slot: "Channel",
      variable: "fill_constant.out_1", // x; int32(1) made out_0
    });
    assertStringIncludes(error.message, `input "Channel"`);
    assertEquals(lines, []);
  });
}

Deno.test("validate() rejects channel_send whose X names a channel", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ capacity: 1 });
    appendLayer("channel_send", { Channel: ch, X: ch });
  });
  const { error } = await failureOf(program, ProgramError);
  assertEquals(error.where.opType, "channel_send");
  assertStringIncludes(error.message, `input "X"`);
});

Deno.test("the CLI exits 2 with the panic, its location and the dump", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ capacity: 1 });
    closeChannel(ch);
    send(ch, int32(1));
  });
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/send_closed.pb`;
    await program.save(file);
    const err: string[] = [];
    // With a seed given, the report has no "rerun with --seed" line.
    const { code } = await runCli([file, "--seed", "1"], {
      stdout: () => {},
      stderr: (t) => err.push(t),
    });
    assertEquals(code, 2);
    const where = locationOf(program, 0, "channel_send");
    assertEquals(
      err.join(""),
      `panic: send on closed channel\n\tat ${where}\n\n` +
        `goroutine 1 [runnable]:\n\t${where}\n`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the CLI exits 2 on a deadlock and 1 on an invalid channel slot", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const [deadlock] = buildProgram(() => {
      recv(nilChannel("never_made"));
    });
    const [invalid] = buildProgram(() => {
      const x = int32(2);
      appendLayer("channel_close", { Channel: x });
    });
    await deadlock.save(`${dir}/deadlock.pb`);
    await invalid.save(`${dir}/invalid.txtpb`);
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (t: string) => err.push(t) };
    assertEquals(
      (await runCli([`${dir}/deadlock.pb`, "--seed", "1"], io)).code,
      2,
    );
    assertEquals(
      err.pop(),
      "fatal error: all goroutines are asleep - deadlock!\n\n" +
        "goroutine 1 [chan receive (nil chan)]:\n\tblock 0 op 0 channel_recv\n",
    );
    assertEquals((await runCli([`${dir}/invalid.txtpb`], io)).code, 1);
    const line = err.pop()!;
    assert(line.startsWith("error: "), line);
    assertEquals(line.split("\n"), [line.trimEnd(), ""]);
    assertStringIncludes(line, "block 0 op 1 (channel_close)");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("channel_recv() hands over the sent tensor itself", async () => {
  const { values } = await runProgram(() => {
    const ch = makeChannel({ capacity: 1 });
    const x = fillConstant({ shape: [2, 2], dtype: "float32", value: 3 });
    send(ch, x);
    return [x, recv(ch)];
  });
  assert(
    tensorOf(values[0]) === tensorOf(values[1]),
    "a sent tensor is not copied",
  );
});

Deno.test("a goroutine parked in channel_recv or channel_send waits on its thread's resumer, not a promise", async () => {
  const program = new Program();
  const [inbox, outbox] = program.guard(() => {
    const inbox = makeChannel({ dtype: "int32" });
    const outbox = makeChannel({ dtype: "int32" });
    go(() => void recv(inbox));
    go(() => send(outbox, fillConstant({ shape: [1], dtype: "int32" })));
    return [inbox, outbox];
  });
  const block = new PreparedProgram(program.desc, OPS).block(0);
  const scope = new Scope(block.layout);
  const scheduler = new Scheduler({ seed: 1, threadContext: false });
  const services = { scheduler, device: cpuDevice, seed: 1, print: () => {} };
  await scheduler.run(async (main) => {
    await runBlock(block, scope, threadContext(services, main));
    await new Promise((resolve) => setTimeout(resolve, 0)); // both park
    const parked = [
      receiversOf(scope.get(inbox.name) as Channel<unknown>).head,
      sendersOf(scope.get(outbox.name) as Channel<unknown>).head,
    ];
    for (const waiter of parked) {
      // The thread's context, its own resumer: no promise was made.
      const resumer = waiter?.resolve as ThreadContext | undefined;
      assert(resumer !== undefined && (resumer.resumer as unknown) === resumer);
      assertEquals(resumer?.thread, waiter?.thread);
    }
  });
});

Deno.test("channel_send() checks each channel's element type when one op sends on several", async () => {
  // The op keeps the last channel's type: passes 0 and 1 send on the
  // int64 channel, pass 2 on the int32 one, which must still panic.
  const [program] = buildProgram(() => {
    const wide = makeChannel({ capacity: 2, dtype: "int64" });
    const narrow = makeChannel({ capacity: 2, dtype: "int32" });
    const ch = makeChannel();
    forRange(3, (i) => {
      ifElse(
        lessThan(i, int64(2)),
        () => assign(wide, { out: ch }),
        () => assign(narrow, { out: ch }),
      );
      send(ch, i);
      print(i, { message: "sent" });
    });
  });
  const { error, lines } = await failureOf(program, Panic, 1);
  assertEquals(lines, ["sent 0", "sent 1"]);
  assertEquals(
    error.message,
    "send of a tensor of int64 on a channel of int32",
  );
  assertEquals(error.where, locationOf(program, 1, "channel_send"));
});

Deno.test("channel_recv() with Status from a closed buffered channel yields its values, ok, then the zero, not ok", async () => {
  // A receive that completes at once takes Status from the channel's state,
  // with no { value, ok } record: buffered values are ok even once closed.
  const { lines } = await runProgram(() => {
    const ch = makeChannel({ capacity: 3, dtype: "int64" });
    send(ch, int64(4));
    send(ch, int64(5));
    closeChannel(ch);
    forRange(3, () => {
      const [v, ok] = recvOk(ch);
      print(v, { message: "v" });
      print(ok, { message: "ok" });
    });
  });
  assertEquals(lines, ["v 4", "ok true", "v 5", "ok true", "v 0", "ok false"]);
});

Deno.test("channel_recv() with Status parked, then woken by a send or a close, gives ok true, then false", async () => {
  const { lines } = await runProgram(() => {
    const ch = makeChannel({ capacity: 1, dtype: "int64" });
    go(() => {
      sleep(1);
      send(ch, int64(9));
      sleep(1);
      closeChannel(ch);
    });
    forRange(2, () => {
      const [v, ok] = recvOk(ch);
      print(v, { message: "v" });
      print(ok, { message: "ok" });
    });
  });
  assertEquals(lines, ["v 9", "ok true", "v 0", "ok false"]);
});
