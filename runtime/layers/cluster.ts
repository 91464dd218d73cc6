/**
 * Builders of the cluster ops: `kubeGetWorkersAddrs` and `selfAddr`.
 *
 * @module
 */
import type { Variable } from "../build/program.ts";
import { out1, type OutOptions } from "./append_layer.ts";

/** Options of {@linkcode kubeGetWorkersAddrs}. */
export interface KubeGetWorkersAddrsOptions extends OutOptions {
  /** The pods' namespace; default the pod's own. */
  namespace?: string;
  /** Which pods are workers, e.g. `app=rill-worker`. */
  labelSelector?: string;
  /** The workers' port; default each pod's container port named `rill`. */
  port?: number;
  /** Leave this pod out of the list. @default {true} */
  excludeSelf?: boolean;
}

/**
 * `kube_get_workers_addrs`: Out = the workers' `host:port` list (RAW): from
 * `--worker-addrs` or `RILL_WORKERS`, else the Ready pods `labelSelector`
 * picks in the Kubernetes namespace.
 *
 * @param options Where to look.
 * @returns The RAW variable.
 *
 * @example Usage
 * ```ts
 * import { kubeGetWorkersAddrs, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const addrs = p.guard(() => kubeGetWorkersAddrs({ labelSelector: "app=rill-worker" }));
 * assertEquals(addrs.kind, "raw");
 * ```
 */
export function kubeGetWorkersAddrs(
  options: KubeGetWorkersAddrsOptions = {},
): Variable {
  return out1("kube_get_workers_addrs", {}, {
    namespace: options.namespace,
    label_selector: options.labelSelector,
    port: options.port,
    exclude_self: options.excludeSelf,
  }, options);
}

/**
 * `self_addr`: Out = this process's `host:port` (RAW, one entry).
 *
 * @param options Where to write.
 * @returns The RAW variable.
 *
 * @example Usage
 * ```ts
 * import { Program, selfAddr } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => selfAddr()).kind, "raw");
 * ```
 */
export function selfAddr(options: OutOptions = {}): Variable {
  return out1("self_addr", {}, {}, options);
}
