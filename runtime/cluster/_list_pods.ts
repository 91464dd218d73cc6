/**
 * One request for the pod list: the `GET`, with the token read afresh and
 * the answer turned into a PodList or the error class for its status.
 * Private to `runtime/cluster/`: `kube_discovery.ts` polls with it.
 *
 * @module
 */

import {
  KubeApiError,
  KubeConnectionError,
  KubeForbiddenError,
} from "./kube_errors.ts";
import { type KubePodList, parsePodList } from "./pod_list.ts";
import {
  readServiceAccountToken,
  serviceAccountOfToken,
} from "./service_account.ts";

/** What one pod-list request needs. */
export interface PodsRequest {
  /** A client that trusts the cluster CA. */
  client: Deno.HttpClient;
  /** The CA file the client trusts, for error messages. */
  caFile: string;
  /** The API server's base URL, without a trailing slash. */
  apiServer: string;
  /** Where the token is read from, again for each request. */
  serviceAccountDir: string;
  /** The namespace to list. */
  namespace: string;
  /** The label selector. */
  labelSelector: string;
}

/** Options for {@linkcode listPods}. */
export interface ListPodsOptions {
  /**
   * When to give up, on the `performance.now()` clock.
   *
   * @default {Infinity}
   */
  deadline?: number;
  /**
   * Cancels the request; it then rejects with the signal's reason.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
}

/**
 * The error a request rejects with when the deadline passes first.
 *
 * @example Usage
 * ```ts
 * import { DeadlineReached } from "./_list_pods.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(new DeadlineReached().message, "deadline");
 * ```
 */
export class DeadlineReached extends Error {
  /** Makes the error. */
  constructor() {
    super("the API server did not answer before the deadline");
    this.name = "DeadlineReached";
  }
}

/**
 * One `GET /api/v1/namespaces/{ns}/pods?labelSelector=...`.
 *
 * @param request The client, server, token directory, namespace and selector.
 * @param options The deadline and a cancel signal.
 * @returns The PodList.
 * @throws {KubeConfigError} If the token cannot be read.
 * @throws {KubeForbiddenError} On 403.
 * @throws {KubeApiError} On another non-2xx status, or a body not a PodList.
 * @throws {KubeConnectionError} If TLS or the connection fails.
 * @throws {DeadlineReached} If the deadline passes first.
 *
 * @example A missing token fails before any request
 * ```ts
 * import { listPods } from "./_list_pods.ts";
 * import { KubeConfigError } from "./kube_errors.ts";
 * import { assertRejects } from "@std/assert";
 *
 * const client = Deno.createHttpClient({});
 * const request = {
 *   client,
 *   caFile: "/nonexistent/ca.crt",
 *   apiServer: "https://127.0.0.1:6443",
 *   serviceAccountDir: "/nonexistent",
 *   namespace: "rill",
 *   labelSelector: "app=rill-worker",
 * };
 * await assertRejects(() => listPods(request), KubeConfigError);
 * client.close();
 * ```
 */
export async function listPods(
  request: PodsRequest,
  options: ListPodsOptions = {},
): Promise<KubePodList> {
  const { deadline = Infinity, signal } = options;
  const token = await readServiceAccountToken(request.serviceAccountDir);
  const url = `${request.apiServer}/api/v1/namespaces/` +
    `${encodeURIComponent(request.namespace)}/pods?labelSelector=` +
    encodeURIComponent(request.labelSelector);
  const timeout = new AbortController();
  // No timer without a deadline: setTimeout(Infinity) would fire at once.
  const timer = Number.isFinite(deadline)
    ? setTimeout(
      () => timeout.abort(new DeadlineReached()),
      Math.max(0, deadline - performance.now()),
    )
    : undefined;
  const abort = signal === undefined
    ? timeout.signal
    : AbortSignal.any([timeout.signal, signal]);
  let status: number;
  let body: string;
  try {
    const response = await fetch(url, {
      client: request.client,
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      signal: abort,
    });
    status = response.status;
    body = await response.text();
  } catch (e) {
    if (timeout.signal.aborted) throw timeout.signal.reason;
    if (signal?.aborted) throw signal.reason;
    throw connectionError(request, e);
  } finally {
    clearTimeout(timer);
  }
  if (status === 403) {
    const account = serviceAccountOfToken(token) ?? userOfStatus(body) ??
      "(the token names none)";
    throw new KubeForbiddenError(account, request.namespace);
  }
  if (status < 200 || status > 299) {
    throw new KubeApiError(status, url, messageOfStatus(body) ?? "no message");
  }
  try {
    return parsePodList(JSON.parse(body));
  } catch (e) {
    throw new KubeApiError(status, url, (e as Error).message);
  }
}

function connectionError(
  request: PodsRequest,
  e: unknown,
): KubeConnectionError {
  // fetch rejects with "TypeError: fetch failed" and puts the reason (here
  // "invalid peer certificate: UnknownIssuer") in its cause.
  const texts: string[] = [];
  for (
    let x: unknown = e, depth = 0;
    x instanceof Error && depth < 5;
    depth++
  ) {
    texts.push(x.message);
    x = x.cause;
  }
  const detail = texts[texts.length - 1] ?? String(e);
  const tls = /certificate|tls|handshake|UnknownIssuer/i.test(texts.join(" "));
  return new KubeConnectionError(
    request.apiServer,
    request.caFile,
    tls,
    detail,
    {
      cause: e,
    },
  );
}

/** The `message` of a Kubernetes `Status` body, if the body is one. */
function messageOfStatus(body: string): string | undefined {
  try {
    const status = JSON.parse(body);
    return typeof status?.message === "string" ? status.message : undefined;
  } catch {
    return body.trim().slice(0, 200) || undefined;
  }
}

/** `ns/name` from a 403 Status: `User "system:serviceaccount:ns:name" cannot ...`. */
function userOfStatus(body: string): string | undefined {
  const match = /system:serviceaccount:([^:"]+):([^:"\s]+)/.exec(
    messageOfStatus(body) ?? "",
  );
  return match ? `${match[1]}/${match[2]}` : undefined;
}
