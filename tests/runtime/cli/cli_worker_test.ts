// The worker command's limits and input checks: README.md and --help list
// every limit flag with its default, read from the one table; a bad limit
// flag is one `error:` line (exit 1) before anything is read, a limit flag
// given to another command is an error, and a worker process serving a transpiled
// Paddle model refuses a tensor its program does not declare (another
// dtype, shape or name) and one over --max-call-bytes, each with a message
// naming the tensor and what was expected, while it serves a right one.
// The process is killed and the directory removed at the end.

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "@std/path";
import { Code } from "@connectrpc/connect";
import { Tensor } from "../../../kernels/tensor.ts";
import { listenAndDo, Program, scale } from "../../../mod.ts";
import { runCli } from "../../../runtime/cli/cli.ts";
import { connectWorker } from "../../../runtime/cluster/worker_client.ts";
import { WorkerCallError } from "../../../runtime/cluster/worker_call_error.ts";
import {
  DEFAULT_WORKER_LIMITS,
  formatLimit,
  WORKER_LIMIT_FLAGS,
} from "../../../runtime/cluster/worker_limits.ts";
import { workerSettings } from "../../../runtime/cluster/worker_settings.ts";
import { RPC_ENDPOINT } from "../../../runtime/ops/rpc.ts";
import { transpileFiles } from "../../../runtime/transpile/transpile_files.ts";
import { ROOT, runRill } from "../../_helpers/rill_process.ts";
import { makeTestTls } from "../cluster/_test_tls.ts";
import {
  startRillWorker,
  stopRillWorkers,
} from "../../_helpers/rill_worker.ts";
import { within } from "../../_helpers/within.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

// The model directory examples/build.ts writes in Paddle's format.
const MLP = `${ROOT}examples/mlp_model`;

/** Runs the CLI in this process; returns its exit code and stderr. */
async function cli(args: string[]): Promise<[number, string]> {
  let stderr = "";
  const { code } = await runCli(args, {
    stdout: () => {},
    stderr: (text) => stderr += text,
  });
  return [code, stderr];
}

Deno.test("README.md and --help list every limit flag with its default", async () => {
  const readme = Deno.readTextFileSync(join(ROOT, "README.md"))
    .replace(/\s+/g, " ");
  let help = "";
  await runCli(["--help"], { stdout: (t) => help += t, stderr: () => {} });
  help = help.replace(/\s+/g, " ");
  for (const { flag, field, unit } of WORKER_LIMIT_FLAGS) {
    const value = formatLimit(unit, DEFAULT_WORKER_LIMITS[field]);
    assertStringIncludes(readme, `\`--${flag} `);
    const listed = new RegExp(
      `\`--${flag} [A-Z]+\` \\(default \`${value}\`\\)`,
    );
    assertEquals(listed.test(readme), true, `README.md: --${flag} ${value}`);
    assertStringIncludes(help, `--${flag} `);
    assertEquals(
      new RegExp(`--${flag} [A-Z]+ worker: [^(]*\\(default ${value}\\)`).test(
        help,
      ),
      true,
      `--help: --${flag} ${value}`,
    );
  }
});

Deno.test("the worker command refuses a bad limit flag with one error line, before reading anything", async () => {
  const worker = ["worker", "missing.pb", "--listen", "127.0.0.1:0"];
  const cases: [string[], string][] = [
    [["--max-calls", "0"], '--max-calls: "0" is not a whole number from 1'],
    [["--max-conns", "1.5"], '--max-conns: "1.5" is not a whole number from 1'],
    [
      ["--call-timeout", "10"],
      '--call-timeout: "10" is not a duration (500ms, 30s, 1.5m, 2h)',
    ],
    [["--idle-timeout", "0s"], '--idle-timeout: "0s" is shorter than 1ms'],
    [["--read-timeout", "600h"], '--read-timeout: "600h" is longer than 596h'],
    [
      ["--max-call-bytes", "12MB"],
      '--max-call-bytes: "12MB" is not a size (4096, 512KiB, 128MiB, 1GiB)',
    ],
    [
      ["--max-conns-per-client"],
      'flag "--max-conns-per-client" needs a value (see --help)',
    ],
  ];
  for (const [flags, message] of cases) {
    assertEquals(await cli([...worker, ...flags]), [1, `error: ${message}\n`]);
  }
  assertEquals(await cli(["dump", "missing.pb", "--max-calls", "2"]), [
    1,
    "error: --max-calls: only the worker command takes it\n",
  ]);
  assertEquals(await cli(["missing.pb", "--call-timeout", "1s"]), [
    1,
    "error: --call-timeout: only the worker command takes it\n",
  ]);
});

Deno.test("a worker process refuses tensors its program does not declare and calls over --max-call-bytes, naming what was expected", async () => {
  await withTempDir(async (dir) => {
    const files = await transpileFiles(MLP, `${dir}/out`);
    const worker = await startRillWorker(files.worker, 30_000, "null", [
      "--max-call-bytes",
      "4KiB",
    ]);
    try {
      using client = connectWorker(worker.addr, {
        token: "",
        timeoutMs: 20_000,
      });
      const refused = async (
        endpoint: string,
        input: Record<string, Tensor>,
      ): Promise<WorkerCallError> => {
        const error = await within(
          20_000,
          client.call(endpoint, input, { program: files.fingerprint })
            .then(() => undefined, (e) => e),
        );
        if (!(error instanceof WorkerCallError)) {
          throw new Error(`served, not refused: ${error}`);
        }
        return error;
      };
      const img = 'variable "img" is declared float32 [-1, 64]';
      const wrongDtype = await refused(RPC_ENDPOINT, {
        input: Tensor.zeros([1, 64], "int64"),
      });
      assertEquals([wrongDtype.code, wrongDtype.detail], [
        Code.InvalidArgument,
        `tensor "input": ${img}, the call sends int64 [1, 64]`,
      ]);
      const wrongShape = await refused(RPC_ENDPOINT, {
        input: Tensor.zeros([1, 8, 8], "float32"),
      });
      assertEquals(
        wrongShape.detail,
        `tensor "input": ${img}, the call sends float32 [1, 8, 8]`,
      );
      const unknown = await refused(RPC_ENDPOINT, {
        img: Tensor.zeros([1, 64], "float32"),
      });
      assertEquals(
        unknown.detail,
        'tensor "img": endpoint "listen_and_do" takes only "input"',
      );
      const tooBig = await refused(RPC_ENDPOINT, {
        input: Tensor.zeros([20, 64], "float32"), // 5,120 bytes
      });
      assertEquals([tooBig.code, tooBig.limit], [
        Code.ResourceExhausted,
        "max-call-bytes",
      ]);
      assertStringIncludes(tooBig.detail, "(--max-call-bytes 4KiB)");
      const reply = await client.call(RPC_ENDPOINT, {
        input: Tensor.zeros([1, 64], "float32"),
      }, { program: files.fingerprint });
      assertEquals(reply.get("output")?.shape, [1, 10]);
    } finally {
      await stopRillWorkers([worker]);
    }
  });
});

Deno.test("the worker command serves with its flags and its program's inputs, and puts the defaults back after", async () => {
  await withTempDir(async (dir) => {
    const program = new Program();
    program.guard(() =>
      listenAndDo((input) => scale(input, { scale: 2 }), { maxRequests: 1 })
    );
    await program.save(`${dir}/worker.pb`);
    const listening = Promise.withResolvers<string>();
    const run = runCli([
      "worker",
      `${dir}/worker.pb`,
      "--listen",
      "127.0.0.1:0",
      "--max-calls",
      "3",
      "--insecure",
    ], {
      stdout: (line) => {
        const addr = /^listening on (\S+)/.exec(line)?.[1];
        if (addr !== undefined) listening.resolve(addr);
      },
      stderr: (text) => {
        if (!text.startsWith("warning: --insecure")) {
          listening.reject(new Error(text));
        }
      },
    });
    run.catch(listening.reject);
    const addr = await within(20_000, listening.promise);
    assertEquals(workerSettings().limits.maxCalls, 3);
    using client = connectWorker(addr, { token: "", timeoutMs: 20_000 });
    const wrong = await within(
      20_000,
      client.call(RPC_ENDPOINT, { input: Tensor.zeros([2], "int64") })
        .then(() => undefined, (e) => e),
    );
    if (!(wrong instanceof WorkerCallError)) {
      throw new Error(`served: ${wrong}`);
    }
    assertEquals([wrong.code, wrong.detail], [
      Code.InvalidArgument,
      'tensor "input": variable "input" is declared float32, the call sends int64 [2]',
    ]);
    // A refused call never reaches the program: max_requests is still 1.
    const x = Tensor.fromArray([1.5, -2], "float32");
    const reply = await client.call(RPC_ENDPOINT, { input: x });
    assertEquals(reply.get("output")?.toNested(), [3, -4]);
    // Hang up, as a master does after its last call: the server then has
    // no connection to cut (Deno 2.9 now and then crashes when a server
    // cuts a client's connection in the same process).
    client.close();
    assertEquals(await within(20_000, run), { code: 0 });
    assertEquals(workerSettings().limits, DEFAULT_WORKER_LIMITS);
    assertEquals(workerSettings().inputs, undefined);
  });
});

Deno.test({
  name:
    "the worker command refuses to serve without a token, unless --insecure, which it warns of",
  ignore: Deno.env.get("RILL_TOKEN") !== undefined,
  async fn() {
    const [code, stderr] = await cli([
      "worker",
      "missing.pb",
      "--listen",
      "127.0.0.1:0",
    ]);
    assertEquals([code, stderr], [
      1,
      "error: worker: no token in RILL_TOKEN: a worker without one serves " +
      "anyone who reaches it (set RILL_TOKEN on the worker and its master, " +
      "or give --insecure)\n",
    ]);
    const [insecure, warned] = await cli([
      "worker",
      "missing.pb",
      "--listen",
      "127.0.0.1:0",
      "--insecure",
    ]);
    // It warns, then goes on to the program, which is missing.
    assertEquals(insecure, 1);
    assertStringIncludes(
      warned,
      "warning: --insecure: no RILL_TOKEN; this worker serves anyone who reaches it\n",
    );
    assertStringIncludes(warned, "error: missing.pb: cannot read program");
  },
});

Deno.test("--tls-cert needs --tls-key, and both must be readable", async () => {
  const base = ["worker", "w.pb", "--listen", "127.0.0.1:0", "--insecure"];
  assertEquals(await cli([...base, "--tls-cert", "c.pem"]), [
    1,
    "error: --tls-cert: needs --tls-key too\n",
  ]);
  const [code, stderr] = await cli([
    ...base,
    "--tls-cert",
    "/nonexistent/c.pem",
    "--tls-key",
    "k.pem",
  ]);
  assertEquals(code, 1);
  assertStringIncludes(
    stderr,
    'error: --tls-cert: cannot read "/nonexistent/c.pem"',
  );
});

Deno.test("a master with --tls-ca and a token runs a model on a TLS worker that holds the same token; without the CA it fails with one error line", async () => {
  await withTempDir(async (dir) => {
    const tls = await makeTestTls();
    await Deno.writeTextFile(`${dir}/ca.pem`, tls.caPem);
    await Deno.writeTextFile(`${dir}/cert.pem`, tls.certPem);
    await Deno.writeTextFile(`${dir}/key.pem`, tls.keyPem);
    const files = await transpileFiles(MLP, `${dir}/out`);
    const env = { RILL_TOKEN: "s3cret-token" };
    const worker = await startRillWorker(files.worker, 30_000, "null", [
      "--tls-cert",
      `${dir}/cert.pem`,
      "--tls-key",
      `${dir}/key.pem`,
    ], env);
    try {
      const args = [
        files.master,
        "--feed",
        `img=${ROOT}examples/data/mlp_img.npy`,
      ];
      const single = await runRill([
        MLP,
        "--feed",
        `img=${ROOT}examples/data/mlp_img.npy`,
      ]);
      assertEquals(single.code, 0, single.stderr);
      const run = await within(
        60_000,
        runRill([
          ...args,
          "--worker-addrs",
          worker.addr,
          "--tls-ca",
          `${dir}/ca.pem`,
        ], env),
      );
      assertEquals([run.code, run.stdout], [0, single.stdout], run.stderr);
      // The CA from the environment serves as well as the flag.
      const viaEnv = await within(
        60_000,
        runRill([...args, "--worker-addrs", worker.addr], {
          ...env,
          RILL_TLS_CA: `${dir}/ca.pem`,
        }),
      );
      assertEquals(viaEnv.stdout, single.stdout, viaEnv.stderr);
      // Plain HTTP/2 to a TLS worker: refused, one line, no stack trace.
      const plain = await within(
        60_000,
        runRill([...args, "--worker-addrs", worker.addr], env),
      );
      assert(plain.code !== 0);
      assert(!plain.stderr.includes("    at "), plain.stderr);
    } finally {
      await stopRillWorkers([worker]);
    }
  });
});

Deno.test("a master refuses to run on workers of another transpiled pair: one error line naming both fingerprints, exit 1", async () => {
  await withTempDir(async (dir) => {
    // Two pairs from one model: the masters differ (another selector), so
    // the fingerprints do.
    const a = await transpileFiles(MLP, `${dir}/a`);
    const b = await transpileFiles(MLP, `${dir}/b`, { labelSelector: "x=y" });
    assert(a.fingerprint !== b.fingerprint);
    const worker = await startRillWorker(b.worker, 30_000);
    try {
      const feed = `img=${ROOT}examples/data/mlp_img.npy`;
      const run = await within(
        60_000,
        runRill([a.master, "--feed", feed, "--worker-addrs", worker.addr]),
      );
      assertEquals(run.code, 1, run.stderr);
      assertEquals(run.stdout, "");
      assertEquals(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
      assertStringIncludes(run.stderr, `error: worker ${worker.addr}: `);
      assertStringIncludes(
        run.stderr,
        `this worker serves program ${b.fingerprint}, the call comes from program ${a.fingerprint}`,
      );
      // Its own master runs.
      const own = await within(
        60_000,
        runRill([b.master, "--feed", feed, "--worker-addrs", worker.addr]),
      );
      assertEquals(own.code, 0, own.stderr);
    } finally {
      await stopRillWorkers([worker]);
    }
  });
});

Deno.test("a worker refuses to start with parameters other than its program was transpiled with: one error line naming the file", async () => {
  await withTempDir(async (dir) => {
    const files = await transpileFiles(MLP, `${dir}/pair`);
    const file = files.workerParams;
    if (file === undefined) {
      throw new Error("the MLP's worker has no parameters");
    }
    const params = await Deno.readFile(file);
    // Same size and shapes, one weight changed: only the digest can tell.
    params[params.length - 1] ^= 0x40;
    await Deno.writeFile(file, params);
    const r = await within(
      60_000,
      runRill(["worker", files.worker, "--listen", "127.0.0.1:0"], {
        RILL_TOKEN: "t0ken",
      }),
    );
    assertEquals(r.code, 1, r.stderr);
    assertEquals(r.stdout, "");
    assertEquals(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
    assertStringIncludes(
      r.stderr,
      `error: ${file}: not the parameters the worker program was transpiled with (digest `,
    );
  });
});

Deno.test("--drain-timeout and --health-listen are checked before anything is read, one error line each", async () => {
  const base = ["worker", "w.pb", "--listen", "127.0.0.1:0", "--insecure"];
  assertEquals(await cli([...base, "--drain-timeout", "soon"]), [
    1,
    'error: --drain-timeout: "soon" is not a duration (500ms, 30s, 1.5m, 2h)\n',
  ]);
  const [code, stderr] = await cli([...base, "--health-listen", "nowhere"]);
  assertEquals(code, 1);
  assert(stderr.startsWith("error: --health-listen"), stderr);
  assertEquals(stderr.split("\n").length, 2, stderr);
});

Deno.test("the worker command refuses a program that is not a worker program, with one error line", async () => {
  const [code, stderr] = await cli([
    "worker",
    "examples/mult.pb",
    "--listen",
    "127.0.0.1:0",
    "--insecure",
  ]);
  assertEquals(code, 1);
  assertEquals(
    stderr.split("\n").filter((l) => l.startsWith("error: ")),
    [
      "error: examples/mult.pb: not a worker program: it has no listen_and_do op (transpile makes one)",
    ],
  );
});

Deno.test("a master refuses a worker whose TLS certificate has expired, with one error line naming the worker", async () => {
  await withTempDir(async (dir) => {
    const tls = await makeTestTls({ serverExpired: true });
    await Deno.writeTextFile(`${dir}/ca.pem`, tls.caPem);
    await Deno.writeTextFile(`${dir}/cert.pem`, tls.certPem);
    await Deno.writeTextFile(`${dir}/key.pem`, tls.keyPem);
    const files = await transpileFiles(MLP, `${dir}/out`);
    const env = { RILL_TOKEN: "s3cret-token" };
    const worker = await startRillWorker(files.worker, 30_000, "null", [
      "--tls-cert",
      `${dir}/cert.pem`,
      "--tls-key",
      `${dir}/key.pem`,
    ], env);
    try {
      const run = await within(
        60_000,
        runRill([
          files.master,
          "--feed",
          `img=${ROOT}examples/data/mlp_img.npy`,
          "--worker-addrs",
          worker.addr,
          "--tls-ca",
          `${dir}/ca.pem`,
        ], env),
      );
      assertEquals([run.code, run.stdout], [1, ""], run.stderr);
      assertEquals(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
      assertStringIncludes(run.stderr, `error: worker ${worker.addr}: `);
      // Deno's TLS says why only as much as "unable to verify".
      assertStringIncludes(run.stderr, "certificate");
    } finally {
      await stopRillWorkers([worker]);
    }
  });
});
