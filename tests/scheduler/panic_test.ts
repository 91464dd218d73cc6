import { assert, assertEquals } from "@std/assert";
import { Deadlock, Panic, Scheduler } from "../../scheduler/mod.ts";

Deno.test("Panic carries its message, thread and location", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(() => {
    const main = s.threads()[0];
    main.where = "block 0 op 5 channel_close";
    const p = new Panic("close of nil channel");
    assertEquals(p.message, "close of nil channel");
    assertEquals(p.name, "Panic");
    assert(p.thread === main);
    assertEquals(p.where, "block 0 op 5 channel_close");
    assertEquals(p.dump, "");
  });
});

Deno.test("Panic outside green threads has no thread", () => {
  const p = new Panic("boom", { where: "here" });
  assertEquals([p.thread, p.where], [undefined, "here"]);
});

Deno.test("Panic.from() wraps errors and other values, and keeps panics", () => {
  const e = new TypeError("x is not a function");
  const p = Panic.from(e, undefined);
  assertEquals(p.message, "TypeError: x is not a function");
  assert(p.cause === e);
  assertEquals(Panic.from("plain", undefined).message, "plain");
  assertEquals(Panic.from(42, undefined).message, "42");
  assert(Panic.from(p, undefined) === p);
});

Deno.test("Deadlock has Go's exact message", () => {
  const d = new Deadlock([]);
  assertEquals(d.message, "fatal error: all goroutines are asleep - deadlock!");
  assertEquals([d.name, d.dump, d.threads.length], ["Deadlock", "", 0]);
});
