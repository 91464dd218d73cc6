/**
 * The ways finding workers through the Kubernetes API fails, one class per
 * condition, each with structured fields and a one-line message that says
 * what to fix. All extend {@linkcode KubeDiscoveryError}, so a caller can
 * catch them together.
 *
 * @module
 */

import { printable } from "../core/errors.ts";
import type { PodProblem } from "./pod_readiness.ts";

/**
 * Any failure to find workers through the Kubernetes API.
 *
 * @example Usage
 * ```ts
 * import { KubeDiscoveryError, KubeForbiddenError } from "./kube_errors.ts";
 * import { assert } from "@std/assert";
 *
 * assert(new KubeForbiddenError("rill/master", "rill") instanceof KubeDiscoveryError);
 * ```
 */
export class KubeDiscoveryError extends Error {
  /**
   * Makes the error; the message is prefixed `kubernetes: ` and kept on one
   * line.
   *
   * @param detail What went wrong.
   * @param options The underlying error, if any.
   */
  constructor(detail: string, options?: ErrorOptions) {
    super(printable(`kubernetes: ${detail}`), options);
    this.name = "KubeDiscoveryError";
  }
}

/**
 * The process is not set up to reach the API: not in a pod (no
 * `KUBERNETES_SERVICE_HOST`), or a service-account file missing or empty.
 *
 * @example Usage
 * ```ts
 * import { KubeConfigError } from "./kube_errors.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new KubeConfigError("the token file is empty", "/sa/token");
 * assertEquals(e.file, "/sa/token");
 * ```
 */
export class KubeConfigError extends KubeDiscoveryError {
  /** The file involved, if a file is. */
  readonly file: string | undefined;

  /**
   * Makes the error.
   *
   * @param detail What is missing.
   * @param file The file involved, if a file is.
   * @param options The underlying error, if any.
   */
  constructor(detail: string, file?: string, options?: ErrorOptions) {
    super(detail, options);
    this.name = "KubeConfigError";
    this.file = file;
  }
}

/**
 * The API refused to list pods (HTTP 403): the service account has no RBAC
 * Role granting `list` on `pods` in the namespace, or no RoleBinding to one.
 *
 * @example Usage
 * ```ts
 * import { KubeForbiddenError } from "./kube_errors.ts";
 * import { assertEquals, assertStringIncludes } from "@std/assert";
 *
 * const e = new KubeForbiddenError("rill/rill-master", "rill");
 * assertEquals([e.serviceAccount, e.namespace], ["rill/rill-master", "rill"]);
 * assertStringIncludes(e.message, "RBAC Role");
 * ```
 */
export class KubeForbiddenError extends KubeDiscoveryError {
  /** `namespace/name` of the service account, as far as it is known. */
  readonly serviceAccount: string;
  /** The namespace whose pods were listed. */
  readonly namespace: string;

  /**
   * Makes the error.
   *
   * @param serviceAccount `namespace/name` of the service account.
   * @param namespace The namespace whose pods were listed.
   */
  constructor(serviceAccount: string, namespace: string) {
    super(
      `service account "${serviceAccount}" may not list pods in namespace ` +
        `"${namespace}" (403 Forbidden): the RBAC Role granting "list" on ` +
        `"pods" there, or its RoleBinding to this service account, is missing`,
    );
    this.name = "KubeForbiddenError";
    this.serviceAccount = serviceAccount;
    this.namespace = namespace;
  }
}

/**
 * The API answered with an error status other than 403, or with a body
 * that is not a PodList.
 *
 * @example Usage
 * ```ts
 * import { KubeApiError } from "./kube_errors.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new KubeApiError(401, "https://10.96.0.1/api/v1/namespaces/rill/pods", "Unauthorized");
 * assertEquals(e.status, 401);
 * ```
 */
export class KubeApiError extends KubeDiscoveryError {
  /** The HTTP status. */
  readonly status: number;
  /** The URL requested. */
  readonly url: string;

  /**
   * Makes the error.
   *
   * @param status The HTTP status.
   * @param url The URL requested.
   * @param detail The API's message, or what is wrong with the body.
   */
  constructor(status: number, url: string, detail: string) {
    super(`GET ${url}: ${status}: ${detail}`);
    this.name = "KubeApiError";
    this.status = status;
    this.url = url;
  }
}

/**
 * The API server could not be reached: TLS verification failed (`tls`:
 * the server's certificate is not signed by the cluster CA that was
 * given), or the connection failed.
 *
 * @example Usage
 * ```ts
 * import { KubeConnectionError } from "./kube_errors.ts";
 * import { assert } from "@std/assert";
 *
 * const e = new KubeConnectionError("https://10.96.0.1:443", "/sa/ca.crt", true, "UnknownIssuer");
 * assert(e.tls);
 * ```
 */
export class KubeConnectionError extends KubeDiscoveryError {
  /** The API server's URL. */
  readonly url: string;
  /** The CA file the server's certificate was checked against. */
  readonly caFile: string;
  /** Whether TLS verification (not the network) failed. */
  readonly tls: boolean;

  /**
   * Makes the error.
   *
   * @param url The API server's URL.
   * @param caFile The CA file used.
   * @param tls Whether TLS verification failed.
   * @param detail The underlying error's text.
   * @param options The underlying error.
   */
  constructor(
    url: string,
    caFile: string,
    tls: boolean,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(
      tls
        ? `TLS to the API server ${url} failed: its certificate is not ` +
          `trusted by the cluster CA in ${caFile}: ${detail}`
        : `cannot reach the API server ${url}: ${detail}`,
      options,
    );
    this.name = "KubeConnectionError";
    this.url = url;
    this.caFile = caFile;
    this.tls = tls;
  }
}

/** What a wait saw last, for {@linkcode KubeWaitTimeoutError}. */
export interface KubeWaitState {
  /** The namespace searched. */
  namespace: string;
  /** The label selector used. */
  labelSelector: string;
  /** How many workers were wanted (at least). */
  expected: number;
  /** The workers that were ready, as `ip:port`. */
  ready: string[];
  /** The matching pods that were not ready, and why. */
  notReady: PodProblem[];
  /** The deadline, in milliseconds from the start of the wait. */
  timeoutMs: number;
  /**
   * How long the wait lasted, in milliseconds: up to one poll interval
   * short of `timeoutMs`, as a poll that could not start before the
   * deadline is not made.
   */
  waitedMs: number;
  /** The last poll's failure, if the last poll failed. */
  lastError?: Error;
}

/**
 * The deadline passed before enough workers were ready. The message says
 * how many of how many were ready and why each other pod was not.
 *
 * @example Usage
 * ```ts
 * import { KubeWaitTimeoutError } from "./kube_errors.ts";
 * import { assertEquals, assertStringIncludes } from "@std/assert";
 *
 * const e = new KubeWaitTimeoutError({
 *   namespace: "rill",
 *   labelSelector: "app=rill-worker",
 *   expected: 2,
 *   ready: ["10.0.0.7:7070"],
 *   notReady: [{ name: "rill-worker-1", reason: "Pending" }],
 *   timeoutMs: 60000,
 *   waitedMs: 59000,
 * });
 * assertEquals(e.state.notReady[0].name, "rill-worker-1");
 * assertStringIncludes(e.message, "1 of 2 workers ready");
 * ```
 */
export class KubeWaitTimeoutError extends KubeDiscoveryError {
  /** What the wait saw last. */
  readonly state: KubeWaitState;

  /**
   * Makes the error.
   *
   * @param state What the wait saw last.
   */
  constructor(state: KubeWaitState) {
    const pods = state.notReady.length === 0
      ? "no other pod matches"
      : "not ready: " +
        state.notReady.map((p) => `${p.name} (${p.reason})`).join(", ");
    const last = state.lastError === undefined
      ? ""
      : `; the last poll failed: ${state.lastError.message}`;
    super(
      `timed out after ${state.timeoutMs} ms with ${state.ready.length} of ` +
        `${state.expected} workers ready (namespace "${state.namespace}", ` +
        `selector "${state.labelSelector}"); ${pods}${last}`,
      { cause: state.lastError },
    );
    this.name = "KubeWaitTimeoutError";
    this.state = state;
  }
}

/**
 * A ready worker pod has no container port of the name discovery looks for
 * (and no port number was given): a deployment mistake that waiting would
 * not fix.
 *
 * @example Usage
 * ```ts
 * import { KubePortError } from "./kube_errors.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new KubePortError("rill-worker-0", "rill");
 * assertEquals([e.pod, e.portName], ["rill-worker-0", "rill"]);
 * ```
 */
export class KubePortError extends KubeDiscoveryError {
  /** The pod's name. */
  readonly pod: string;
  /** The port name looked for. */
  readonly portName: string;

  /**
   * Makes the error.
   *
   * @param pod The pod's name.
   * @param portName The port name looked for.
   */
  constructor(pod: string, portName: string) {
    super(
      `pod "${pod}" has no TCP container port named "${portName}" in ` +
        `1-65535: name the worker's port "${portName}" in its container ` +
        `spec, or give the port number`,
    );
    this.name = "KubePortError";
    this.pod = pod;
    this.portName = portName;
  }
}

/**
 * A ready worker pod has no DNS name to dial it by (no `spec.hostname` and
 * `spec.subdomain`), and discovery was asked for names (`--dial-by dns`):
 * a deployment mistake that waiting would not fix.
 *
 * @example Usage
 * ```ts
 * import { KubeDnsNameError } from "./kube_errors.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(new KubeDnsNameError("rill-worker-0").pod, "rill-worker-0");
 * ```
 */
export class KubeDnsNameError extends KubeDiscoveryError {
  /** The pod's name. */
  readonly pod: string;

  /**
   * Makes the error.
   *
   * @param pod The pod's name.
   */
  constructor(pod: string) {
    super(
      `pod "${pod}" has no DNS name (spec.hostname and spec.subdomain): ` +
        "run the workers as a StatefulSet whose serviceName is a headless " +
        "Service, or dial them by IP",
    );
    this.name = "KubeDnsNameError";
    this.pod = pod;
  }
}
