/**
 * The kubernetes-models classes k8s_test.ts validates manifests with,
 * loaded with Node's deprecation warnings off. One of their validators'
 * dependencies (ajv-formats-draft2019) requires Node's built-in `punycode`
 * as it loads, which prints `[DEP0040] DeprecationWarning` among the
 * suite's results; it is no fault of the manifests or of Rill, and nothing
 * else can be done about it here. The warnings are back on once they have
 * loaded.
 *
 * @module
 */
// deno-lint-ignore-file no-import-prefix

import process from "node:process";

// Node's switch, which @types/node leaves out.
const node = process as typeof process & { noDeprecation?: boolean };
const quiet = node.noDeprecation;
node.noDeprecation = true;
const [v1, apps, batch, policy, networking, rbac] = await Promise.all([
  import("npm:kubernetes-models@5.1.0/v1"),
  import("npm:kubernetes-models@5.1.0/apps/v1"),
  import("npm:kubernetes-models@5.1.0/batch/v1"),
  import("npm:kubernetes-models@5.1.0/policy/v1"),
  import("npm:kubernetes-models@5.1.0/networking.k8s.io/v1"),
  import("npm:kubernetes-models@5.1.0/rbac.authorization.k8s.io/v1"),
]).finally(() => node.noDeprecation = quiet);

/** kubernetes-models' v1 Namespace. */
export const Namespace: typeof v1.Namespace = v1.Namespace;
/** kubernetes-models' v1 Service. */
export const Service: typeof v1.Service = v1.Service;
/** kubernetes-models' v1 ServiceAccount. */
export const ServiceAccount: typeof v1.ServiceAccount = v1.ServiceAccount;
/** kubernetes-models' apps/v1 StatefulSet. */
export const StatefulSet: typeof apps.StatefulSet = apps.StatefulSet;
/** kubernetes-models' batch/v1 Job. */
export const Job: typeof batch.Job = batch.Job;
/** kubernetes-models' policy/v1 PodDisruptionBudget. */
export const PodDisruptionBudget: typeof policy.PodDisruptionBudget =
  policy.PodDisruptionBudget;
/** kubernetes-models' networking.k8s.io/v1 NetworkPolicy. */
export const NetworkPolicy: typeof networking.NetworkPolicy =
  networking.NetworkPolicy;
/** kubernetes-models' rbac.authorization.k8s.io/v1 Role. */
export const Role: typeof rbac.Role = rbac.Role;
/** kubernetes-models' rbac.authorization.k8s.io/v1 RoleBinding. */
export const RoleBinding: typeof rbac.RoleBinding = rbac.RoleBinding;
