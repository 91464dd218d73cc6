/**
 * The part of the Kubernetes `v1` PodList that discovery reads, and a check
 * that a response body has that shape. Field names are the API's own
 * (`metadata.deletionTimestamp`, `status.podIP`, ...); every field the API
 * may omit is optional here.
 *
 * @module
 */

/** A pod's condition, such as `{ type: "Ready", status: "True" }`. */
export interface KubePodCondition {
  /** `Ready`, `ContainersReady`, `PodScheduled`, `Initialized`, ... */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: string;
  /** A machine-readable reason, such as `ContainersNotReady`. */
  reason?: string;
  /** A human-readable message. */
  message?: string;
}

/** One port of a container, as in `spec.containers[].ports[]`. */
export interface KubeContainerPort {
  /** The port's name, unique in the pod. */
  name?: string;
  /** The port number the container listens on. */
  containerPort: number;
  /** `TCP` (the default), `UDP` or `SCTP`. */
  protocol?: string;
}

/** A container's spec, as far as discovery reads it. */
export interface KubeContainer {
  /** The container's name. */
  name: string;
  /** The ports it exposes. */
  ports?: KubeContainerPort[];
}

/** A container's status, as far as discovery reads it. */
export interface KubeContainerStatus {
  /** The container's name. */
  name: string;
  /** Whether it passes its readiness probe. */
  ready?: boolean;
  /** Its state; `waiting.reason` is e.g. `ContainerCreating`, `ImagePullBackOff`. */
  state?: { waiting?: { reason?: string } };
}

/** A pod, as far as discovery reads it. */
export interface KubePod {
  /** The pod's metadata. */
  metadata: {
    /** The pod's name. */
    name: string;
    /** Its namespace. */
    namespace?: string;
    /** Set once the pod is being deleted (RFC 3339 time). */
    deletionTimestamp?: string;
  };
  /** The pod's spec. */
  spec?: {
    /** Whether the pod uses the node's network (and IP). */
    hostNetwork?: boolean;
    /** Its host name: a StatefulSet's pod's own name. */
    hostname?: string;
    /** The headless Service that gives it a DNS name. */
    subdomain?: string;
    /** Its containers. */
    containers?: KubeContainer[];
  };
  /** The pod's status. */
  status?: {
    /** `Pending`, `Running`, `Succeeded`, `Failed` or `Unknown`. */
    phase?: string;
    /** The pod's IP, once it has one. */
    podIP?: string;
    /** A brief reason for the pod's state, such as `Evicted`. */
    reason?: string;
    /** Its conditions. */
    conditions?: KubePodCondition[];
    /** Its containers' statuses. */
    containerStatuses?: KubeContainerStatus[];
  };
}

/** A `v1` PodList. */
export interface KubePodList {
  /** Always `v1`. */
  apiVersion: string;
  /** Always `PodList`. */
  kind: string;
  /** The pods. */
  items: KubePod[];
}

/**
 * Checks that `body` is a PodList with named pods, and returns it typed.
 *
 * Only the fields discovery relies on are checked: `kind`, `items`, and
 * each item's `metadata.name`; the rest are read defensively.
 *
 * @param body A parsed JSON response.
 * @returns The same object, typed.
 * @throws {TypeError} Naming what is missing, if it is not a PodList.
 *
 * @example Usage
 * ```ts
 * import { parsePodList } from "./pod_list.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const list = parsePodList({
 *   apiVersion: "v1",
 *   kind: "PodList",
 *   metadata: { resourceVersion: "1" },
 *   items: [{ metadata: { name: "w-0" }, status: { phase: "Running" } }],
 * });
 * assertEquals(list.items[0].metadata.name, "w-0");
 * assertThrows(() => parsePodList({ kind: "Status" }), TypeError);
 * ```
 */
export function parsePodList(body: unknown): KubePodList {
  if (!isRecord(body) || body.kind !== "PodList") {
    const kind = isRecord(body) ? body.kind : undefined;
    throw new TypeError(
      `expected a PodList, got ${
        typeof kind === "string" ? `a ${kind}` : "something else"
      }`,
    );
  }
  if (!Array.isArray(body.items)) {
    throw new TypeError("the PodList has no items array");
  }
  body.items.forEach((item: unknown, i: number) => {
    const metadata = isRecord(item) ? item.metadata : undefined;
    if (!isRecord(metadata) || typeof metadata.name !== "string") {
      throw new TypeError(`PodList item ${i} has no metadata.name`);
    }
  });
  return body as unknown as KubePodList;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
