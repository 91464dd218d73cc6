/**
 * A fake Kubernetes API server for discovery tests: HTTPS on 127.0.0.1
 * with a throwaway CA, a service-account directory (token, ca.crt,
 * namespace) that trusts it, and a record of every request it served.
 *
 * @module
 */

import type { KubeDiscoveryOptions } from "../../../runtime/cluster/kube_discovery.ts";
import { serviceAccountJwt } from "./_kube_pods.ts";
import { makeTestTls, type TestTls } from "./_test_tls.ts";

/** A reply: an HTTP status (200 unless given) and a JSON body. */
export interface FakeReply {
  /** The HTTP status. */
  status?: number;
  /** The body, sent as JSON. */
  body: unknown;
}

/** Answers request `index` (from 0). */
export type FakeReplier = (index: number) => FakeReply | Promise<FakeReply>;

/** What the server saw of one request. */
export interface SeenRequest {
  /** The request's path. */
  path: string;
  /** Its `labelSelector` query parameter. */
  labelSelector: string | null;
  /** Its `Authorization` header. */
  authorization: string | null;
}

/** The fake API and the pod-side files that go with it. */
export interface FakeKubeApi {
  /** The service-account directory: `token`, `ca.crt`, `namespace`. */
  serviceAccountDir: string;
  /** The TLS material; `caPem` is what `ca.crt` holds. */
  tls: TestTls;
  /** A pod's environment pointing at the server; the pod is `rill-master-0`. */
  env: Record<string, string>;
  /** Every request served so far, in order. */
  requests: SeenRequest[];
  /** Discovery options for this pod: fast polls, a short deadline. */
  options: KubeDiscoveryOptions;
  /**
   * Replaces the token file, as the kubelet does when it rotates it.
   *
   * @param token The new token.
   */
  writeToken(token: string): Promise<void>;
}

/** The token the service-account directory starts with. */
export const FIRST_TOKEN: string = serviceAccountJwt("rill:rill-master");

/**
 * Runs `body` with a fake API server answering with `reply`, then shuts the
 * server down and removes its files.
 *
 * @param reply Answers each request.
 * @param body The test.
 * @returns A promise that fulfils when `body` has and all is cleaned up.
 */
export async function withFakeKubeApi(
  reply: FakeReplier,
  body: (api: FakeKubeApi) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "rill_kube_test_" });
  try {
    const tls = await makeTestTls();
    const serviceAccountDir = `${dir}/serviceaccount`;
    await Deno.mkdir(serviceAccountDir);
    await Deno.writeTextFile(`${serviceAccountDir}/token`, FIRST_TOKEN);
    await Deno.writeTextFile(`${serviceAccountDir}/ca.crt`, tls.caPem);
    await Deno.writeTextFile(`${serviceAccountDir}/namespace`, "rill\n");
    const requests: SeenRequest[] = [];
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      cert: tls.certPem,
      key: tls.keyPem,
      onListen() {},
    }, async (request) => {
      const url = new URL(request.url);
      requests.push({
        path: url.pathname,
        labelSelector: url.searchParams.get("labelSelector"),
        authorization: request.headers.get("authorization"),
      });
      const { status = 200, body } = await reply(requests.length - 1);
      return Response.json(body, { status });
    });
    const env = {
      KUBERNETES_SERVICE_HOST: "127.0.0.1",
      KUBERNETES_SERVICE_PORT: String(server.addr.port),
      HOSTNAME: "rill-master-0",
      POD_IP: "10.244.0.2",
    };
    try {
      await body({
        serviceAccountDir,
        tls,
        env,
        requests,
        options: {
          env,
          serviceAccountDir,
          pollIntervalMs: 20,
          timeoutMs: 3000,
        },
        writeToken: (token) =>
          Deno.writeTextFile(`${serviceAccountDir}/token`, token),
      });
    } finally {
      await server.shutdown();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
