// The schedule gate through the Executor: a replay follows the record it
// is given, and stops with one ProgramError naming the first divergence
// when the run does something else (as when a file the program reads
// changed): here a record of one program, stamped as if it fit another.

import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import { Panic } from "../../../scheduler/panic.ts";
import { toBinary } from "@bufbuild/protobuf";
import { ProgramDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import {
  Executor,
  fillConstant,
  forRange,
  go,
  makeChannel,
  print,
  Program,
  recv,
  select,
  send,
} from "../../../mod.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";
import { nilChannel } from "../../_helpers/nil_channel.ts";
import {
  decodeSchedule,
  EVENT_WORDS,
  scheduleFingerprint,
} from "../../../runtime/core/schedule_file.ts";

// A goroutine sends two values (after `extra` more ops when asked); main
// receives two and prints them.
function program(extra: boolean): Program {
  const p = new Program();
  p.guard(() => {
    const ch = makeChannel({ dtype: "int32" });
    go(() => {
      if (extra) fillConstant({ shape: [1], dtype: "int32", value: 9 });
      for (let i = 0; i < 2; i++) {
        send(ch, fillConstant({ shape: [1], dtype: "int32", value: i }));
      }
    });
    print(recv(ch));
    print(recv(ch));
  });
  return p;
}

async function record(p: Program): Promise<Uint8Array> {
  let bytes: Uint8Array = new Uint8Array();
  await new Executor({
    seed: 3,
    print: () => {},
    schedule: { record: (b) => bytes = b },
  }).run(p.desc);
  return bytes;
}

Deno.test("Executor replays a recorded run with the record's seed", async () => {
  const p = program(false);
  const rec = decodeSchedule(await record(p), "r");
  assertEquals(rec.seed, 3);
  const lines: string[] = [];
  await new Executor({
    print: (l) => lines.push(l),
    schedule: { replay: rec, file: "r" },
  }).run(p.desc);
  assertEquals(lines, ["0", "1"]);
});

Deno.test("Executor names the first divergence of a replay", async () => {
  const rec = decodeSchedule(await record(program(false)), "r");
  const other = program(true).desc;
  const fingerprint = await scheduleFingerprint(
    toBinary(ProgramDescSchema, other),
    [],
  );
  // Thrown by the op, it reaches the caller as a panic caused by the
  // ProgramError, which the CLI prints as its one error line (exit 1).
  const panic = await assertRejects(
    () =>
      new Executor({
        print: () => {},
        schedule: { replay: { ...rec, fingerprint }, file: "r" },
      }).run(other),
    Panic,
  );
  assert(panic.cause instanceof ProgramError);
  assertMatch(
    panic.cause.message,
    /^--replay: diverged on channel 0: expected .+, actual send by thread 1 at block 1 op \d+/,
  );
});

// Two goroutines send on one channel, main receives both; with `stuck`,
// the first goroutine first waits on a nil channel for ever.
function twoSenders(stuck: boolean): Program {
  const p = new Program();
  p.guard(() => {
    const ch = makeChannel({ dtype: "int32" });
    const never = nilChannel("never");
    for (const v of [1, 2]) {
      go(() => {
        if (stuck && v === 1) recv(never);
        send(ch, fillConstant({ shape: [1], dtype: "int32", value: v }));
      });
    }
    print(recv(ch));
    print(recv(ch));
  });
  return p;
}

for (const workers of [1, 2]) {
  Deno.test(`Executor names the turn a stalled replay waits for (${workers} worker${workers > 1 ? "s" : ""})`, async () => {
    let bytes: Uint8Array = new Uint8Array();
    await new Executor({
      seed: 1,
      print: () => {},
      schedule: { record: (b) => bytes = b },
    }).run(twoSenders(false).desc);
    const rec = decodeSchedule(bytes, "r");
    const other = twoSenders(true).desc;
    const fingerprint = await scheduleFingerprint(
      toBinary(ProgramDescSchema, other),
      [],
    );
    // The first sender never comes; the second waits for its turn, main
    // for a value: every thread is blocked, which the replay reports as
    // the divergence, not as a deadlock.
    const e = await assertRejects(
      () =>
        new Executor({
          workers,
          print: () => {},
          schedule: { replay: { ...rec, fingerprint }, file: "r" },
        }).run(other),
      ProgramError,
    );
    assertMatch(
      e.message,
      /^--replay: diverged on channel 0: expected send by thread 1 at block 1 op 1, actual send by thread 2 at block 2 op 1 \(waiting\)$/,
    );
  });
}

// A goroutine sends three values into a buffer; main takes one and ends,
// whatever the goroutine still does (Go's rule).
function mainEndsFirst(): Program {
  const p = new Program();
  p.guard(() => {
    const ch = makeChannel({ dtype: "int32", capacity: 4 });
    go(() => {
      for (let i = 0; i < 3; i++) {
        send(ch, fillConstant({ shape: [1], dtype: "int32", value: i }));
      }
    });
    print(recv(ch));
  });
  return p;
}

for (const workers of [1, 2]) {
  Deno.test(`Executor's replay lets threads make the attempts they owe after main ends (${workers} worker${workers > 1 ? "s" : ""})`, async () => {
    const p = mainEndsFirst();
    const rec = decodeSchedule(await record(p), "r");
    assertEquals(rec.channels[0].events.length / EVENT_WORDS, 4);
    for (let i = 0; i < 3; i++) {
      const lines: string[] = [];
      await new Executor({
        workers,
        print: (l) => lines.push(l),
        schedule: { replay: rec, file: "r" },
      }).run(p.desc);
      assertEquals(lines, ["0"]);
    }
  });
}

Deno.test("Executor records the same run the same way twice in one process", async () => {
  // 3,000 round trips: 12,000 attempts, past two chunks of a one-worker
  // recording's log, which the second recording reuses.
  const p = new Program();
  p.guard(() => {
    const ping = makeChannel({ dtype: "int32" });
    const pong = makeChannel({ dtype: "int32" });
    go(() => forRange(3000, () => send(pong, recv(ping))));
    const ball = fillConstant({ shape: [1], dtype: "int32", value: 7 });
    forRange(3000, () => {
      send(ping, ball);
      recv(pong, { out: ball });
    });
  });
  const first = await record(p);
  const second = await record(p);
  assertEquals(second, first);
  const rec = decodeSchedule(first, "r");
  assertEquals(rec.channels.map((c) => c.events.length / EVENT_WORDS), [
    6000,
    6000,
  ]);
});

// Three senders share a buffered channel, two receivers take from it and
// pass each value on, tagged, through a channel of their own; main
// selects between those and prints: the lines depend on which receiver
// took which value and on every select's choice.
function sharedBuffer(): Program {
  const p = new Program();
  p.guard(() => {
    const work = makeChannel({ dtype: "int32", capacity: 2 });
    const outs = [
      makeChannel({ dtype: "int32" }),
      makeChannel({ dtype: "int32" }),
    ];
    for (const base of [100, 200, 300]) {
      go(() =>
        forRange(20, () =>
          send(
            work,
            fillConstant({ shape: [1], dtype: "int32", value: base }),
          ))
      );
    }
    for (const out of outs) {
      go(() => forRange(30, () => send(out, recv(work))));
    }
    forRange(60, () => {
      select((s) => {
        s.recv(outs[0], (v) => print(v, { message: "r0" }));
        s.recv(outs[1], (v) => print(v, { message: "r1" }));
      });
    });
  });
  return p;
}

Deno.test("Executor replays a 2-worker recording of a shared buffer on 1 and 2 workers", async () => {
  const p = sharedBuffer();
  const recorded: string[] = [];
  let bytes: Uint8Array = new Uint8Array();
  await new Executor({
    workers: 2,
    seed: 5,
    print: (l) => recorded.push(l),
    schedule: { record: (b) => bytes = b },
  }).run(p.desc);
  assertEquals(recorded.length, 60);
  const rec = decodeSchedule(bytes, "r");
  for (const workers of [1, 2, 1, 2]) {
    const lines: string[] = [];
    await new Executor({
      workers,
      print: (l) => lines.push(l),
      schedule: { replay: rec, file: "r" },
    }).run(p.desc);
    assertEquals(lines, recorded, `${workers} worker(s)`);
  }
});
