/**
 * Finding workers from inside a Kubernetes pod: list the pods that match a
 * label selector through the API server, keep the ready ones (see
 * `pod_readiness.ts` for what ready means, how the pod itself is left out
 * and where the port comes from), and wait, up to a deadline, until enough
 * are ready, saying what it waits for (`onProgress`) while it waits.
 *
 * This is one `GET /api/v1/namespaces/{ns}/pods?labelSelector=...` with
 * `fetch`, not `@kubernetes/client-node` (83 MB, slow to import). The
 * service-account token is read again for each request, because the
 * kubelet rotates it; the server's certificate is checked against the
 * cluster CA (`ca.crt`) through `Deno.createHttpClient`. The pod's service
 * account needs an RBAC Role granting `list` on `pods` in the namespace,
 * bound to it by a RoleBinding.
 *
 * @module
 */

import { processEnv } from "../core/process_env.ts";

import { DeadlineReached, listPods, type PodsRequest } from "./_list_pods.ts";
import { formatHostPort, isDialablePort } from "./host_port.ts";
import {
  KubeApiError,
  KubeConfigError,
  KubeConnectionError,
  KubeWaitTimeoutError,
} from "./kube_errors.ts";
import {
  selectWorkerPods,
  type SelectWorkerPodsOptions,
  type WorkerPodSelection,
} from "./pod_readiness.ts";
import {
  readClusterCa,
  readServiceAccountNamespace,
  SERVICE_ACCOUNT_DIR,
} from "./service_account.ts";

/** Options for {@linkcode discoverKubeWorkers}. */
export interface KubeDiscoveryOptions {
  /**
   * The namespace to search.
   *
   * @default {the pod's own, from the service-account `namespace` file}
   */
  namespace?: string;
  /**
   * The workers' port, 1–65535.
   *
   * @default {undefined} (each pod's container port named `portName`)
   */
  port?: number;
  /**
   * The workers' container port name, used when `port` is not given.
   *
   * @default {"rill"}
   */
  portName?: string;
  /**
   * Dial each worker by its pod IP, or by its DNS name
   * (`hostname.subdomain.namespace.svc`, a StatefulSet's pods behind a
   * headless Service), which a TLS certificate can name in advance.
   *
   * @default {"ip"}
   */
  dialBy?: "ip" | "dns";
  /**
   * How many ready workers to wait for; once at least this many are ready,
   * all the ready ones are returned.
   *
   * @default {undefined} (at least one, and every matching pod ready)
   */
  expected?: number;
  /**
   * The deadline for the whole wait, requests included, in milliseconds.
   *
   * @default {DEFAULT_DISCOVERY_TIMEOUT_MS} (2 minutes)
   */
  timeoutMs?: number;
  /**
   * Told one line, such as `waiting for workers: 1 of 2 ready
   * (rill-worker-1: ContainersNotReady)`, after each poll that did not find
   * enough workers and saw something new: not at all when the first poll
   * finds them.
   *
   * @default {undefined} (waits silently)
   */
  onProgress?: (line: string) => void;
  /**
   * The time between two polls, in milliseconds.
   *
   * @default {1000}
   */
  pollIntervalMs?: number;
  /**
   * Whether to leave out the calling pod.
   *
   * @default {true}
   */
  excludeSelf?: boolean;
  /**
   * The calling pod's name.
   *
   * @default {env POD_NAME, else env HOSTNAME}
   */
  selfName?: string;
  /**
   * The calling pod's IP.
   *
   * @default {env POD_IP}
   */
  selfIp?: string;
  /**
   * The directory of the service-account files (`token`, `ca.crt`,
   * `namespace`).
   *
   * @default {"/var/run/secrets/kubernetes.io/serviceaccount"}
   */
  serviceAccountDir?: string;
  /**
   * The API server's base URL.
   *
   * @default {https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT}
   */
  apiServer?: string;
  /**
   * The environment variables to read.
   *
   * @default {processEnv()}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Cancels the wait; the promise then rejects with the signal's reason.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
}

/** How long discovery waits for enough ready workers by default: 2 min. */
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 120_000;

/**
 * The API server's URL from `KUBERNETES_SERVICE_HOST` and
 * `KUBERNETES_SERVICE_PORT` (443 if unset); an IPv6 host is bracketed.
 *
 * @param env Environment variables.
 * @returns `https://host:port`.
 * @throws {KubeConfigError} If `KUBERNETES_SERVICE_HOST` is not set or the
 * port is not one.
 *
 * @example Usage
 * ```ts
 * import { kubeApiServerUrl } from "./kube_discovery.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(
 *   kubeApiServerUrl({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" }),
 *   "https://[fd00::1]:443",
 * );
 * ```
 */
export function kubeApiServerUrl(
  env: Readonly<Record<string, string | undefined>>,
): string {
  const host = env.KUBERNETES_SERVICE_HOST;
  if (!host) {
    throw new KubeConfigError(
      "not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST is not set",
    );
  }
  const portText = env.KUBERNETES_SERVICE_PORT || "443";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || !isDialablePort(port)) {
    throw new KubeConfigError(
      `KUBERNETES_SERVICE_PORT "${portText}" is not a port`,
    );
  }
  return `https://${formatHostPort(host, port)}`;
}

/**
 * Lists the pods matching `labelSelector` and returns the ready workers as
 * sorted `ip:port` strings, polling every `pollIntervalMs` until enough are
 * ready or `timeoutMs` has passed.
 *
 * A network failure or a 5xx or 429 answer is retried at the next poll;
 * a 403, another 4xx, a TLS failure, a missing service-account file or a
 * worker pod without the named port fail at once.
 *
 * @param labelSelector A Kubernetes label selector, such as `app=rill-worker`.
 * @param options Where to look, what to wait for, and injectable paths.
 * @returns The ready workers' addresses, sorted.
 * @throws {KubeConfigError} Outside a pod, or if a service-account file is
 * missing.
 * @throws {KubeForbiddenError} If the service account may not list pods.
 * @throws {KubeConnectionError} If TLS fails or the server cannot be reached.
 * @throws {KubeApiError} On another error status, or a body not a PodList.
 * @throws {KubePortError} If a ready pod lacks the named port.
 * @throws {KubeDnsNameError} If asked for DNS names and a ready pod has
 * none.
 * @throws {KubeWaitTimeoutError} If too few were ready by the deadline.
 *
 * @example Outside a pod
 * ```ts
 * import { discoverKubeWorkers } from "./kube_discovery.ts";
 * import { KubeConfigError } from "./kube_errors.ts";
 * import { assertRejects } from "@std/assert";
 *
 * await assertRejects(
 *   () => discoverKubeWorkers("app=rill-worker", { env: {} }),
 *   KubeConfigError,
 * );
 * ```
 */
export async function discoverKubeWorkers(
  labelSelector: string,
  options: KubeDiscoveryOptions = {},
): Promise<string[]> {
  const settings = checkedSettings(labelSelector, options);
  const env = options.env ?? processEnv();
  const apiServer = (options.apiServer ?? kubeApiServerUrl(env)).replace(
    /\/+$/,
    "",
  );
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const namespace = options.namespace ?? await readServiceAccountNamespace(dir);
  const excludeSelf = options.excludeSelf ?? true;
  const selection: SelectWorkerPodsOptions = {
    port: options.port,
    portName: options.portName,
    dialBy: options.dialBy,
    namespace,
    selfName: excludeSelf
      ? options.selfName ?? (env.POD_NAME || env.HOSTNAME)
      : undefined,
    selfIp: excludeSelf ? options.selfIp ?? env.POD_IP : undefined,
  };
  const caFile = `${dir}/ca.crt`;
  const client = Deno.createHttpClient({ caCerts: [await readClusterCa(dir)] });
  try {
    const request: PodsRequest = {
      client,
      caFile,
      apiServer,
      serviceAccountDir: dir,
      namespace,
      labelSelector,
    };
    return await waitForWorkers(request, selection, settings, options);
  } finally {
    client.close();
  }
}

interface WaitSettings {
  expected: number | undefined;
  timeoutMs: number;
  pollIntervalMs: number;
}

// The progress line of a poll that found too few: how many of how many are
// ready, then why each other pod is not ("not Ready: X" said as X).
function progressLine(
  seen: WorkerPodSelection,
  expected: number | undefined,
  failure: Error | undefined,
): string {
  const wanted = expected ??
    Math.max(1, seen.ready.length + seen.notReady.length);
  const pods = seen.notReady.map((p) =>
    `${p.name}: ${p.reason.replace(/^not Ready: /, "")}`
  );
  if (failure !== undefined) {
    pods.push(`the last poll failed: ${failure.message}`);
  }
  const why = pods.length === 0 ? "" : ` (${pods.join(", ")})`;
  return `waiting for workers: ${seen.ready.length} of ${wanted} ready${why}`;
}

function checkedSettings(
  labelSelector: string,
  options: KubeDiscoveryOptions,
): WaitSettings {
  if (labelSelector.trim() === "") {
    // An empty selector matches every pod in the namespace, the master too.
    throw new TypeError(
      "a label selector is required, such as app=rill-worker",
    );
  }
  const { expected, port } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  if (expected !== undefined && !(Number.isInteger(expected) && expected > 0)) {
    throw new RangeError(
      `expected must be a positive integer, got ${expected}`,
    );
  }
  if (port !== undefined && !isDialablePort(port)) {
    throw new RangeError(`port must be an integer in 1-65535, got ${port}`);
  }
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new RangeError(`timeoutMs must be positive, got ${timeoutMs}`);
  }
  // A positive interval bounds the number of polls by timeoutMs / interval.
  if (!(Number.isFinite(pollIntervalMs) && pollIntervalMs > 0)) {
    throw new RangeError(
      `pollIntervalMs must be positive, got ${pollIntervalMs}`,
    );
  }
  return { expected, timeoutMs, pollIntervalMs };
}

async function waitForWorkers(
  request: PodsRequest,
  selection: SelectWorkerPodsOptions,
  settings: WaitSettings,
  options: Pick<KubeDiscoveryOptions, "signal" | "onProgress">,
): Promise<string[]> {
  const { signal, onProgress } = options;
  let told = "";
  const started = performance.now();
  const deadline = started + settings.timeoutMs;
  let seen: WorkerPodSelection = { ready: [], notReady: [] };
  let lastError: Error | undefined;
  // Each pass polls once; it sleeps only when the next poll still starts
  // before the deadline, so the loop runs at most timeoutMs / interval + 1
  // times.
  for (;;) {
    signal?.throwIfAborted();
    try {
      const list = await listPods(request, { deadline, signal });
      seen = selectWorkerPods(list, selection);
      lastError = undefined;
      if (isEnough(seen, settings.expected)) return seen.ready;
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      if (!isRetryable(e)) throw e;
      lastError = e as Error;
    }
    const line = progressLine(seen, settings.expected, lastError);
    if (line !== told) onProgress?.(line);
    told = line;
    const now = performance.now();
    if (
      lastError instanceof DeadlineReached ||
      now + settings.pollIntervalMs >= deadline
    ) {
      throw new KubeWaitTimeoutError({
        namespace: request.namespace,
        labelSelector: request.labelSelector,
        expected: settings.expected ??
          Math.max(1, seen.ready.length + seen.notReady.length),
        ready: seen.ready,
        notReady: seen.notReady,
        timeoutMs: settings.timeoutMs,
        waitedMs: Math.round(now - started),
        lastError,
      });
    }
    await sleep(settings.pollIntervalMs, signal);
  }
}

function isEnough(
  seen: WorkerPodSelection,
  expected: number | undefined,
): boolean {
  if (expected !== undefined) return seen.ready.length >= expected;
  return seen.ready.length > 0 && seen.notReady.length === 0;
}

function isRetryable(e: unknown): boolean {
  if (e instanceof DeadlineReached) return true;
  if (e instanceof KubeConnectionError) return !e.tls;
  if (e instanceof KubeApiError) return e.status >= 500 || e.status === 429;
  return false;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
    };
    const cancel = (): void => {
      done();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal?.addEventListener("abort", cancel, { once: true });
  });
}
