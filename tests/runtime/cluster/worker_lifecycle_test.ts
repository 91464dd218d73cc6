import { assertEquals } from "@std/assert";
import {
  type DrainReport,
  WorkerLifecycle,
} from "../../../runtime/cluster/worker_lifecycle.ts";

/** A server whose drain reports `report` and records its grace. */
function fakeServer(report: DrainReport, graces: number[]) {
  return {
    drain({ timeoutMs }: { timeoutMs: number }): Promise<DrainReport> {
      graces.push(timeoutMs);
      return Promise.resolve(report);
    },
  };
}

Deno.test("WorkerLifecycle is ready while a server serves, and not once it left", () => {
  const life = new WorkerLifecycle();
  const leave = life.join(fakeServer({ drained: 0, cut: 0 }, []));
  assertEquals(life.readiness.ready, true);
  leave();
  assertEquals(life.readiness.ready, false);
});

Deno.test("WorkerLifecycle.drain() drains every server with the grace and sums what they did", async () => {
  const life = new WorkerLifecycle();
  const graces: number[] = [];
  life.join(fakeServer({ drained: 2, cut: 0 }, graces));
  life.join(fakeServer({ drained: 1, cut: 1 }, graces));
  assertEquals(await life.drain(250), { drained: 3, cut: 1 });
  assertEquals(graces, [250, 250]);
  assertEquals(life.readiness.ready, false);
});

Deno.test("WorkerLifecycle drains a server that joins after the drain began, and stays not ready", async () => {
  const life = new WorkerLifecycle();
  const graces: number[] = [];
  const drained = life.drain(100);
  life.join(fakeServer({ drained: 0, cut: 0 }, graces));
  assertEquals(life.readiness.ready, false);
  assertEquals(await drained, { drained: 0, cut: 0 });
  assertEquals(graces, [100]);
});
