import { assertEquals, assertThrows } from "@std/assert";
import { Channel, Panic, Scheduler } from "../../scheduler/mod.ts";
import {
  receiversOf,
  recvInto,
  sendersOf,
  sendNow,
} from "../../scheduler/_channel_select.ts";
import { settle } from "./_settle.ts";

Deno.test("recvInto() takes a parked sender's value and completes its send", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(async () => {
    const ch = new Channel<number>();
    const sender = s.go(() => ch.send(7));
    await settle();
    assertEquals(sendersOf(ch).head?.value, 7);
    const out = { value: undefined as unknown, ok: false };
    recvInto(ch, out);
    assertEquals(out, { value: 7, ok: true });
    assertEquals(sendersOf(ch).head, null);
    await sender.done;
  });
});

Deno.test("sendNow() hands the value to a parked receiver, and panics on a closed channel naming the thread", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(async (main) => {
    const ch = new Channel<number>();
    let got = 0;
    s.go(async () => void (got = await ch.recv()));
    await settle();
    assertEquals(receiversOf(ch).head !== null, true);
    sendNow(ch, 5, main);
    assertEquals(receiversOf(ch).head, null);
    await settle();
    assertEquals(got, 5);
    ch.close();
    const p = assertThrows(() => sendNow(ch, 6, main), Panic);
    assertEquals([p.message, p.thread?.id], [
      "send on closed channel",
      main.id,
    ]);
  });
});
