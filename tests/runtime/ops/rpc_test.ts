// listen_and_do, send and recv in one process, over 127.0.0.1: a served
// block answers each call; a thread's recvs take its own sends' replies,
// in order; a recv with no send panics.

import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import {
  arrayLength,
  Executor,
  fillConstant,
  kubeGetWorkersAddrs,
  listenAndDo,
  print,
  Program,
  rpcRecv,
  rpcSend,
  scale,
} from "../../../mod.ts";
import { RPC_OPS } from "../../../runtime/ops/rpc.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { within } from "../../_helpers/within.ts";

/** Runs a worker serving `scale(input, 2)` for `maxRequests` calls. */
function startWorker(maxRequests: number): {
  addr: Promise<string>;
  done: Promise<unknown>;
} {
  const program = new Program();
  program.guard(() =>
    listenAndDo((input) => scale(input, { scale: 2 }), { maxRequests })
  );
  const addr = Promise.withResolvers<string>();
  const done = new Executor({
    print: (line) => {
      if (line.startsWith("listening on ")) addr.resolve(line.slice(13));
    },
  }).run(program);
  done.catch(addr.reject);
  return { addr: addr.promise, done };
}

Deno.test("RPC_OPS lists listen_and_do, send and recv", () => {
  assertEquals(RPC_OPS.map((d) => d.type), ["listen_and_do", "send", "recv"]);
});

Deno.test("listen_and_do serves max_requests calls; recv pairs with send in order", async () => {
  const worker = startWorker(2);
  const addr = await within(10_000, worker.addr);
  const master = new Program();
  master.guard(() => {
    const workers = kubeGetWorkersAddrs();
    print(arrayLength(workers), { message: "workers" });
    rpcSend(fillConstant({ shape: [2], value: 3 }), workers);
    rpcSend(fillConstant({ shape: [3], value: 4 }), workers);
    print(rpcRecv(workers), { message: "first" });
    print(rpcRecv(workers), { message: "second" });
  });
  const lines: string[] = [];
  await within(
    10_000,
    new Executor({
      cluster: { workerAddrs: addr },
      print: (l) => lines.push(l),
    }).run(master),
  );
  await within(10_000, worker.done);
  assertEquals(lines, ["workers 1", "first [6, 6]", "second [8, 8, 8]"]);
});

Deno.test("recv with no send waiting panics, naming the endpoint", async () => {
  const master = new Program();
  master.guard(() => print(rpcRecv(kubeGetWorkersAddrs())));
  const e = await assertRejects(
    () =>
      new Executor({ cluster: { workerAddrs: "127.0.0.1:9" }, print: () => {} })
        .run(master),
    Panic,
  );
  assertStringIncludes(e.message, 'no send to "127.0.0.1:9"');
  assertEquals(e.where, "block 0 op 1 recv");
});

Deno.test("recv panics with the worker's address when nothing listens", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const master = new Program();
  master.guard(() => {
    const workers = kubeGetWorkersAddrs();
    rpcSend(fillConstant({ shape: [1] }), workers);
    print(rpcRecv(workers));
  });
  const e: Panic = await within(
    15_000,
    assertRejects(
      () =>
        new Executor({
          cluster: { workerAddrs: `127.0.0.1:${port}` },
          print: () => {},
        }).run(master),
      Panic,
    ),
  );
  assertStringIncludes(e.message, `worker 127.0.0.1:${port}`);
  assert(e.message.startsWith("recv: "), e.message);
});
