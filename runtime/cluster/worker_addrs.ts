/**
 * Where the workers are, and where this process is: one entry point,
 * {@linkcode resolveWorkerAddrs}, that takes the first of
 *
 * 1. an explicit list (`--worker-addrs a,b,c`, the `workerAddrs` option),
 * 2. the `RILL_WORKERS` environment variable (same syntax),
 * 3. Kubernetes discovery, when running in a pod (`KUBERNETES_SERVICE_HOST`
 *    set) and given a label selector,
 *
 * and an error that says how to give workers otherwise. An explicit list
 * keeps its order (worker `i` is entry `i`); discovery returns its
 * addresses sorted. {@linkcode selfAddr} is the address this process
 * serves on, for the `self_addr` op.
 *
 * @module
 */

import { ProgramError } from "../core/errors.ts";
import { processEnv } from "../core/process_env.ts";
import {
  formatHostPort,
  HostPortError,
  isDialablePort,
  parseHostPort,
} from "./host_port.ts";
import type { KubeDiscoveryOptions } from "./kube_discovery.ts";

/**
 * No way to find workers was given, or the pod's discovery lacks a label
 * selector. The message lists the ways.
 *
 * @example Usage
 * ```ts
 * import { NoWorkersError, resolveWorkerAddrs } from "./worker_addrs.ts";
 * import { assertRejects } from "@std/assert";
 *
 * await assertRejects(() => resolveWorkerAddrs({ env: {} }), NoWorkersError);
 * ```
 */
export class NoWorkersError extends ProgramError {
  /**
   * Makes the error.
   *
   * @param detail Which way is missing.
   */
  constructor(detail: string) {
    super(detail);
    this.name = "NoWorkersError";
  }
}

/**
 * The address this process serves on cannot be told: no address given and
 * no `POD_IP` (or no port to go with it).
 *
 * @example Usage
 * ```ts
 * import { SelfAddrError, selfAddr } from "./worker_addrs.ts";
 * import { assertThrows } from "@std/assert";
 *
 * assertThrows(() => selfAddr({ env: {} }), SelfAddrError);
 * ```
 */
export class SelfAddrError extends ProgramError {
  /**
   * Makes the error.
   *
   * @param detail What is missing.
   */
  constructor(detail: string) {
    super(`self address: ${detail}`);
    this.name = "SelfAddrError";
  }
}

/** Options for {@linkcode parseWorkerAddrs}. */
export interface ParseWorkerAddrsOptions {
  /**
   * Where the list came from, for error messages.
   *
   * @default {"--worker-addrs"}
   */
  source?: string;
}

/**
 * Parses a comma-separated list of worker addresses.
 *
 * @param text `host:port` entries separated by commas; white space around
 * an entry is ignored.
 * @param options Where the list came from.
 * @returns The addresses in the given order, normalized (host in lower
 * case, IPv6 in brackets and compressed).
 * @throws {HostPortError} Naming the entry, if the list is empty, an entry
 * is not a valid `host:port`, or an address is listed twice.
 *
 * @example Usage
 * ```ts
 * import { parseWorkerAddrs } from "./worker_addrs.ts";
 * import { HostPortError } from "./host_port.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * assertEquals(
 *   parseWorkerAddrs("10.0.0.7:7070, [FD00::7]:7070,worker-2.rill:7070"),
 *   ["10.0.0.7:7070", "[fd00::7]:7070", "worker-2.rill:7070"],
 * );
 * const e = assertThrows(() => parseWorkerAddrs("a:1,b:70000"), HostPortError);
 * assertEquals(e.entry, "b:70000");
 * ```
 */
export function parseWorkerAddrs(
  text: string,
  options: ParseWorkerAddrsOptions = {},
): string[] {
  const source = options.source ?? "--worker-addrs";
  const entries = text.split(",");
  if (entries.every((entry) => entry.trim() === "")) {
    throw new HostPortError(text, "lists no worker address", source);
  }
  const addrs: string[] = [];
  entries.forEach((entry, i) => {
    const at = `${source} entry ${i + 1}`;
    const { host, port } = parseHostPort(entry, { source: at });
    const addr = formatHostPort(host, port);
    const first = addrs.indexOf(addr);
    if (first >= 0) {
      // Worker i gets piece i: a repeated address is almost surely a typo.
      throw new HostPortError(
        entry.trim(),
        `${addr} is already entry ${first + 1}`,
        at,
      );
    }
    addrs.push(addr);
  });
  return addrs;
}

/** Options for {@linkcode selfAddr}. */
export interface SelfAddrOptions {
  /**
   * The address this process serves on (`--listen`). An unspecified host
   * (`0.0.0.0`, `[::]`) is replaced by `POD_IP`, which other pods can dial.
   *
   * @default {undefined} (`POD_IP` and `port`)
   */
  addr?: string;
  /**
   * The port served on, paired with `POD_IP` when `addr` is not given.
   *
   * @default {undefined}
   */
  port?: number;
  /**
   * The environment variables to read (`POD_IP`, which a pod gets from the
   * downward API: `fieldRef: status.podIP`).
   *
   * @default {processEnv()}
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The address this process serves on, as other processes dial it.
 *
 * @param options The served address, or the port to pair with `POD_IP`.
 * @returns `host:port`.
 * @throws {HostPortError} If `addr` or `POD_IP` is not a valid address.
 * @throws {SelfAddrError} If neither `addr` nor `POD_IP` and `port` are
 * given, or `addr` is unspecified and `POD_IP` is not set.
 *
 * @example Usage
 * ```ts
 * import { selfAddr } from "./worker_addrs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(selfAddr({ addr: "127.0.0.1:7070", env: {} }), "127.0.0.1:7070");
 * assertEquals(selfAddr({ port: 7070, env: { POD_IP: "10.0.0.7" } }), "10.0.0.7:7070");
 * assertEquals(selfAddr({ addr: "0.0.0.0:7070", env: { POD_IP: "fd00::7" } }), "[fd00::7]:7070");
 * ```
 */
export function selfAddr(options: SelfAddrOptions = {}): string {
  const env = options.env ?? processEnv();
  const podIp = env.POD_IP;
  if (options.addr !== undefined) {
    const { host, port } = parseHostPort(options.addr, {
      source: "self address",
    });
    if (host !== "0.0.0.0" && host !== "::") return formatHostPort(host, port);
    if (!podIp) {
      throw new SelfAddrError(
        `"${options.addr}" is every interface, which no one can dial: ` +
          "give a specific address, or set POD_IP",
      );
    }
    return withPodIp(podIp, port);
  }
  if (podIp && options.port !== undefined) {
    return withPodIp(podIp, options.port);
  }
  throw new SelfAddrError(
    podIp
      ? "POD_IP is set but no port was given"
      : "give the address served on (--listen HOST:PORT), or set POD_IP " +
        "(downward API: fieldRef status.podIP) and the port",
  );
}

function withPodIp(podIp: string, port: number): string {
  if (!isDialablePort(port)) {
    throw new SelfAddrError(`port ${port} is out of range (1-65535)`);
  }
  const host = podIp.includes(":") ? `[${podIp}]` : podIp;
  const parsed = parseHostPort(`${host}:${port}`, { source: "POD_IP" });
  return formatHostPort(parsed.host, parsed.port);
}

/** Options for {@linkcode resolveWorkerAddrs}. */
export interface ResolveWorkerAddrsOptions extends KubeDiscoveryOptions {
  /**
   * The `--worker-addrs` flag's value: `host:port` entries, comma-separated.
   *
   * @default {undefined} (then `RILL_WORKERS`, then Kubernetes)
   */
  workerAddrs?: string;
  /**
   * The label selector of the worker pods, for Kubernetes discovery.
   *
   * @default {undefined} (then discovery is not possible)
   */
  labelSelector?: string;
}

/**
 * The workers' addresses: from `workerAddrs`, else `RILL_WORKERS`, else
 * Kubernetes discovery inside a pod.
 *
 * @param options The explicit list, the label selector, and discovery's
 * options (see {@linkcode KubeDiscoveryOptions}).
 * @returns The addresses: an explicit list in its order, discovered ones
 * sorted.
 * @throws {HostPortError} If an explicit list has a bad entry.
 * @throws {NoWorkersError} If there is no list and no way to discover one.
 * @throws {KubeDiscoveryError} If Kubernetes discovery fails.
 *
 * @example Usage
 * ```ts
 * import { resolveWorkerAddrs } from "./worker_addrs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const env = { RILL_WORKERS: "127.0.0.1:7001,127.0.0.1:7002" };
 * assertEquals(await resolveWorkerAddrs({ env }), ["127.0.0.1:7001", "127.0.0.1:7002"]);
 * assertEquals(
 *   await resolveWorkerAddrs({ workerAddrs: "127.0.0.1:7003", env }),
 *   ["127.0.0.1:7003"],
 * );
 * ```
 */
export async function resolveWorkerAddrs(
  options: ResolveWorkerAddrsOptions = {},
): Promise<string[]> {
  const env = options.env ?? processEnv();
  if (options.workerAddrs !== undefined) {
    return parseWorkerAddrs(options.workerAddrs, { source: "--worker-addrs" });
  }
  const fromEnv = env.RILL_WORKERS;
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    return parseWorkerAddrs(fromEnv, { source: "RILL_WORKERS" });
  }
  if (!isInKubernetesPod(env)) {
    throw new NoWorkersError(
      "no workers: give --worker-addrs host:port,host:port or set " +
        "RILL_WORKERS, or run in a Kubernetes pod with a label selector",
    );
  }
  if (
    options.labelSelector === undefined || options.labelSelector.trim() === ""
  ) {
    throw new NoWorkersError(
      "no workers: in a Kubernetes pod, but no label selector for the " +
        "worker pods was given (or give --worker-addrs or RILL_WORKERS)",
    );
  }
  // Discovery's modules load only in a pod that needs them.
  const { discoverKubeWorkers } = await import("./kube_discovery.ts");
  return await discoverKubeWorkers(options.labelSelector, { ...options, env });
}

/**
 * Whether the environment is a Kubernetes pod's (the kubelet sets
 * `KUBERNETES_SERVICE_HOST` in every container).
 *
 * @param env Environment variables.
 * @returns True inside a pod.
 *
 * @example Usage
 * ```ts
 * import { isInKubernetesPod } from "./worker_addrs.ts";
 * import { assert } from "@std/assert";
 *
 * assert(isInKubernetesPod({ KUBERNETES_SERVICE_HOST: "10.96.0.1" }));
 * assert(!isInKubernetesPod({}));
 * ```
 */
export function isInKubernetesPod(
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST);
}
