// Kubernetes discovery against a fake API server over real TLS: which pods
// count, how the wait and its deadline behave, the token read per request,
// the CA actually checked, and each failure's error.

import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import { DeadlineReached } from "../../../runtime/cluster/_list_pods.ts";
import { discoverKubeWorkers } from "../../../runtime/cluster/kube_discovery.ts";
import {
  KubeApiError,
  KubeConfigError,
  KubeConnectionError,
  KubeForbiddenError,
  KubePortError,
  KubeWaitTimeoutError,
} from "../../../runtime/cluster/kube_errors.ts";
import {
  type FakeReply,
  FIRST_TOKEN,
  withFakeKubeApi,
} from "./_fake_kube_api.ts";
import {
  forbiddenStatus,
  pod,
  podList,
  serviceAccountJwt,
} from "./_kube_pods.ts";

const SELECTOR = "app=rill";

/** Every kind of pod the API may list next to the ready workers. */
const MIXED = podList([
  pod("rill-worker-1", "ready", { ip: "10.244.0.10" }),
  pod("rill-worker-0", "ready", { ip: "10.244.0.9" }),
  pod("rill-master-0", "ready", { ip: "10.244.0.2" }),
  pod("rill-worker-2", "pending"),
  pod("rill-worker-3", "not-ready", { ip: "10.244.0.12" }),
  pod("rill-worker-4", "no-ip"),
  pod("rill-worker-5", "terminating", { ip: "10.244.0.14" }),
]);

const always = (body: unknown, status = 200) => (): FakeReply => ({
  status,
  body,
});

/** The first replies in turn, then the last one for ever. */
const inTurn = (...bodies: unknown[]) => (i: number): FakeReply => ({
  body: bodies[Math.min(i, bodies.length - 1)],
});

function workers(ready: number, pending = 0): Record<string, unknown> {
  const pods = [pod("rill-master-0", "ready", { ip: "10.244.0.2" })];
  for (let i = 0; i < ready + pending; i++) {
    const name = `rill-worker-${i}`;
    pods.push(
      i < ready
        ? pod(name, "ready", { ip: `10.244.1.${i + 1}` })
        : pod(name, "pending"),
    );
  }
  return podList(pods);
}

Deno.test("discoverKubeWorkers() returns Running, Ready pods with an IP, sorted, leaving out itself", async () => {
  await withFakeKubeApi(always(MIXED), async (api) => {
    const addrs = await discoverKubeWorkers(SELECTOR, {
      ...api.options,
      expected: 2,
    });
    assertEquals(addrs, ["10.244.0.9:7070", "10.244.0.10:7070"]);
    assertEquals(api.requests, [{
      path: "/api/v1/namespaces/rill/pods",
      labelSelector: SELECTOR,
      authorization: `Bearer ${FIRST_TOKEN}`,
    }]);
  });
});

Deno.test("discoverKubeWorkers() takes the namespace and port from options", async () => {
  await withFakeKubeApi(always(MIXED), async (api) => {
    const addrs = await discoverKubeWorkers("app in (rill),tier!=gpu", {
      ...api.options,
      namespace: "batch-jobs",
      port: 9000,
      expected: 2,
    });
    assertEquals(addrs, ["10.244.0.9:9000", "10.244.0.10:9000"]);
    assertEquals(api.requests[0].path, "/api/v1/namespaces/batch-jobs/pods");
    assertEquals(api.requests[0].labelSelector, "app in (rill),tier!=gpu");
  });
});

Deno.test("discoverKubeWorkers() waits across polls until the expected number are ready", async () => {
  const replies = inTurn(workers(1, 2), workers(2, 1), workers(3));
  await withFakeKubeApi(replies, async (api) => {
    const addrs = await discoverKubeWorkers(SELECTOR, {
      ...api.options,
      expected: 3,
    });
    assertEquals(addrs, [
      "10.244.1.1:7070",
      "10.244.1.2:7070",
      "10.244.1.3:7070",
    ]);
    assertEquals(api.requests.length, 3);
  });
});

Deno.test("discoverKubeWorkers() without expected waits until every matching pod is ready", async () => {
  await withFakeKubeApi(
    inTurn(workers(0), workers(1, 1), workers(2)),
    async (api) => {
      const addrs = await discoverKubeWorkers(SELECTOR, api.options);
      assertEquals(addrs, ["10.244.1.1:7070", "10.244.1.2:7070"]);
      assertEquals(api.requests.length, 3);
    },
  );
});

Deno.test("discoverKubeWorkers() times out saying how many were ready and why the others were not", async () => {
  await withFakeKubeApi(always(MIXED), async (api) => {
    const e = await assertRejects(
      () =>
        discoverKubeWorkers(SELECTOR, {
          ...api.options,
          expected: 4,
          timeoutMs: 300,
          pollIntervalMs: 50,
        }),
      KubeWaitTimeoutError,
    );
    // At its own deadline, not the default one (120 s).
    assertEquals(e.state.timeoutMs, 300);
    assertStringIncludes(e.message, "timed out after 300 ms");
    assertEquals(e.state.expected, 4);
    assertEquals(e.state.ready, ["10.244.0.9:7070", "10.244.0.10:7070"]);
    assertEquals(e.state.notReady, [
      { name: "rill-worker-2", reason: "Pending: ContainerCreating" },
      { name: "rill-worker-3", reason: "not Ready: ContainersNotReady" },
      { name: "rill-worker-4", reason: "no IP" },
      { name: "rill-worker-5", reason: "terminating" },
    ]);
    // Polls every 50 ms for 300 ms: never more than 300 / 50 + 1 requests
    // (a loaded machine's late timers may leave fewer).
    assert(api.requests.length >= 1 && api.requests.length <= 7);
    assertStringIncludes(e.message, "2 of 4 workers ready");
    assertStringIncludes(
      e.message,
      "rill-worker-2 (Pending: ContainerCreating)",
    );
    assert(!e.message.includes("\n"));
  });
});

Deno.test("discoverKubeWorkers() abandons a request still unanswered at the deadline", async () => {
  let release = (): void => {};
  const released = new Promise<void>((resolve) => release = resolve);
  const replies = async (i: number): Promise<FakeReply> => {
    if (i > 0) await released;
    return { body: workers(1, 1) };
  };
  await withFakeKubeApi(replies, async (api) => {
    try {
      const e = await assertRejects(
        () =>
          discoverKubeWorkers(SELECTOR, {
            ...api.options,
            timeoutMs: 250,
          }),
        KubeWaitTimeoutError,
      );
      assertInstanceOf(e.state.lastError, DeadlineReached);
      assertEquals(e.state.ready, ["10.244.1.1:7070"]);
      assertEquals(e.state.notReady, [{
        name: "rill-worker-1",
        reason: "Pending: ContainerCreating",
      }]);
    } finally {
      release();
    }
  });
});

Deno.test("discoverKubeWorkers() reads the token again for each request", async () => {
  const rotated = serviceAccountJwt("rill:rill-master", 1);
  const rotatedAgain = serviceAccountJwt("rill:rill-master", 2);
  let api: { writeToken(token: string): Promise<void> } | undefined;
  // The kubelet rotates the token while the wait is polling.
  const replies = async (i: number): Promise<FakeReply> => {
    if (i === 0) await api?.writeToken(rotated);
    return { body: i === 0 ? workers(0, 1) : workers(1) };
  };
  await withFakeKubeApi(replies, async (fake) => {
    api = fake;
    await discoverKubeWorkers(SELECTOR, fake.options);
    await fake.writeToken(rotatedAgain);
    await discoverKubeWorkers(SELECTOR, fake.options);
    assertEquals(fake.requests.map((r) => r.authorization), [
      `Bearer ${FIRST_TOKEN}`,
      `Bearer ${rotated}`,
      `Bearer ${rotatedAgain}`,
    ]);
  });
});

Deno.test("discoverKubeWorkers() reports a 403 with the service account and namespace", async () => {
  const status = forbiddenStatus("rill:rill-master", "rill");
  await withFakeKubeApi(always(status, 403), async (api) => {
    const e = await assertRejects(
      () => discoverKubeWorkers(SELECTOR, api.options),
      KubeForbiddenError,
    );
    assertEquals(e.serviceAccount, "rill/rill-master");
    assertEquals(e.namespace, "rill");
    assertStringIncludes(e.message, "RBAC Role");
    assertEquals(api.requests.length, 1, "a 403 is not retried");
  });
});

Deno.test("discoverKubeWorkers() names the account from the 403 Status when the token is opaque", async () => {
  const status = forbiddenStatus("rill:builder", "rill");
  await withFakeKubeApi(always(status, 403), async (api) => {
    await api.writeToken("opaque-legacy-token");
    const e = await assertRejects(
      () => discoverKubeWorkers(SELECTOR, api.options),
      KubeForbiddenError,
    );
    assertEquals(e.serviceAccount, "rill/builder");
  });
});

Deno.test("discoverKubeWorkers() fails at once on a 401", async () => {
  const status = {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: "Unauthorized",
    reason: "Unauthorized",
    code: 401,
  };
  await withFakeKubeApi(always(status, 401), async (api) => {
    const e = await assertRejects(
      () => discoverKubeWorkers(SELECTOR, api.options),
      KubeApiError,
    );
    assertEquals(e.status, 401);
    assertEquals(api.requests.length, 1);
  });
});

Deno.test("discoverKubeWorkers() retries a 500 at the next poll", async () => {
  const replies = (i: number): FakeReply =>
    i === 0
      ? {
        status: 500,
        body: {
          kind: "Status",
          message: "etcdserver: leader changed",
          code: 500,
        },
      }
      : { body: workers(2) };
  await withFakeKubeApi(replies, async (api) => {
    assertEquals(await discoverKubeWorkers(SELECTOR, api.options), [
      "10.244.1.1:7070",
      "10.244.1.2:7070",
    ]);
    assertEquals(api.requests.length, 2);
  });
});

Deno.test("discoverKubeWorkers() rejects a body that is not a PodList", async () => {
  await withFakeKubeApi(
    always({ kind: "Status", apiVersion: "v1" }),
    async (api) => {
      const e = await assertRejects(
        () => discoverKubeWorkers(SELECTOR, api.options),
        KubeApiError,
      );
      assertEquals(e.status, 200);
    },
  );
});

Deno.test("discoverKubeWorkers() needs the named port on every ready worker", async () => {
  const list = podList([
    pod("rill-worker-0", "ready", {
      ip: "10.244.0.9",
      ports: [{ containerPort: 7070 }],
    }),
  ]);
  await withFakeKubeApi(always(list), async (api) => {
    const e = await assertRejects(
      () => discoverKubeWorkers(SELECTOR, api.options),
      KubePortError,
    );
    assertEquals([e.pod, e.portName], ["rill-worker-0", "rill"]);
  });
});

Deno.test("discoverKubeWorkers() checks the server against the cluster CA it is given", async () => {
  await withFakeKubeApi(always(MIXED), async (api) => {
    // The test CA is in no system store: a client without it must fail.
    await assertRejects(() =>
      fetch(`https://127.0.0.1:${api.env.KUBERNETES_SERVICE_PORT}/`).then((r) =>
        r.text()
      )
    );
    await Deno.writeTextFile(
      `${api.serviceAccountDir}/ca.crt`,
      api.tls.otherCaPem,
    );
    const e = await assertRejects(
      () => discoverKubeWorkers(SELECTOR, api.options),
      KubeConnectionError,
    );
    assert(e.tls);
    assertEquals(e.caFile, `${api.serviceAccountDir}/ca.crt`);
    assertStringIncludes(e.message, "not trusted by the cluster CA");
    assertStringIncludes(e.message, "UnknownIssuer");
    assertEquals(api.requests.length, 0);
  });
});

Deno.test("discoverKubeWorkers() retries an unreachable server, then reports it in the timeout", async () => {
  await withFakeKubeApi(always(MIXED), async (api) => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closedPort = listener.addr.port;
    listener.close();
    const e = await assertRejects(
      () =>
        discoverKubeWorkers(SELECTOR, {
          ...api.options,
          apiServer: `https://127.0.0.1:${closedPort}`,
          // Long enough for a refused connection to be seen on a loaded
          // machine (200 ms was not, at load 13): the wait is for nothing
          // else, and the poll still retries every 50 ms.
          timeoutMs: 3_000,
          pollIntervalMs: 50,
        }),
      KubeWaitTimeoutError,
    );
    assertInstanceOf(e.state.lastError, KubeConnectionError);
    assertEquals(e.state.lastError.tls, false);
    assertEquals(e.state.ready, []);
  });
});

Deno.test("discoverKubeWorkers() reports a missing token file as a configuration error", async () => {
  await withFakeKubeApi(always(MIXED), async (api) => {
    await Deno.remove(`${api.serviceAccountDir}/token`);
    const e = await assertRejects(
      () => discoverKubeWorkers(SELECTOR, api.options),
      KubeConfigError,
    );
    assertEquals(e.file, `${api.serviceAccountDir}/token`);
  });
});

Deno.test("discoverKubeWorkers() stops waiting when its signal aborts", async () => {
  await withFakeKubeApi(always(workers(0, 1)), async (api) => {
    const controller = new AbortController();
    const reason = new Error("stop");
    const timer = setTimeout(() => controller.abort(reason), 100);
    try {
      const e = await assertRejects(() =>
        discoverKubeWorkers(SELECTOR, {
          ...api.options,
          signal: controller.signal,
        })
      );
      assertEquals(e, reason);
    } finally {
      clearTimeout(timer);
    }
  });
});

Deno.test("discoverKubeWorkers() rejects bad options before any request", async () => {
  await withFakeKubeApi(always(MIXED), async (api) => {
    await assertRejects(() => discoverKubeWorkers(" ", api.options), TypeError);
    for (
      const bad of [{ expected: 0 }, { port: 70000 }, { timeoutMs: 0 }, {
        pollIntervalMs: Infinity,
      }]
    ) {
      await assertRejects(
        () => discoverKubeWorkers(SELECTOR, { ...api.options, ...bad }),
        RangeError,
      );
    }
    assertEquals(api.requests.length, 0);
  });
});

Deno.test("discoverKubeWorkers() says what it waits for after each poll that saw something new", async () => {
  const notReady = podList([
    pod("rill-worker-0", "ready", { ip: "10.244.1.1" }),
    pod("rill-worker-1", "not-ready", { ip: "10.244.1.2" }),
  ]);
  const replies = inTurn(workers(0, 2), notReady, notReady, workers(2));
  await withFakeKubeApi(replies, async (api) => {
    const lines: string[] = [];
    const addrs = await discoverKubeWorkers(SELECTOR, {
      ...api.options,
      onProgress: (line) => lines.push(line),
    });
    assertEquals(addrs, ["10.244.1.1:7070", "10.244.1.2:7070"]);
    assertEquals(lines, [
      "waiting for workers: 0 of 2 ready (rill-worker-0: Pending: ContainerCreating, rill-worker-1: Pending: ContainerCreating)",
      "waiting for workers: 1 of 2 ready (rill-worker-1: ContainersNotReady)",
    ]);
    assertEquals(api.requests.length, 4);
  });
});

Deno.test("discoverKubeWorkers() says nothing when the first poll finds enough", async () => {
  await withFakeKubeApi(always(workers(2, 1)), async (api) => {
    const lines: string[] = [];
    const addrs = await discoverKubeWorkers(SELECTOR, {
      ...api.options,
      expected: 2,
      onProgress: (line) => lines.push(line),
    });
    assertEquals(addrs.length, 2);
    assertEquals(lines, []);
  });
});
