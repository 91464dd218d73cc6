import { assertEquals } from "@std/assert";
import {
  Channel,
  formatThreadDump,
  Scheduler,
  sleep,
} from "../../scheduler/mod.ts";
import { settle } from "./_settle.ts";

Deno.test("formatThreadDump() lists live threads as Go's goroutine dump", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(async () => {
    const ch = new Channel<number>();
    s.go(() => ch.recv(), { name: "reader", createdAt: "block 0 op 1 go" });
    const sleeper = s.go(() => sleep(1000));
    s.go(() => {}); // finishes before the dump
    await settle();
    sleeper.where = "block 2 op 0 sleep";
    s.threads()[0].where = "block 0 op 3 print";
    assertEquals(
      formatThreadDump(s.threads()),
      [
        "goroutine 1 [runnable]:\n\tblock 0 op 3 print",
        "goroutine 2 [chan receive]:\n\treader\n\tcreated at block 0 op 1 go",
        "goroutine 3 [sleep]:\n\tblock 2 op 0 sleep",
      ].join("\n\n"),
    );
  });
});

Deno.test("formatThreadDump() of no threads is empty", () => {
  assertEquals(formatThreadDump([]), "");
});
