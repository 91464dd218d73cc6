// deploy/k8s/ checked offline, without a cluster: every manifest against the
// Kubernetes schemas (kubernetes-models' validators for the required fields
// and types, and its TypeScript types for unknown fields), then against each
// other and against README.md's "Running on Kubernetes" walkthrough: the
// selector baked into the master by that walkthrough's `transpile` picks
// the worker pods and not the master, the master's service account may
// list pods and do nothing else, the workers serve on a port named `rill`
// and are probed over gRPC on another, drain within the pod's grace, are
// covered by a PodDisruptionBudget and reachable only from the master
// (NetworkPolicy), the calls use TLS with a certificate that names the
// workers' DNS names, the image is pinned by digest, and the pods learn who
// they are from the downward API and the token from one Secret.
// k8s_policy_test.ts checks the policies, k8s_pods_test.ts runs the pods'
// commands for real.
//
// kubernetes-models (through _kubernetes_models.ts) and yaml are imported
// here only, by pinned npm: specifiers, not through deno.json's imports, so
// that no module of the library can reach them; tests/first_run_test.ts
// checks that mod.ts does not.
// deno-lint-ignore-file no-import-prefix

import { assert, assertEquals } from "@std/assert";
import { join } from "@std/path";
import type { IService, IServiceAccount } from "npm:kubernetes-models@5.1.0/v1";
import type {
  IRole,
  IRoleBinding,
} from "npm:kubernetes-models@5.1.0/rbac.authorization.k8s.io/v1";
import {
  Job,
  Namespace,
  NetworkPolicy,
  PodDisruptionBudget,
  Role,
  RoleBinding,
  Service,
  ServiceAccount,
  StatefulSet,
} from "./_kubernetes_models.ts";
import { readProgramFile } from "../../runtime/format/program_file.ts";
import {
  parseDuration,
  parseWorkerLimits,
} from "../../runtime/cluster/worker_limits.ts";
import { runRill } from "../_helpers/rill_process.ts";
import {
  argValue,
  find,
  flagValue,
  job,
  K8S_DIR,
  MANIFESTS,
  masterSpec,
  NAMESPACE,
  onlyContainer,
  present,
  readmeSection,
  statefulSet,
  within,
  workerSpec,
} from "./_manifests.ts";
import { withTempDir } from "../_helpers/with_temp_dir.ts";

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** A model class of kubernetes-models: builds from data, validates. */
interface ModelClass {
  new (data: never): { validate(): void };
}

/**
 * The kinds deploy/k8s/ may hold, by `apiVersion kind`: each with its
 * model class, and the module and interface that type it (for the
 * unknown-field check).
 */
const KINDS: Record<
  string,
  { model: ModelClass; module: string; type: string }
> = {
  "v1 Namespace": { model: Namespace, module: "v1", type: "INamespace" },
  "v1 ServiceAccount": {
    model: ServiceAccount,
    module: "v1",
    type: "IServiceAccount",
  },
  "v1 Service": { model: Service, module: "v1", type: "IService" },
  "apps/v1 StatefulSet": {
    model: StatefulSet,
    module: "apps/v1",
    type: "IStatefulSet",
  },
  "batch/v1 Job": { model: Job, module: "batch/v1", type: "IJob" },
  "rbac.authorization.k8s.io/v1 Role": {
    model: Role,
    module: "rbac.authorization.k8s.io/v1",
    type: "IRole",
  },
  "rbac.authorization.k8s.io/v1 RoleBinding": {
    model: RoleBinding,
    module: "rbac.authorization.k8s.io/v1",
    type: "IRoleBinding",
  },
  "policy/v1 PodDisruptionBudget": {
    model: PodDisruptionBudget,
    module: "policy/v1",
    type: "IPodDisruptionBudget",
  },
  "networking.k8s.io/v1 NetworkPolicy": {
    model: NetworkPolicy,
    module: "networking.k8s.io/v1",
    type: "INetworkPolicy",
  },
};

/**
 * Whether a Kubernetes label selector (equality- and set-based:
 * `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, joined
 * by commas) picks a pod with `labels`.
 */
function selects(
  selector: string,
  labels: Readonly<Record<string, string>>,
): boolean {
  const requirements = selector.split(/,(?![^(]*\))/).map((r) => r.trim());
  return requirements.every((r) => {
    let m = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(r);
    if (m) {
      const [, key, op, value] = m;
      return op === "!=" ? labels[key] !== value : labels[key] === value;
    }
    m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(r);
    if (m) {
      const values = m[3].split(",").map((v) => v.trim());
      const has = m[1] in labels && values.includes(labels[m[1]]);
      return m[2] === "in" ? has : !has;
    }
    m = /^(!?)([\w./-]+)$/.exec(r);
    if (m) return (m[2] in labels) !== (m[1] === "!");
    throw new Error(`not a label selector requirement: "${r}"`);
  });
}

/** A Kubernetes quantity of bytes (`1Gi`, `512Mi`, `1G`, `4096`). */
function quantityBytes(quantity: string | number): number {
  const match = /^(\d+)([KMGT]i?)?$/.exec(String(quantity));
  assert(match !== null, `memory quantity ${quantity}`);
  const powers = "KMGT";
  const unit = match![2];
  const scale = unit === undefined
    ? 1
    : (unit.endsWith("i") ? 1024 : 1000) ** (powers.indexOf(unit[0]) + 1);
  return Number(match![1]) * scale;
}

// ---- schemas

Deno.test("deploy/k8s manifests validate against the Kubernetes schemas", () => {
  for (const { where, key, doc } of MANIFESTS) {
    const kind = KINDS[key];
    assert(kind, `${where}: no model for ${key}`);
    try {
      new kind.model(doc as never).validate();
    } catch (e) {
      throw new Error(`${where} (${key}): ${(e as Error).message}`);
    }
    if (doc.kind !== "Namespace") {
      assertEquals(doc.metadata.namespace, NAMESPACE, `${where}: namespace`);
    }
  }
  for (
    const key of [
      "v1 Service",
      "apps/v1 StatefulSet",
      "batch/v1 Job",
      "rbac.authorization.k8s.io/v1 Role",
      "rbac.authorization.k8s.io/v1 RoleBinding",
      "policy/v1 PodDisruptionBudget",
      "networking.k8s.io/v1 NetworkPolicy",
    ]
  ) {
    assert(MANIFESTS.some((m) => m.key === key), `deploy/k8s has no ${key}`);
  }
});

Deno.test("deploy/k8s manifests have no field the Kubernetes types lack", async () => {
  // The validators ignore unknown fields (a misspelt `readinesProbe` would
  // pass, and the API server would drop it); TypeScript's excess property
  // check on each document as an object literal catches them.
  await withTempDir(async (dir) => {
    const lines = MANIFESTS.map(({ where, key, doc }, i) => {
      const { module, type } = KINDS[key];
      return [
        `import type { ${type} as T${i} } from "npm:kubernetes-models@5.1.0/${module}";`,
        `// ${where}`,
        `export const m${i} = ${JSON.stringify(doc)} satisfies T${i};`,
      ].join("\n");
    });
    const file = join(dir, "manifests.ts");
    await Deno.writeTextFile(file, lines.join("\n") + "\n");
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--no-config", "--no-lock", file],
      cwd: dir,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    assert(
      output.success,
      `unknown or mistyped fields:\n${new TextDecoder().decode(output.stderr)}`,
    );
  });
});

// ---- the workers

Deno.test("the headless Service and the StatefulSet pick the worker pods", () => {
  const set = statefulSet();
  const labels = set.spec!.template.metadata!.labels!;
  const service: IService = find("v1 Service", set.spec!.serviceName!);
  assertEquals(service.spec!.clusterIP, "None");
  assert(
    within(set.spec!.selector.matchLabels!, labels),
    "StatefulSet selector",
  );
  assert(within(service.spec!.selector!, labels), "Service selector");
  const port = present(
    service.spec!.ports!.find((p) => p.name === "rill"),
    "Service port named rill",
  );
  assertEquals(port.targetPort, "rill");
});

Deno.test("the worker serves its program on the container port named rill, probed over gRPC on its health port", () => {
  const worker = onlyContainer(workerSpec(), "worker");
  const port = (name: string) =>
    present(
      worker.ports?.find((p) => p.name === name),
      `worker container port named ${name}`,
    );
  const rill = port("rill");
  const health = port("health");
  for (const p of [rill, health]) assertEquals(p.protocol ?? "TCP", "TCP");
  const args = worker.args ?? [];
  assertEquals(args.slice(0, 2), ["worker", "/program/worker.pb"]);
  assertEquals(argValue(args, "--listen"), `0.0.0.0:${rill.containerPort}`);
  assertEquals(
    argValue(args, "--health-listen"),
    `0.0.0.0:${health.containerPort}`,
  );
  // gRPC probes, which fail while the event loop is blocked (a tcpSocket
  // probe passes): readiness asks about the server, liveness about the
  // process ("liveness" stays SERVING while it drains).
  const ready = present(worker.readinessProbe, "readiness probe");
  const live = present(worker.livenessProbe, "liveness probe");
  for (const probe of [ready, live]) {
    assertEquals(probe.tcpSocket, undefined, "a tcpSocket probe");
    assertEquals(probe.grpc?.port, health.containerPort, "the probe's port");
  }
  assertEquals(ready.grpc?.service ?? "", "");
  assertEquals(live.grpc?.service, "liveness");
});

Deno.test("the worker drains within the pod's grace period", () => {
  const spec = workerSpec();
  const args = onlyContainer(spec, "worker").args ?? [];
  const drainMs = parseDuration(
    "drain-timeout",
    argValue(args, "--drain-timeout"),
  );
  const graceMs = present(
    spec.terminationGracePeriodSeconds,
    "terminationGracePeriodSeconds",
  ) * 1000;
  // Closing after the drain takes up to 2 s (worker_server.ts's graces);
  // 5 s leaves room for the process to exit before SIGKILL.
  assert(
    drainMs + 5_000 <= graceMs,
    `--drain-timeout ${drainMs} ms in a grace of ${graceMs} ms`,
  );
});

Deno.test("the worker pods' memory limit is twice what the worker's calls may hold", () => {
  const worker = onlyContainer(workerSpec(), "worker");
  const memory = quantityBytes(
    present(worker.resources?.limits?.memory, "worker memory limit"),
  );
  // The limit flags the container gives (`--max-calls N`), else defaults.
  const args = worker.args ?? [];
  const flags: Record<string, string> = {};
  for (let i = 0; i + 1 < args.length; i++) {
    if (args[i].startsWith("--")) flags[args[i].slice(2)] = args[i + 1];
  }
  const { maxCalls, maxCallBytes } = parseWorkerLimits(flags);
  // Half for the calls' tensors, half for their replies, the parameters
  // and Deno: the comment in workers.yaml says so.
  assert(
    2 * maxCalls * maxCallBytes <= Number(memory),
    `${maxCalls} calls of ${maxCallBytes} bytes in ${memory} bytes`,
  );
});

// ---- the master

Deno.test("the selector README's transpile bakes into master.pb picks the workers, not the master", async () => {
  const command = present(
    /^\s*deno run -A mod\.ts (transpile [^\n]*)$/m.exec(readmeSection()),
    "transpile command in README's Kubernetes section",
  );
  const args = command[1].split(/\s+/);
  await withTempDir(async (dir) => {
    const at = args.indexOf("--out-dir");
    assert(at > 0, "transpile without --out-dir");
    args[at + 1] = dir;
    const run = await runRill(args);
    assertEquals(run.code, 0, run.stderr);
    const master = await readProgramFile(join(dir, "master.pb"));
    const discovery = master.blocks[0].ops.filter((op) =>
      op.type === "kube_get_workers_addrs"
    );
    assertEquals(discovery.length, 1, "one kube_get_workers_addrs");
    const attr = (name: string) =>
      discovery[0].attrs.find((a) => a.name === name);
    const selector = attr("label_selector")?.s ?? "";
    assert(selector !== "", "master.pb has no label_selector");
    assert(
      selects(selector, statefulSet().spec!.template.metadata!.labels!),
      `"${selector}" does not pick the worker pods`,
    );
    assert(
      !selects(selector, job().spec!.template.metadata!.labels!),
      `"${selector}" picks the master's own pod`,
    );
    // No --port: the master dials each pod's port named rill.
    assertEquals(attr("port")?.i ?? 0, 0);
    assertEquals(
      (attr("namespace")?.s ?? "") || NAMESPACE,
      NAMESPACE,
      "the master searches its own namespace",
    );
  });
});

Deno.test("the master's service account may list pods in its namespace", () => {
  const spec = masterSpec();
  const account: IServiceAccount = find(
    "v1 ServiceAccount",
    spec.serviceAccountName!,
  );
  assert(spec.automountServiceAccountToken !== false, "the master's token");
  assert(account.automountServiceAccountToken !== false, "the account's token");
  const bindings = MANIFESTS.filter((m) =>
    m.key === "rbac.authorization.k8s.io/v1 RoleBinding"
  ).map((m) => m.doc as IRoleBinding).filter((b) =>
    b.subjects?.some((s) =>
      s.kind === "ServiceAccount" && s.name === account.metadata!.name &&
      (s.namespace ?? b.metadata!.namespace) === NAMESPACE
    )
  );
  assertEquals(bindings.length, 1, "one RoleBinding of the master's account");
  const { roleRef } = bindings[0];
  assertEquals(roleRef.kind, "Role");
  assertEquals(roleRef.apiGroup, "rbac.authorization.k8s.io");
  const role: IRole = find("rbac.authorization.k8s.io/v1 Role", roleRef.name);
  assertEquals(role.metadata!.namespace, NAMESPACE);
  // Discovery lists pods, and that is all the Role grants.
  assertEquals(
    role.rules!.map((r) => [r.apiGroups, r.resources, r.verbs]),
    [[[""], ["pods"], ["list"]]],
  );
  // Deno lets the master read the token and CA it lists pods with.
  const master = onlyContainer(spec, "master");
  const readable = flagValue(master.command!, "--allow-read").split(",");
  assert(
    readable.includes(SERVICE_ACCOUNT_DIR),
    "--allow-read lacks the token",
  );
});

Deno.test("the master runs master.pb, once, with no restarts in the pod", () => {
  const spec = masterSpec();
  assertEquals(spec.restartPolicy, "Never");
  const master = onlyContainer(spec, "master");
  assertEquals(master.args?.[0], "/program/master.pb");
});

// ---- both

Deno.test("pods get POD_NAME and POD_IP from the downward API and RILL_TOKEN from the README's Secret", () => {
  const secret = present(
    /kubectl -n (\S+) create secret generic (\S+) --from-literal=(\w+)=/.exec(
      readmeSection(),
    ),
    "Secret created in README's Kubernetes section",
  );
  assertEquals(secret[1], NAMESPACE);
  for (
    const [who, spec] of [["worker", workerSpec()], [
      "master",
      masterSpec(),
    ]] as const
  ) {
    const env = onlyContainer(spec, who).env ?? [];
    const byName = (name: string) => {
      const found = env.filter((e) => e.name === name);
      assertEquals(found.length, 1, `${who}: one ${name}`);
      assertEquals(found[0].value, undefined, `${who}: ${name} is a literal`);
      return found[0].valueFrom;
    };
    assertEquals(byName("POD_NAME")?.fieldRef?.fieldPath, "metadata.name");
    assertEquals(byName("POD_IP")?.fieldRef?.fieldPath, "status.podIP");
    const token = byName("RILL_TOKEN")?.secretKeyRef;
    assertEquals(token?.name, secret[2], `${who}: RILL_TOKEN's Secret`);
    assertEquals(token?.key, secret[3], `${who}: RILL_TOKEN's key`);
    assert(token?.optional !== true, `${who}: RILL_TOKEN is optional`);
  }
});

Deno.test("pods run as non-root on a read-only root, with resources bounded", () => {
  const image = onlyContainer(workerSpec(), "worker").image;
  for (
    const [who, spec] of [["worker", workerSpec()], [
      "master",
      masterSpec(),
    ]] as const
  ) {
    assertEquals(
      spec.securityContext?.runAsNonRoot,
      true,
      `${who}: runAsNonRoot`,
    );
    const c = onlyContainer(spec, who);
    assertEquals(c.image, image, `${who}: the same image as the workers`);
    assertEquals(c.securityContext?.readOnlyRootFilesystem, true, who);
    assertEquals(c.securityContext?.allowPrivilegeEscalation, false, who);
    assert(c.securityContext?.capabilities?.drop?.includes("ALL"), who);
    for (const bound of ["requests", "limits"] as const) {
      for (const resource of ["cpu", "memory"]) {
        assert(
          c.resources?.[bound]?.[resource],
          `${who}: ${bound}.${resource}`,
        );
      }
    }
    // Deno runs from the image's cache, fetching nothing.
    assert(c.command?.includes("--cached-only"), `${who}: --cached-only`);
    assert(!c.command?.includes("-A"), `${who}: runs with -A`);
  }
  assertEquals(
    workerSpec().automountServiceAccountToken,
    false,
    "worker token",
  );
});

Deno.test("README's Kubernetes walkthrough applies every manifest", () => {
  const section = readmeSection();
  for (const e of Deno.readDirSync(K8S_DIR)) {
    assert(
      section.includes(`deploy/k8s/${e.name}`),
      `README's walkthrough never applies deploy/k8s/${e.name}`,
    );
  }
  assert(section.includes("docker build -f deploy/Dockerfile"));
});
