// Which listed pods are ready workers: readiness, self-exclusion by name and
// by IP, and the port from the option or the named container port.

import { assertEquals, assertThrows } from "@std/assert";
import {
  KubeDnsNameError,
  KubePortError,
} from "../../../runtime/cluster/kube_errors.ts";
import {
  type KubePod,
  parsePodList,
} from "../../../runtime/cluster/pod_list.ts";
import {
  isSelfPod,
  podProblem,
  selectWorkerPods,
} from "../../../runtime/cluster/pod_readiness.ts";
import { pod, podList } from "./_kube_pods.ts";

function typed(value: Record<string, unknown>): KubePod {
  return parsePodList(podList([value])).items[0];
}

Deno.test("podProblem() says why each kind of pod is not ready", () => {
  const cases: [KubePod, string | undefined][] = [
    [typed(pod("w", "ready", { ip: "10.244.0.9" })), undefined],
    [typed(pod("w", "pending")), "Pending: ContainerCreating"],
    [
      typed(pod("w", "not-ready", { ip: "10.244.0.9" })),
      "not Ready: ContainersNotReady",
    ],
    [typed(pod("w", "no-ip")), "no IP"],
    [typed(pod("w", "terminating", { ip: "10.244.0.9" })), "terminating"],
    [{ metadata: { name: "w" } }, "no phase"],
    [{
      metadata: { name: "w" },
      status: { phase: "Failed", reason: "Evicted" },
    }, "Failed: Evicted"],
    [{ metadata: { name: "w" }, status: { phase: "Succeeded" } }, "Succeeded"],
    [{
      metadata: { name: "w" },
      status: { phase: "Running", podIP: "10.244.0.9" },
    }, "not Ready: no Ready condition"],
    [{
      metadata: { name: "w" },
      status: {
        phase: "Running",
        podIP: "10.244.0.9",
        conditions: [{ type: "Ready", status: "Unknown" }],
      },
    }, "not Ready"],
  ];
  for (const [item, reason] of cases) {
    assertEquals(podProblem(item), reason, JSON.stringify(item.status));
  }
});

Deno.test("isSelfPod() matches by name, or by IP off the host network", () => {
  const self = typed(pod("rill-master-0", "ready", { ip: "10.244.0.2" }));
  assertEquals(isSelfPod(self, { selfName: "rill-master-0" }), true);
  assertEquals(isSelfPod(self, { selfIp: "10.244.0.2" }), true);
  assertEquals(
    isSelfPod(self, { selfName: "other", selfIp: "10.244.0.3" }),
    false,
  );
  assertEquals(isSelfPod(self, {}), false);
  // Host-network pods share their node's IP: the IP does not identify them.
  const onHost = typed(
    pod("rill-worker-0", "ready", { ip: "172.18.0.3", hostNetwork: true }),
  );
  assertEquals(isSelfPod(onHost, { selfIp: "172.18.0.3" }), false);
  assertEquals(isSelfPod(onHost, { selfName: "rill-worker-0" }), true);
});

Deno.test("selectWorkerPods() leaves out itself by IP when its name is not known", () => {
  const list = parsePodList(podList([
    pod("rill-master-x", "ready", { ip: "10.244.0.2" }),
    pod("rill-worker-0", "ready", { ip: "10.244.0.9" }),
  ]));
  assertEquals(selectWorkerPods(list, { selfIp: "10.244.0.2" }).ready, [
    "10.244.0.9:7070",
  ]);
  assertEquals(selectWorkerPods(list).ready, [
    "10.244.0.2:7070",
    "10.244.0.9:7070",
  ]);
});

Deno.test("selectWorkerPods() leaves the pod itself out of the not-ready list too", () => {
  const list = parsePodList(podList([pod("rill-master-0", "pending")]));
  assertEquals(selectWorkerPods(list, { selfName: "rill-master-0" }), {
    ready: [],
    notReady: [],
  });
});

Deno.test("selectWorkerPods() takes each pod's named TCP port", () => {
  const list = parsePodList(podList([
    pod("a", "ready", {
      ip: "10.244.0.9",
      ports: [
        { name: "metrics", containerPort: 9090 },
        { name: "rill", containerPort: 7071, protocol: "UDP" },
        { name: "rill", containerPort: 7070 },
      ],
    }),
    pod("b", "ready", {
      ip: "fd00::b",
      ports: [{ name: "rpc", containerPort: 8000, protocol: "TCP" }],
    }),
  ]));
  assertEquals(
    selectWorkerPods(list, { portName: "rpc", selfName: "a" }).ready,
    ["[fd00::b]:8000"],
  );
  assertEquals(selectWorkerPods(list, { selfName: "b" }).ready, [
    "10.244.0.9:7070",
  ]);
  const e = assertThrows(() => selectWorkerPods(list), KubePortError);
  assertEquals([e.pod, e.portName], ["b", "rill"]);
});

Deno.test("selectWorkerPods() uses the port option for every pod, named port or not", () => {
  const list = parsePodList(podList([
    pod("a", "ready", { ip: "10.244.0.9", ports: [] }),
    pod("b", "ready", { ip: "fd00::b" }),
  ]));
  assertEquals(selectWorkerPods(list, { port: 9000 }).ready, [
    "[fd00::b]:9000",
    "10.244.0.9:9000",
  ]);
});

Deno.test("selectWorkerPods() lists not-ready pods sorted by name", () => {
  const list = parsePodList(podList([
    pod("rill-worker-10", "pending"),
    pod("rill-worker-9", "no-ip"),
  ]));
  assertEquals(selectWorkerPods(list).notReady.map((p) => p.name), [
    "rill-worker-9",
    "rill-worker-10",
  ]);
});

Deno.test("selectWorkerPods() with dialBy dns names each pod hostname.subdomain.namespace.svc", () => {
  const list = parsePodList(podList([
    pod("rill-worker-1", "ready", { ip: "10.244.0.10" }),
    pod("rill-worker-0", "ready", { ip: "10.244.0.9" }),
  ]));
  assertEquals(selectWorkerPods(list, { dialBy: "dns" }).ready, [
    "rill-worker-0.rill-worker.rill.svc:7070",
    "rill-worker-1.rill-worker.rill.svc:7070",
  ]);
  // A pod outside a StatefulSet has no such name: said at once.
  const bare = pod("w", "ready", { ip: "10.244.0.11" });
  delete (bare.spec as Record<string, unknown>).subdomain;
  const e = assertThrows(
    () => selectWorkerPods(parsePodList(podList([bare])), { dialBy: "dns" }),
    KubeDnsNameError,
  );
  assertEquals(e.pod, "w");
});
