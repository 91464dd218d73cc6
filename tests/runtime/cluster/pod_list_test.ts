// parsePodList(): the API's PodList passes; anything else is named.

import { assertEquals, assertThrows } from "@std/assert";
import { parsePodList } from "../../../runtime/cluster/pod_list.ts";
import { forbiddenStatus, pod, podList } from "./_kube_pods.ts";

Deno.test("parsePodList() accepts the API's PodList, empty or not", () => {
  const list = parsePodList(
    podList([pod("rill-worker-0", "ready", { ip: "10.244.0.9" })]),
  );
  assertEquals(list.items[0].status?.podIP, "10.244.0.9");
  assertEquals(parsePodList(podList([])).items, []);
});

Deno.test("parsePodList() rejects a Status, a list without items and unnamed pods", () => {
  const cases: [unknown, string][] = [
    [
      forbiddenStatus("rill:rill-master", "rill"),
      "expected a PodList, got a Status",
    ],
    [null, "expected a PodList, got something else"],
    [[], "expected a PodList, got something else"],
    [{ kind: "PodList", apiVersion: "v1" }, "the PodList has no items array"],
    [
      { kind: "PodList", items: [{ metadata: {} }] },
      "PodList item 0 has no metadata.name",
    ],
    [
      { kind: "PodList", items: [pod("a", "pending"), 7] },
      "PodList item 1 has no metadata.name",
    ],
  ];
  for (const [body, message] of cases) {
    assertThrows(() => parsePodList(body), TypeError, message);
  }
});
