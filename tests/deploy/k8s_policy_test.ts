// The policies around the workers in deploy/k8s/policy.yaml, checked
// offline against the other manifests: the PodDisruptionBudget lets
// disruptions take one worker at a time, and the NetworkPolicy lets only
// the master's pods reach the workers' port (k8s_test.ts validates both
// against the Kubernetes schemas).
// deno-lint-ignore-file no-import-prefix

import { assert, assertEquals } from "@std/assert";
import type { IPodDisruptionBudget } from "npm:kubernetes-models@5.1.0/policy/v1";
import type { INetworkPolicy } from "npm:kubernetes-models@5.1.0/networking.k8s.io/v1";
import { job, only, present, statefulSet, within } from "./_manifests.ts";

Deno.test("a PodDisruptionBudget lets disruptions take one worker at a time, never all", () => {
  const budget: IPodDisruptionBudget = only("policy/v1 PodDisruptionBudget");
  const labels = statefulSet().spec!.template.metadata!.labels!;
  assert(
    within(present(budget.spec?.selector?.matchLabels, "PDB selector"), labels),
    "the PDB does not pick the worker pods",
  );
  const replicas = present(statefulSet().spec!.replicas, "replicas");
  const { maxUnavailable, minAvailable } = budget.spec!;
  if (maxUnavailable !== undefined) {
    assert(Number(maxUnavailable) >= 1 && Number(maxUnavailable) < replicas);
  } else {
    assert(Number(minAvailable) >= 1 && Number(minAvailable) < replicas);
  }
});

Deno.test("a NetworkPolicy lets only the master's pods reach the workers' port, and the workers dial nothing", () => {
  const policy: INetworkPolicy = only("networking.k8s.io/v1 NetworkPolicy");
  const spec = present(policy.spec, "NetworkPolicy spec");
  const workerLabels = statefulSet().spec!.template.metadata!.labels!;
  const masterLabels = job().spec!.template.metadata!.labels!;
  assert(within(spec.podSelector?.matchLabels ?? {}, workerLabels));
  assertEquals(spec.policyTypes, ["Ingress", "Egress"]);
  assertEquals(spec.egress ?? [], [], "egress rules");
  const rules = present(spec.ingress, "ingress rules");
  assert(rules.length > 0, "no ingress rule: nothing reaches the workers");
  for (const rule of rules) {
    const peers = present(rule.from, "a rule without from lets anyone in");
    for (const peer of peers) {
      assertEquals(peer.ipBlock, undefined, "an ipBlock peer");
      assertEquals(peer.namespaceSelector, undefined, "a namespace peer");
      const picks = present(peer.podSelector?.matchLabels, "peer selector");
      assert(within(picks, masterLabels), "a peer that is not the master");
      assert(!within(picks, workerLabels), "a peer that is a worker");
    }
    assertEquals(
      rule.ports?.map((p) => [p.port, p.protocol ?? "TCP"]),
      [["rill", "TCP"]],
    );
  }
});
