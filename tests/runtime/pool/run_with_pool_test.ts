// runWithPool through the Executor, with real Workers: a recorded run's
// record holds what every worker recorded up to the moment main returned,
// even a worker that is then deep in a long synchronous kernel and answers
// no message.

import { assertEquals } from "@std/assert";
import {
  Executor,
  fillConstant,
  go,
  makeChannel,
  matmul,
  print,
  Program,
  recv,
  reduceSum,
  send,
  sleep,
} from "../../../mod.ts";
import {
  decodeSchedule,
  EVENT_WORDS,
  RECV,
  SEND,
} from "../../../runtime/core/schedule_file.ts";

// A goroutine, which a two-worker run places on worker 1, sends 1, 2, 3
// on `ready`, sleeps 50 ms, and then sets off on an int64 product of two
// 3072 x 3072 matrices: 2.9e10 BigInt multiply-adds, one kernel call that
// runs for a minute or more (well past the 30 s a worker once had to hand
// its entries over) without returning to its worker's event loop; only
// then would it send the product's sum on `late`. Main prints the
// three values and ends with a product of its own, of two 384 x 384
// matrices (a few hundred ms), so the run ends with worker 1 inside its
// kernel. Main's product is its last op, after which no thread yields to
// the event loop before the run ends: so a one-worker replay, where the
// goroutine's sleep ends only in a turn of the event loop, ends before the
// goroutine's product starts, as a two-worker one ends while it runs.
function busyAtTheEnd(): Program {
  const p = new Program();
  p.guard(() => {
    const ready = makeChannel({ dtype: "int64", capacity: 3 });
    const late = makeChannel({ dtype: "int64", capacity: 1 });
    go(() => {
      for (const value of [1, 2, 3]) {
        send(ready, fillConstant({ shape: [1], dtype: "int64", value }));
      }
      sleep(50);
      const a = fillConstant({ shape: [3072, 3072], dtype: "int64", value: 3 });
      send(late, reduceSum(matmul(a, a)));
    });
    const b = fillConstant({ shape: [384, 384], dtype: "int64", value: 3 });
    for (let i = 0; i < 3; i++) print(recv(ready));
    matmul(b, b);
  });
  return p;
}

Deno.test("runWithPool() records a worker busy in a kernel as main returns", async () => {
  const p = busyAtTheEnd();
  const printed: string[] = [];
  let bytes: Uint8Array = new Uint8Array();
  await new Executor({
    workers: 2,
    seed: 1,
    print: (line) => printed.push(line),
    schedule: { record: (b) => bytes = b },
  }).run(p.desc);
  assertEquals(printed, ["1", "2", "3"]);
  const record = decodeSchedule(bytes, "busy");
  // Each channel's attempts as [thread, kind]; thread 0 is main, 1 the
  // goroutine. `ready` saw the goroutine's three sends and main's three
  // receives, interleaved as they met; the goroutine's send on `late`
  // would come after its product, which the run never waited for.
  const attempts = record.channels.map((c) => {
    const kinds: string[] = [];
    for (let at = 0; at < c.events.length; at += EVENT_WORDS) {
      kinds.push(`${c.events[at]}:${c.events[at + 1]}`);
    }
    return kinds.sort();
  });
  assertEquals(record.threads.length, 2);
  assertEquals(attempts, [
    [
      `0:${RECV}`,
      `0:${RECV}`,
      `0:${RECV}`,
      `1:${SEND}`,
      `1:${SEND}`,
      `1:${SEND}`,
    ]
      .sort(),
    [],
  ]);
  for (const workers of [1, 2]) {
    const lines: string[] = [];
    await new Executor({
      workers,
      print: (line) => lines.push(line),
      schedule: { replay: record, file: "busy" },
    }).run(p.desc);
    assertEquals(lines, printed, `${workers} worker(s)`);
  }
});
