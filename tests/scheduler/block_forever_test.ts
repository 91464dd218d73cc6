import { assertEquals, assertRejects } from "@std/assert";
import { blockForever, Deadlock, go, run } from "../../scheduler/mod.ts";
import { within } from "../_helpers/within.ts";
import { settle } from "./_settle.ts";

Deno.test("blockForever() parks with the nil channel's wait reason", async () => {
  await within(
    2000,
    run(async () => {
      const t = go(() => blockForever("chan send (nil chan)"));
      await settle();
      assertEquals([t.state, t.waitReason], [
        "blocked",
        "chan send (nil chan)",
      ]);
    }, { seed: 1 }),
  );
});

Deno.test("blockForever() on every thread is a deadlock", async () => {
  const d: Deadlock = await within(
    2000,
    assertRejects(() =>
      run(() => {
        go(() => blockForever("chan send (nil chan)"));
        return blockForever("chan receive (nil chan)");
      }), Deadlock),
  );
  assertEquals(
    d.dump,
    "goroutine 1 [chan receive (nil chan)]:\n\ngoroutine 2 [chan send (nil chan)]:",
  );
});

Deno.test("blockForever() with an AbortSignal ends the wait", async () => {
  await within(
    2000,
    run(async () => {
      const ac = new AbortController();
      setTimeout(() => ac.abort("enough"), 5);
      const reason = await assertRejects(() =>
        blockForever("chan receive (nil chan)", { signal: ac.signal })
      );
      assertEquals(reason, "enough");
    }, { seed: 1 }),
  );
  // Outside green threads too.
  await assertRejects(() =>
    blockForever("select (no cases)", { signal: AbortSignal.abort(1) })
  );
  const ac = new AbortController();
  const p = blockForever("select (no cases)", { signal: ac.signal });
  ac.abort(2);
  assertEquals(await p.catch((e) => e), 2);
});
