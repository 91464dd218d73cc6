// scheduledOp: a channel op of a recorded run passes the gate around its
// attempt; ops without a channel, and runs without a gate, run as they are.

import { assertEquals, assertStrictEquals } from "@std/assert";
import { scheduledOp } from "../../../runtime/exec/scheduled_op.ts";
import {
  Executor,
  fillConstant,
  go,
  makeChannel,
  Program,
  recv,
  send,
} from "../../../mod.ts";
import {
  decodeSchedule,
  RECV,
  SEND,
} from "../../../runtime/core/schedule_file.ts";

Deno.test("scheduledOp() leaves ops that use no channel alone", () => {
  const op = { run: () => {}, resume: undefined };
  assertStrictEquals(
    scheduledOp(op, "elementwise_add", { block: 0, op: 3 }),
    op,
  );
});

Deno.test("scheduledOp() records each send and receive at its op", async () => {
  const p = new Program();
  p.guard(() => {
    const ch = makeChannel({ dtype: "int32" });
    go(() => send(ch, fillConstant({ shape: [1], dtype: "int32", value: 1 })));
    recv(ch);
  });
  let bytes: Uint8Array = new Uint8Array();
  await new Executor({ schedule: { record: (b) => bytes = b } }).run(p.desc);
  const rec = decodeSchedule(bytes, "r");
  assertEquals(rec.channels.length, 1);
  // The main thread (0) receives first and parks; the goroutine (1) sends.
  const ops = p.desc.blocks[0].ops.map((o) => o.type);
  const recvAt = ops.indexOf("channel_recv");
  const sendAt = p.desc.blocks[1].ops.findIndex((o) =>
    o.type === "channel_send"
  );
  assertEquals([...rec.channels[0].events], [
    0,
    RECV,
    0,
    recvAt,
    1,
    SEND,
    1,
    sendAt,
  ]);
});
