// What the pods of deploy/k8s/ run, checked against the manifests: the
// image pinned by digest, TLS between master and workers, Deno permissions
// given as lists, the Dockerfile's default command equal to the workers',
// and, run for real on 127.0.0.1, the worker's and the master's commands
// with exactly their manifests' permission flags and arguments (the
// container paths mapped to temporary ones): the worker serves the master
// over TLS, answers gRPC health checks, and drains on SIGTERM.
// deno-lint-ignore-file no-import-prefix

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "@std/path";
import { createClient } from "@connectrpc/connect";
import {
  createGrpcTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import type { IContainer, IPodSpec } from "npm:kubernetes-models@5.1.0/v1";
import {
  Health,
  HealthCheckResponse_ServingStatus as Status,
} from "../../gen/grpc/health/v1/health_pb.ts";
import { transpileFiles } from "../../runtime/transpile/transpile_files.ts";
import { ROOT, runRill } from "../_helpers/rill_process.ts";
import { lineReader } from "../_helpers/line_reader.ts";
import { within } from "../_helpers/within.ts";
import { withTempDir } from "../_helpers/with_temp_dir.ts";
import { makeTestTls } from "../runtime/cluster/_test_tls.ts";
import {
  argValue,
  masterSpec,
  NAMESPACE,
  onlyContainer,
  present,
  readmeSection,
  statefulSet,
  workerSpec,
} from "./_manifests.ts";

const IMAGE = "${RILL_IMAGE}@sha256:${IMAGE_DIGEST}";
const MLP = `${ROOT}examples/mlp_model`;
const IMG = `${ROOT}examples/data/mlp_img.npy`;

/** The worker's and the master's containers. */
function containers(): [string, IPodSpec, IContainer][] {
  return [
    ["worker", workerSpec(), onlyContainer(workerSpec(), "worker")],
    ["master", masterSpec(), onlyContainer(masterSpec(), "master")],
  ];
}

/** A command's Deno permission flags. */
function permissions(command: readonly string[]): string[] {
  return command.filter((w) => w.startsWith("--allow-"));
}

/** The volume mounted at the directory holding `file`, and its source. */
function volumeOf(spec: IPodSpec, container: IContainer, file: string) {
  const mount = present(
    container.volumeMounts?.find((m) => file.startsWith(`${m.mountPath}/`)),
    `a volume mounted over ${file}`,
  );
  return present(
    spec.volumes?.find((v) => v.name === mount.name),
    `the volume ${mount.name}`,
  );
}

// ---- static

Deno.test("both pods run the image pinned by digest, which README's build step fills in", () => {
  for (const [who, , c] of containers()) {
    assertEquals(c.image, IMAGE, `${who}: image`);
  }
  const section = readmeSection();
  assert(!section.includes(":latest"), "README still builds :latest");
  assertStringIncludes(section, "envsubst '$RILL_IMAGE $IMAGE_DIGEST'");
  assertStringIncludes(section, "docker push");
  assertStringIncludes(section, "IMAGE_DIGEST=");
});

Deno.test("calls use TLS: the workers' certificate from a Secret names their DNS names, the master trusts its CA", () => {
  const worker = onlyContainer(workerSpec(), "worker");
  const args = worker.args ?? [];
  const section = readmeSection();
  const cert = argValue(args, "--tls-cert");
  const key = argValue(args, "--tls-key");
  const secret = present(
    volumeOf(workerSpec(), worker, cert).secret?.secretName,
    "a Secret for the certificate",
  );
  assertEquals(volumeOf(workerSpec(), worker, key).secret?.secretName, secret);
  assertStringIncludes(
    section,
    `kubectl -n ${NAMESPACE} create secret tls ${secret} `,
  );
  // The master dials each worker by its DNS name, which one certificate
  // can name in advance: *.<serviceName>.<namespace>.svc.
  const master = onlyContainer(masterSpec(), "master");
  assertEquals(argValue(master.args ?? [], "--dial-by"), "dns");
  assertStringIncludes(
    section,
    `DNS:*.${statefulSet().spec!.serviceName}.${NAMESPACE}.svc`,
  );
  const ca = present(
    master.env?.find((e) => e.name === "RILL_TLS_CA")?.value,
    "RILL_TLS_CA",
  );
  const configMap = present(
    volumeOf(masterSpec(), master, ca).configMap?.name,
    "a ConfigMap for the CA",
  );
  assertStringIncludes(
    section,
    `kubectl -n ${NAMESPACE} create configmap ${configMap} `,
  );
});

Deno.test("Deno permissions are lists, and the Dockerfile's default command is the worker's", () => {
  for (const [who, , c] of containers()) {
    const command = present(c.command, `${who}: command`);
    assert(!command.includes("-A") && !command.includes("--allow-all"), who);
    for (const flag of permissions(command)) {
      // The master dials workers and the API server it learns of at run
      // time: its network alone is unscoped.
      if (who === "master" && flag === "--allow-net") continue;
      assert(flag.includes("="), `${who}: ${flag} is not a list`);
    }
  }
  const cmd = /^CMD (\[[^\]]*\])/m.exec(
    Deno.readTextFileSync(join(ROOT, "deploy", "Dockerfile")).replaceAll(
      "\\\n",
      "",
    ),
  );
  const words: string[] = JSON.parse(present(cmd, "the Dockerfile's CMD")[1]);
  const worker = onlyContainer(workerSpec(), "worker");
  const command = present(worker.command, "worker command");
  assertEquals(words, [...command, ...worker.args ?? []]);
});

// ---- for real

/** Two free TCP ports on 0.0.0.0. */
function freePorts(): [number, number] {
  const a = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  const b = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  const ports: [number, number] = [
    (a.addr as Deno.NetAddr).port,
    (b.addr as Deno.NetAddr).port,
  ];
  a.close();
  b.close();
  return ports;
}

/** Maps a container's paths and ports onto this machine's. */
function mapper(dir: string, rill: number, health: number) {
  const paths: [string, string][] = [
    ["/var/run/secrets/kubernetes.io/serviceaccount", `${dir}/sa`],
    ["/etc/rill/tls", `${dir}/tls`],
    ["/etc/rill/ca", `${dir}/ca`],
    ["/program", `${dir}/program`],
    ["/app", ROOT.replace(/\/$/, "")],
  ];
  return (word: string): string => {
    for (const [from, to] of paths) {
      word = word.replace(
        new RegExp(`(^|[=,])${from}(?=$|[/,])`, "g"),
        `$1${to}`,
      );
    }
    return word.replace(/:7070\b/g, `:${rill}`).replace(
      /:7071\b/g,
      `:${health}`,
    );
  };
}

/** The gRPC health status at `addr`, asked as the kubelet asks. */
async function healthOf(addr: string, service = ""): Promise<Status> {
  const sessionManager = new Http2SessionManager(`http://${addr}`);
  try {
    const client = createClient(
      Health,
      createGrpcTransport({ baseUrl: `http://${addr}`, sessionManager }),
    );
    return (await client.check({ service }, { timeoutMs: 5_000 })).status;
  } finally {
    sessionManager.abort();
  }
}

Deno.test("the pods' commands run with exactly their manifests' permissions: a TLS worker serves the master and drains on SIGTERM", async () => {
  await withTempDir(async (dir) => {
    const tls = await makeTestTls();
    for (const sub of ["tls", "ca", "sa"]) await Deno.mkdir(`${dir}/${sub}`);
    await Deno.writeTextFile(`${dir}/tls/tls.crt`, tls.certPem);
    await Deno.writeTextFile(`${dir}/tls/tls.key`, tls.keyPem);
    await Deno.writeTextFile(`${dir}/ca/ca.crt`, tls.caPem);
    await transpileFiles(MLP, `${dir}/program`);
    await Deno.copyFile(IMG, `${dir}/program/img.npy`);
    const [rill, health] = freePorts();
    const map = mapper(dir, rill, health);
    const token = "k8s-pods-test-token";

    const worker = onlyContainer(workerSpec(), "worker");
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...permissions(worker.command!).map(map),
        map("/app/mod.ts"),
        ...(worker.args ?? []).map(map),
      ],
      cwd: dir,
      clearEnv: true,
      env: {
        NO_COLOR: "1",
        RILL_TOKEN: token,
        POD_IP: "127.0.0.1",
        POD_NAME: "rill-worker-0",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stdout = lineReader(child.stdout);
    const stderr = lineReader(child.stderr);
    try {
      assertEquals(await stderr.next(60_000), `health on 0.0.0.0:${health}`);
      assertEquals(await stdout.next(60_000), `listening on 0.0.0.0:${rill}`);
      assertEquals(await healthOf(`127.0.0.1:${health}`), Status.SERVING);
      assertEquals(
        await healthOf(`127.0.0.1:${health}`, "liveness"),
        Status.SERVING,
      );

      const single = await runRill([MLP, "--feed", `img=${IMG}`]);
      assertEquals(single.code, 0, single.stderr);
      const master = onlyContainer(masterSpec(), "master");
      const env = Object.fromEntries(
        (master.env ?? []).filter((e) => e.value !== undefined).map((
          e,
        ) => [e.name, map(e.value!)]),
      );
      const run = await within(
        120_000,
        new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            ...permissions(master.command!).map(map),
            map("/app/mod.ts"),
            ...(master.args ?? []).map(map),
            "--worker-addrs",
            `127.0.0.1:${rill}`,
          ],
          cwd: dir,
          clearEnv: true,
          env: {
            ...env,
            NO_COLOR: "1",
            RILL_TOKEN: token,
            POD_NAME: "rill-master-0",
            POD_IP: "127.0.0.2",
          },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output(),
      );
      assertEquals(run.code, 0, new TextDecoder().decode(run.stderr));
      assertEquals(new TextDecoder().decode(run.stdout), single.stdout);

      child.kill("SIGTERM");
      assertEquals((await within(60_000, child.status)).code, 0);
      assertEquals(await stderr.rest(), "worker: drained 0 calls, exiting\n");
      assertEquals(await stdout.rest(), "");
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await child.status;
    }
  });
});
