/**
 * Which pods of a PodList are workers ready to take requests, at which
 * address, and why the others are not.
 *
 * A pod is ready when it is not terminating (`metadata.deletionTimestamp`
 * unset), its `status.phase` is `Running`, it has a `status.podIP`, and its
 * `Ready` condition is `True` (its readiness probes pass).
 *
 * **The pod itself** is left out, matched two ways, either one enough:
 * - by name: `selfName` (the `POD_NAME` the downward API sets, else
 *   `HOSTNAME`, which Kubernetes sets to the pod's name unless the spec sets
 *   `hostname`);
 * - by IP: `selfIp` (`POD_IP` from the downward API), except for pods on
 *   the host network, which share their node's IP with other pods.
 *
 * **The host** is the pod's IP, or with `dialBy: "dns"` its DNS name
 * `hostname.subdomain.namespace.svc`, which a StatefulSet's pods behind a
 * headless Service have: a static TLS certificate can name them all
 * (`*.rill-workers.rill.svc`), while pod IPs change with every restart.
 *
 * **The port** is `port` when given; otherwise each pod's TCP container
 * port named `portName`, so workers may differ and the manifest stays the
 * one place that says which port a worker serves on.
 *
 * @module
 */

import { compareAddrs, formatHostPort, isDialablePort } from "./host_port.ts";
import { KubeDnsNameError, KubePortError } from "./kube_errors.ts";
import type { KubePod, KubePodList } from "./pod_list.ts";

/** A pod that matched the selector but is not a ready worker. */
export interface PodProblem {
  /** The pod's name. */
  name: string;
  /** Why: `terminating`, `Pending: ContainerCreating`, `no IP`, `not Ready: ...`. */
  reason: string;
}

/** Options for {@linkcode selectWorkerPods}. */
export interface SelectWorkerPodsOptions {
  /**
   * The pod's own name; a pod of this name is left out.
   *
   * @default {undefined} (no exclusion by name)
   */
  selfName?: string;
  /**
   * The pod's own IP; a pod with this IP, not on the host network, is left
   * out.
   *
   * @default {undefined} (no exclusion by IP)
   */
  selfIp?: string;
  /**
   * The workers' port, 1–65535, for every pod.
   *
   * @default {undefined} (each pod's port named `portName`)
   */
  port?: number;
  /**
   * The name of the workers' container port, used when `port` is not given.
   *
   * @default {"rill"}
   */
  portName?: string;
  /**
   * Dial each pod by its IP, or by its DNS name (`hostname.subdomain.
   * namespace.svc`).
   *
   * @default {"ip"}
   */
  dialBy?: "ip" | "dns";
  /**
   * The namespace searched, for a pod's DNS name when its metadata lacks
   * one.
   *
   * @default {undefined}
   */
  namespace?: string;
}

/** The outcome of {@linkcode selectWorkerPods}. */
export interface WorkerPodSelection {
  /** The ready workers as `ip:port`, sorted ({@linkcode compareAddrs}). */
  ready: string[];
  /** The other matching pods, sorted by name, and why they are not ready. */
  notReady: PodProblem[];
}

/**
 * Why a pod is not a ready worker, or `undefined` if it is one.
 *
 * @param pod A pod from a PodList.
 * @returns The reason, or `undefined` for a ready pod.
 *
 * @example Usage
 * ```ts
 * import { podProblem } from "./pod_readiness.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const ready = { type: "Ready", status: "True" };
 * assertEquals(
 *   podProblem({
 *     metadata: { name: "w-0" },
 *     status: { phase: "Running", podIP: "10.0.0.7", conditions: [ready] },
 *   }),
 *   undefined,
 * );
 * assertEquals(
 *   podProblem({ metadata: { name: "w-1" }, status: { phase: "Pending" } }),
 *   "Pending",
 * );
 * ```
 */
export function podProblem(pod: KubePod): string | undefined {
  const status = pod.status ?? {};
  if (pod.metadata.deletionTimestamp) return "terminating";
  if (status.phase !== "Running") {
    const phase = status.phase ?? "no phase";
    const why = status.reason ??
      status.containerStatuses?.find((c) => c.state?.waiting?.reason)?.state
        ?.waiting?.reason;
    return why === undefined ? phase : `${phase}: ${why}`;
  }
  if (!status.podIP) return "no IP";
  const ready = status.conditions?.find((c) => c.type === "Ready");
  if (ready === undefined) return "not Ready: no Ready condition";
  if (ready.status !== "True") {
    return ready.reason === undefined
      ? "not Ready"
      : `not Ready: ${ready.reason}`;
  }
  return undefined;
}

/**
 * Whether `pod` is the calling pod (see the module's notes).
 *
 * @param pod A pod from a PodList.
 * @param options The calling pod's name and IP.
 * @returns True if it is.
 *
 * @example Usage
 * ```ts
 * import { isSelfPod } from "./pod_readiness.ts";
 * import { assert } from "@std/assert";
 *
 * const pod = { metadata: { name: "master" }, status: { podIP: "10.0.0.9" } };
 * assert(isSelfPod(pod, { selfName: "master" }));
 * assert(isSelfPod(pod, { selfIp: "10.0.0.9" }));
 * assert(!isSelfPod(pod, { selfName: "rill-worker-0", selfIp: "10.0.0.7" }));
 * ```
 */
export function isSelfPod(
  pod: KubePod,
  options: Pick<SelectWorkerPodsOptions, "selfName" | "selfIp">,
): boolean {
  const { selfName, selfIp } = options;
  if (selfName && pod.metadata.name === selfName) return true;
  return Boolean(
    selfIp && pod.status?.podIP === selfIp && !pod.spec?.hostNetwork,
  );
}

/**
 * Splits a PodList into ready workers (`ip:port`) and pods that are not
 * ready, leaving out the calling pod.
 *
 * @param list The pods matching the label selector.
 * @param options The calling pod, and the port or port name.
 * @returns The ready addresses, sorted, and the other pods with reasons.
 * @throws {KubePortError} If a ready pod lacks the named port.
 * @throws {KubeDnsNameError} If asked for DNS names and a ready pod has
 * none.
 *
 * @example Usage
 * ```ts
 * import { selectWorkerPods } from "./pod_readiness.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const running = (name: string, podIP: string) => ({
 *   metadata: { name },
 *   status: {
 *     phase: "Running",
 *     podIP,
 *     conditions: [{ type: "Ready", status: "True" }],
 *   },
 * });
 * const list = {
 *   apiVersion: "v1",
 *   kind: "PodList",
 *   items: [
 *     running("w-1", "10.0.0.10"),
 *     running("w-0", "10.0.0.9"),
 *     running("master", "10.0.0.2"),
 *     { metadata: { name: "w-2" }, status: { phase: "Pending" } },
 *   ],
 * };
 * assertEquals(selectWorkerPods(list, { selfName: "master", port: 7070 }), {
 *   ready: ["10.0.0.9:7070", "10.0.0.10:7070"],
 *   notReady: [{ name: "w-2", reason: "Pending" }],
 * });
 * ```
 */
export function selectWorkerPods(
  list: KubePodList,
  options: SelectWorkerPodsOptions = {},
): WorkerPodSelection {
  const ready: string[] = [];
  const notReady: PodProblem[] = [];
  for (const pod of list.items) {
    if (isSelfPod(pod, options)) continue;
    const reason = podProblem(pod);
    if (reason !== undefined) {
      notReady.push({ name: pod.metadata.name, reason });
      continue;
    }
    ready.push(
      formatHostPort(workerHost(pod, options), workerPort(pod, options)),
    );
  }
  ready.sort(compareAddrs);
  notReady.sort((a, b) => compareAddrs(a.name, b.name));
  return { ready, notReady };
}

function workerHost(pod: KubePod, options: SelectWorkerPodsOptions): string {
  // podProblem() returned undefined, so the pod has an IP.
  if (options.dialBy !== "dns") return pod.status?.podIP as string;
  const { hostname, subdomain } = pod.spec ?? {};
  const namespace = pod.metadata.namespace ?? options.namespace;
  if (!hostname || !subdomain || !namespace) {
    throw new KubeDnsNameError(pod.metadata.name);
  }
  return `${hostname}.${subdomain}.${namespace}.svc`;
}

function workerPort(pod: KubePod, options: SelectWorkerPodsOptions): number {
  if (options.port !== undefined) return options.port;
  const portName = options.portName ?? "rill";
  for (const container of pod.spec?.containers ?? []) {
    for (const port of container.ports ?? []) {
      const tcp = (port.protocol ?? "TCP") === "TCP";
      if (port.name === portName && tcp && isDialablePort(port.containerPort)) {
        return port.containerPort;
      }
    }
  }
  throw new KubePortError(pod.metadata.name, portName);
}
