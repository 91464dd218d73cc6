// kube_get_workers_addrs and self_addr read the run's cluster settings:
// --worker-addrs, RILL_WORKERS, --listen.

import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import {
  Executor,
  kubeGetWorkersAddrs,
  Program,
  selfAddr,
} from "../../../mod.ts";
import type { ClusterSettings } from "../../../runtime/core/thread_context.ts";
import { Panic } from "../../../scheduler/panic.ts";

async function addrsOf(cluster: ClusterSettings): Promise<unknown[]> {
  const p = new Program();
  const [workers, self] = p.guard(() => [kubeGetWorkersAddrs(), selfAddr()]);
  const { fetched } = await new Executor({ cluster, print: () => {} }).run(
    p,
    { fetch: [workers.name, self.name] },
  );
  return [fetched[workers.name], fetched[self.name]];
}

Deno.test("kube_get_workers_addrs takes --worker-addrs first, in its order", async () => {
  assertEquals(
    await addrsOf({
      workerAddrs: "10.0.0.9:7000,[::1]:7001,worker-2:80",
      selfAddr: "127.0.0.1:7100",
      env: { RILL_WORKERS: "10.9.9.9:1" },
    }),
    [["10.0.0.9:7000", "[::1]:7001", "worker-2:80"], ["127.0.0.1:7100"]],
  );
});

Deno.test("kube_get_workers_addrs falls back to RILL_WORKERS, self_addr to POD_IP", async () => {
  assertEquals(
    await addrsOf({
      selfAddr: "0.0.0.0:7100",
      env: { RILL_WORKERS: "10.0.0.2:7000,10.0.0.3:7000", POD_IP: "10.0.0.1" },
    }),
    [["10.0.0.2:7000", "10.0.0.3:7000"], ["10.0.0.1:7100"]],
  );
});

Deno.test("kube_get_workers_addrs with no workers anywhere panics saying how to give them", async () => {
  const e = await assertRejects(
    () => addrsOf({ selfAddr: "127.0.0.1:1", env: {} }),
    Panic,
  );
  assertEquals(e.where, "block 0 op 0 kube_get_workers_addrs");
  assertStringIncludes(e.message, "--worker-addrs");
});
