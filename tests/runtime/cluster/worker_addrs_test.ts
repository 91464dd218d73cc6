// Worker addresses outside and inside a cluster: the explicit list, the
// RILL_WORKERS variable, Kubernetes discovery in a pod, and selfAddr().

import { assertEquals, assertRejects, assertThrows } from "@std/assert";
import { HostPortError } from "../../../runtime/cluster/host_port.ts";
import { KubeForbiddenError } from "../../../runtime/cluster/kube_errors.ts";
import {
  NoWorkersError,
  parseWorkerAddrs,
  resolveWorkerAddrs,
  selfAddr,
  SelfAddrError,
} from "../../../runtime/cluster/worker_addrs.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";
import { withFakeKubeApi } from "./_fake_kube_api.ts";
import { forbiddenStatus, pod, podList } from "./_kube_pods.ts";

Deno.test("parseWorkerAddrs() keeps the given order and normalizes each entry", () => {
  assertEquals(
    parseWorkerAddrs(
      " 10.0.0.9:7070,[FD00::1]:7070 ,Worker-2.Rill:80,10.0.0.10:7070",
    ),
    ["10.0.0.9:7070", "[fd00::1]:7070", "worker-2.rill:80", "10.0.0.10:7070"],
  );
  assertEquals(parseWorkerAddrs("127.0.0.1:1"), ["127.0.0.1:1"]);
});

Deno.test("parseWorkerAddrs() names the bad entry, its position and the source", () => {
  const cases: [string, string, string, string][] = [
    [
      "127.0.0.1:7001,127.0.0.1:0",
      "127.0.0.1:0",
      "RILL_WORKERS entry 2",
      "port 0 is out of range (1-65535)",
    ],
    [
      "127.0.0.1:7001,,127.0.0.1:7002",
      "",
      "RILL_WORKERS entry 2",
      "empty address",
    ],
    ["a:1,b:2,", "", "RILL_WORKERS entry 3", "empty address"],
    [" , ", " , ", "RILL_WORKERS", "lists no worker address"],
    [
      "a:1,[::1]:2,A:1",
      "A:1",
      "RILL_WORKERS entry 3",
      "a:1 is already entry 1",
    ],
  ];
  for (const [text, entry, source, reason] of cases) {
    const e = assertThrows(
      () => parseWorkerAddrs(text, { source: "RILL_WORKERS" }),
      HostPortError,
    );
    assertEquals([e.entry, e.source, e.reason], [entry, source, reason], text);
  }
  const e = assertThrows(() => parseWorkerAddrs("w:1,w:99999"), HostPortError);
  assertEquals(
    e.message,
    '--worker-addrs entry 2: "w:99999": port 99999 is out of range (1-65535)',
  );
});

Deno.test("resolveWorkerAddrs() prefers --worker-addrs, then RILL_WORKERS", async () => {
  const env = {
    RILL_WORKERS: "127.0.0.1:7002",
    KUBERNETES_SERVICE_HOST: "127.0.0.1",
  };
  assertEquals(
    await resolveWorkerAddrs({ workerAddrs: "127.0.0.1:7001", env }),
    ["127.0.0.1:7001"],
  );
  assertEquals(await resolveWorkerAddrs({ env, labelSelector: "app=rill" }), [
    "127.0.0.1:7002",
  ]);
  await assertRejects(
    () => resolveWorkerAddrs({ workerAddrs: "", env }),
    HostPortError,
  );
});

Deno.test("resolveWorkerAddrs() outside a pod without a list says how to give workers", async () => {
  for (const env of [{}, { RILL_WORKERS: "  " }]) {
    const e = await assertRejects(
      () => resolveWorkerAddrs({ env }),
      NoWorkersError,
    );
    assertEquals(e instanceof ProgramError, true);
    assertEquals(
      e.message.includes("--worker-addrs") &&
        e.message.includes("RILL_WORKERS"),
      true,
    );
  }
});

Deno.test("resolveWorkerAddrs() in a pod without a label selector says so", async () => {
  await assertRejects(
    () => resolveWorkerAddrs({ env: { KUBERNETES_SERVICE_HOST: "10.96.0.1" } }),
    NoWorkersError,
    "no label selector",
  );
});

Deno.test("resolveWorkerAddrs() in a pod discovers the workers through the API", async () => {
  const list = podList([
    pod("rill-master-0", "ready", { ip: "10.244.0.2" }),
    pod("rill-worker-1", "ready", { ip: "10.244.0.10" }),
    pod("rill-worker-0", "ready", { ip: "10.244.0.9" }),
  ]);
  await withFakeKubeApi(() => ({ body: list }), async (api) => {
    const addrs = await resolveWorkerAddrs({
      ...api.options,
      labelSelector: "app=rill",
      expected: 2,
    });
    assertEquals(addrs, ["10.244.0.9:7070", "10.244.0.10:7070"]);
    assertEquals(api.requests.length, 1);
  });
});

Deno.test("resolveWorkerAddrs() passes discovery's errors through", async () => {
  const status = forbiddenStatus("rill:rill-master", "rill");
  await withFakeKubeApi(() => ({ status: 403, body: status }), async (api) => {
    await assertRejects(
      () => resolveWorkerAddrs({ ...api.options, labelSelector: "app=rill" }),
      KubeForbiddenError,
    );
  });
});

Deno.test("selfAddr() uses the given address, else POD_IP and the port", () => {
  assertEquals(
    selfAddr({ addr: "127.0.0.1:7070", env: { POD_IP: "10.244.0.2" } }),
    "127.0.0.1:7070",
  );
  assertEquals(
    selfAddr({ addr: "[::]:7070", env: { POD_IP: "10.244.0.2" } }),
    "10.244.0.2:7070",
  );
  assertEquals(
    selfAddr({ addr: "0.0.0.0:7070", env: { POD_IP: "fd00::2" } }),
    "[fd00::2]:7070",
  );
  assertEquals(
    selfAddr({ port: 7070, env: { POD_IP: "10.244.0.2" } }),
    "10.244.0.2:7070",
  );
});

Deno.test("selfAddr() says what is missing or wrong", () => {
  assertThrows(() => selfAddr({ env: {} }), SelfAddrError, "--listen");
  assertThrows(
    () => selfAddr({ env: { POD_IP: "10.244.0.2" } }),
    SelfAddrError,
    "no port",
  );
  assertThrows(
    () => selfAddr({ addr: "0.0.0.0:7070", env: {} }),
    SelfAddrError,
    "POD_IP",
  );
  assertThrows(
    () => selfAddr({ port: 0, env: { POD_IP: "10.244.0.2" } }),
    SelfAddrError,
    "out of range",
  );
  const e = assertThrows(
    () => selfAddr({ port: 7070, env: { POD_IP: "10.244.0.256" } }),
    HostPortError,
  );
  assertEquals(e.source, "POD_IP");
  assertThrows(() => selfAddr({ addr: "127.0.0.1:0", env: {} }), HostPortError);
});
