// A real worker process (`deno run -A mod.ts worker …`) sent SIGTERM with a
// call in flight: its health turns NOT_SERVING, a new call is refused with
// unavailable, the call in flight completes, and the process exits 0 with
// one line. Every wait is bounded and the process is killed at the end.

import { assert, assertEquals } from "@std/assert";
import { Code, createClient } from "@connectrpc/connect";
import {
  createGrpcTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import {
  Health,
  HealthCheckResponse_ServingStatus as Status,
} from "../../../gen/grpc/health/v1/health_pb.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { listenAndDo, Program, scale, sleep } from "../../../mod.ts";
import { connectWorker } from "../../../runtime/cluster/worker_client.ts";
import { WorkerCallError } from "../../../runtime/cluster/worker_call_error.ts";
import { RPC_ENDPOINT } from "../../../runtime/ops/rpc.ts";
import { ROOT } from "../../_helpers/rill_process.ts";
import { lineReader } from "../../_helpers/line_reader.ts";
import { within } from "../../_helpers/within.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

const TOKEN = "drain-test-token";

/** How long the served block sleeps: the call stays in flight that long. */
const CALL_MS = 5_000;

/** The address in `line`, which `pattern` must match. */
function addrIn(pattern: RegExp, line: string | undefined): string {
  const match = pattern.exec(line ?? "");
  if (match === null) throw new Error(`printed ${JSON.stringify(line)}`);
  return match[1];
}

/** The gRPC health status of the server at `addr`, asked without a token. */
async function healthOf(addr: string): Promise<Status> {
  const sessionManager = new Http2SessionManager(`http://${addr}`);
  try {
    const client = createClient(
      Health,
      createGrpcTransport({ baseUrl: `http://${addr}`, sessionManager }),
    );
    return (await client.check({ service: "" }, { timeoutMs: 5_000 })).status;
  } finally {
    sessionManager.abort();
  }
}

Deno.test("drainOnSigterm(): a SIGTERM'd worker finishes its call in flight, refuses new ones, and exits 0 with one line", async () => {
  await withTempDir(async (dir) => {
    const program = new Program();
    program.guard(() =>
      listenAndDo((input) => {
        sleep(CALL_MS);
        return scale(input, { scale: 2 });
      })
    );
    await program.save(`${dir}/worker.pb`);
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        `${ROOT}mod.ts`,
        "worker",
        `${dir}/worker.pb`,
        "--listen",
        "127.0.0.1:0",
        "--health-listen",
        "127.0.0.1:0",
        "--drain-timeout",
        "30s",
      ],
      cwd: ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1", RILL_TOKEN: TOKEN },
    }).spawn();
    try {
      const stderr = lineReader(child.stderr);
      const healthAddr = addrIn(/^health on (\S+)$/, await stderr.next());
      const stdout = lineReader(child.stdout);
      const addr = addrIn(/^listening on (\S+)$/, await stdout.next());
      assertEquals(await healthOf(healthAddr), Status.SERVING);
      assertEquals(await healthOf(addr), Status.SERVING);

      using client = connectWorker(addr, { token: TOKEN, timeoutMs: 30_000 });
      const x = Tensor.fromArray([1.5, -2], "float32");
      const call = client.call(RPC_ENDPOINT, { input: x });
      call.catch(() => {});
      for (let i = 0; i < 500; i++) {
        if ((await client.health()).callsInFlight === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assertEquals((await client.health()).callsInFlight, 1);
      child.kill("SIGTERM");
      for (let i = 0; i < 200; i++) {
        if (await healthOf(healthAddr) === Status.NOT_SERVING) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assertEquals(await healthOf(healthAddr), Status.NOT_SERVING);
      assertEquals(await healthOf(addr), Status.NOT_SERVING);

      using late = connectWorker(addr, { token: TOKEN, timeoutMs: 5_000 });
      const refused = await within(
        5_000,
        late.call(RPC_ENDPOINT, { input: x }).then(() => undefined, (e) => e),
      );
      assert(refused instanceof WorkerCallError, `served: ${refused}`);
      assertEquals(refused.code, Code.Unavailable, refused.message);
      late.close();

      const reply = await within(30_000, call);
      assertEquals(reply.get("output")?.toNested(), [3, -4]);
      client.close();
      const status = await within(30_000, child.status);
      assertEquals(status.code, 0);
      assertEquals(
        await stderr.rest(),
        "worker: drained 1 call, exiting\n",
      );
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
