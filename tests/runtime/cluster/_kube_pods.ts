/**
 * Pods, PodLists and Status objects in the shape the Kubernetes API server
 * (v1.30+) returns them, for a StatefulSet `rill-worker` whose container
 * `worker` serves on the port named `rill` (7070), and a master pod that
 * carries the same `app: rill` label.
 *
 * @module
 */

const CREATED = "2026-01-27T10:00:00Z";
const STARTED = "2026-01-27T10:00:05Z";

/** How a test pod should look. */
export type PodState =
  | "ready"
  | "pending"
  | "not-ready"
  | "no-ip"
  | "terminating";

/** Options for {@linkcode pod}. */
export interface PodOptions {
  /** The pod's IP; none for `pending` and `no-ip` pods. */
  ip?: string;
  /** Its container ports (default: `rill` = 7070). */
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  /** Whether it runs on the host network. */
  hostNetwork?: boolean;
}

/**
 * A pod named `name` in namespace `rill`, in `state`.
 *
 * @param name The pod's name.
 * @param state Its state.
 * @param options Its IP and ports.
 * @returns The pod as the API returns it.
 */
export function pod(
  name: string,
  state: PodState,
  options: PodOptions = {},
): Record<string, unknown> {
  const running = state !== "pending";
  const ready = state === "ready" || state === "terminating";
  const hasIp = state !== "pending" && state !== "no-ip";
  const condition = (type: string, status: boolean, reason?: string) => ({
    type,
    status: status ? "True" : "False",
    lastProbeTime: null,
    lastTransitionTime: STARTED,
    ...(reason === undefined ? {} : { reason }),
    ...(reason === undefined ? {} : {
      message: "containers with unready status: [worker]",
    }),
  });
  const notReadyReason = ready ? undefined : "ContainersNotReady";
  return {
    metadata: {
      name,
      generateName: name.replace(/[^-]+$/, ""),
      namespace: "rill",
      uid: `0d6c1f4e-${
        name.length.toString(16).padStart(4, "0")
      }-4b1e-9a63-2f7d8c5e1a90`,
      resourceVersion: "48213",
      creationTimestamp: CREATED,
      labels: { app: "rill", "statefulset.kubernetes.io/pod-name": name },
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        name: "rill-worker",
        uid: "7f3e2a10-5c4b-4d7e-8a21-93b6c0d4e5f6",
        controller: true,
        blockOwnerDeletion: true,
      }],
      ...(state === "terminating"
        ? {
          deletionTimestamp: "2026-01-27T10:05:00Z",
          deletionGracePeriodSeconds: 30,
        }
        : {}),
    },
    spec: {
      containers: [{
        name: "worker",
        image: "denoland/deno:2.9.6",
        ports: options.ports ??
          [{ name: "rill", containerPort: 7070, protocol: "TCP" }],
        resources: {},
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
        imagePullPolicy: "IfNotPresent",
      }],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      serviceAccount: "default",
      nodeName: "kind-worker",
      hostname: name,
      subdomain: "rill-worker",
      schedulerName: "default-scheduler",
      ...(options.hostNetwork ? { hostNetwork: true } : {}),
    },
    status: {
      phase: running ? "Running" : "Pending",
      conditions: [
        condition("PodReadyToStartContainers", running),
        condition("Initialized", true),
        condition("Ready", ready, notReadyReason),
        condition("ContainersReady", ready, notReadyReason),
        condition("PodScheduled", true),
      ],
      hostIP: "172.18.0.3",
      hostIPs: [{ ip: "172.18.0.3" }],
      ...(hasIp ? { podIP: options.ip, podIPs: [{ ip: options.ip }] } : {}),
      startTime: CREATED,
      containerStatuses: [{
        name: "worker",
        state: running
          ? { running: { startedAt: STARTED } }
          : { waiting: { reason: "ContainerCreating" } },
        lastState: {},
        ready,
        restartCount: 0,
        image: "docker.io/denoland/deno:2.9.6",
        imageID: "",
        started: running,
      }],
      qosClass: "BestEffort",
    },
  };
}

/**
 * A PodList of `items`.
 *
 * @param items The pods.
 * @returns The list as the API returns it.
 */
export function podList(
  items: Record<string, unknown>[],
): Record<string, unknown> {
  return {
    kind: "PodList",
    apiVersion: "v1",
    metadata: { resourceVersion: "48250" },
    items,
  };
}

/**
 * The Status the API returns when `account` (`ns:name`) may not list pods
 * in `namespace`.
 *
 * @param account `namespace:name` of the service account.
 * @param namespace The namespace listed.
 * @returns The 403 Status object.
 */
export function forbiddenStatus(
  account: string,
  namespace: string,
): Record<string, unknown> {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `pods is forbidden: User "system:serviceaccount:${account}" ` +
      `cannot list resource "pods" in API group "" in the namespace "${namespace}"`,
    reason: "Forbidden",
    details: { kind: "pods" },
    code: 403,
  };
}

/**
 * An unsigned JWT whose `sub` is the service account `namespace:name`, in
 * the shape of a projected service-account token.
 *
 * @param account `namespace:name`.
 * @param serial Makes tokens of the same account differ.
 * @returns The token.
 */
export function serviceAccountJwt(account: string, serial = 0): string {
  const encode = (value: unknown): string =>
    btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-")
      .replace(/\//g, "_");
  const [namespace, name] = account.split(":");
  return [
    encode({ alg: "RS256", kid: "test" }),
    encode({
      aud: ["https://kubernetes.default.svc.cluster.local"],
      iat: 1769508000 + serial,
      iss: "https://kubernetes.default.svc.cluster.local",
      sub: `system:serviceaccount:${namespace}:${name}`,
      "kubernetes.io": { namespace, serviceaccount: { name } },
    }),
    "c2lnbmF0dXJl",
  ].join(".");
}
