// ScheduleReplayer driven by hand: an attempt out of turn waits, one in
// turn moves the cursor and rings the waiter; a wrong op diverges; a
// select is forced to its recorded case.

import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertThrows,
} from "@std/assert";
import { ScheduleReplayer } from "../../../runtime/core/schedule_replayer.ts";
import { TurnWait } from "../../../runtime/core/schedule_gate.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";
import {
  CASE_BASE,
  RECV,
  type ScheduleRecord,
  SEND,
} from "../../../runtime/core/schedule_file.ts";
import { Scheduler } from "../../../scheduler/scheduler.ts";
import { Channel } from "../../../scheduler/channel.ts";

// Main (key 0) made channel 0; a child (the first go's lineage) sends on
// it first, then main receives; main's select 0 took case 1.
function recordFor(child: number): ScheduleRecord {
  return {
    fingerprint: new Uint8Array(32),
    seed: 1,
    threads: [0, child],
    channels: [{
      creator: 0,
      ordinal: 0,
      events: new Int32Array([1, SEND, 1, 2, 0, RECV, 0, 3]),
    }],
    choices: [[1], []],
  };
}

Deno.test("ScheduleReplayer holds an attempt until its turn", async () => {
  const order: string[] = [];
  await new Scheduler({ seed: 1 }).run(async (main) => {
    const childThread = main.scheduler.go(() => {});
    const gate = new ScheduleReplayer(
      recordFor(childThread.lineageKey >>> 0),
      0,
      1,
    );
    const ch = new Channel<unknown>(1);
    gate.made(ch, main);
    const c = gate.indexOf(ch);
    assertEquals(c, 0);
    const recv = gate.site(RECV, 0, 3);
    const send = gate.site(SEND, 1, 2);
    // Main's receive is second: it waits.
    const wait = assertThrows(() => gate.enter(c, main, recv));
    assertInstanceOf(wait, TurnWait);
    assertEquals(
      gate.stall()?.message,
      "--replay: diverged on channel 0: expected send by thread 1 at block 1 op 2, actual recv by the main thread at block 0 op 3 (waiting)",
    );
    // The child's send is first: through, then the cursor moves.
    gate.enter(c, childThread, send);
    order.push("send");
    gate.leave(c);
    await (wait as TurnWait).promise;
    gate.enter(c, main, recv);
    order.push("recv");
    gate.leave(c);
    // Main's wait is over: a stall now names no waiting thread.
    assertEquals(gate.stall(), undefined);
  });
  assertEquals(order, ["send", "recv"]);
});

Deno.test("ScheduleReplayer names an attempt the record does not expect", async () => {
  await new Scheduler({ seed: 1 }).run((main) => {
    const child = main.scheduler.go(() => {});
    const gate = new ScheduleReplayer(recordFor(child.lineageKey >>> 0), 0, 1);
    const ch = new Channel<unknown>(1);
    gate.made(ch, main);
    const e = assertThrows(
      () => gate.enter(0, child, gate.site(SEND, 1, 5)),
      ProgramError,
    );
    assertEquals(
      e.message,
      "--replay: diverged on channel 0: expected send by thread 1 at block 1 op 2, actual send by thread 1 at block 1 op 5",
    );
  });
});

Deno.test("ScheduleReplayer forces a select to its recorded case", async () => {
  await new Scheduler({ seed: 1 }).run((main) => {
    const record = { ...recordFor(1), channels: [] };
    const gate = new ScheduleReplayer(record, 0, 1);
    const cases = [gate.site(CASE_BASE, 0, 7), gate.site(CASE_BASE + 1, 0, 7)];
    // Its case had no recorded channel here: forced, without a turn.
    assertEquals(gate.enterSelect([-1, -1], main, cases), 1);
    // A second select was never recorded: -1, no case forced.
    assertEquals(gate.enterSelect([-1, -1], main, cases), -1);
    assert(gate.drain(main) === undefined);
  });
});
