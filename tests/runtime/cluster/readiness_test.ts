import { assertEquals, assertRejects } from "@std/assert";
import { Readiness } from "../../../runtime/cluster/readiness.ts";

Deno.test("Readiness.changed() resolves on a change, not on setting the same value", async () => {
  const readiness = new Readiness(false);
  let woken = 0;
  const changed = readiness.changed().then(() => woken++);
  readiness.set(false);
  await Promise.resolve();
  assertEquals(woken, 0);
  readiness.set(true);
  await changed;
  assertEquals([woken, readiness.ready], [1, true]);
});

Deno.test("Readiness.changed() rejects with the signal's reason when aborted", async () => {
  const readiness = new Readiness(true);
  const controller = new AbortController();
  const changed = readiness.changed(controller.signal);
  controller.abort(new Error("hung up"));
  await assertRejects(() => changed, Error, "hung up");
  // An aborted signal ends a new wait at once, too.
  readiness.set(false);
  await assertRejects(() => readiness.changed(controller.signal));
});
