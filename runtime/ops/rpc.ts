/**
 * The RPC ops (docs/architecture.md §3): a worker serves a block with `listen_and_do`;
 * a master calls it with `send` and takes the reply with `recv`.
 *
 * On the wire (proto/rill/v1/rpc.proto) a call goes to the endpoint named
 * {@linkcode RPC_ENDPOINT} and carries one tensor, named `input`; the reply
 * carries one, named `output`. The names inside the worker's block are its
 * own (`input_var`, `output_var`), so a master needs to know only where
 * its workers are.
 *
 * Pairing. Each green thread keeps, per endpoint address, a FIFO queue of
 * the calls its `send`s started and no `recv` has taken yet:
 *
 * - `send` starts a call and appends it to its thread's queue for that
 *   address; it does not wait for the reply.
 * - `recv` takes the head of the queue for its address and waits for that
 *   call's reply. A `recv` with nothing queued panics: nothing would ever
 *   answer it.
 *
 * So on one thread the k-th `recv` from an address gets the reply to the
 * k-th `send` to it, and threads never see each other's replies, whatever
 * order the workers answer in.
 *
 * While a call is in flight, the run holds the scheduler (`hold()`), so a
 * thread waiting for a reply is never mistaken for a deadlock.
 *
 * @module
 */
import type { Tensor } from "../../kernels/tensor.ts";
import { itemSize } from "../../kernels/dtype.ts";
import type { RunTracer } from "../core/run_tracer.ts";
import { RPC_TRACK } from "../core/trace_event.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import { Panic } from "../../scheduler/panic.ts";
import { runBlock } from "../exec/block_runner.ts";
import { parseHostPort } from "../cluster/host_port.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";
import { Scope } from "../core/scope.ts";
import { ProgramError } from "../core/errors.ts";
import type { RunServices } from "../core/thread_context.ts";
import { threadContext } from "../exec/thread_context.ts";
import type { VarRef } from "../core/var_ref.ts";
import {
  loadRpcClient,
  loadRpcServer,
  type RpcClient,
  type RpcServer,
  type RpcTensors,
} from "./_rpc_modules.ts";

/** The endpoint `send` calls and `listen_and_do` serves. */
export const RPC_ENDPOINT = "listen_and_do";

/**
 * The name of the tensor a call carries.
 *
 * @example Usage
 * ```ts
 * import { RPC_INPUT_TENSOR } from "./rpc.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(RPC_INPUT_TENSOR, "input");
 * ```
 */
export const RPC_INPUT_TENSOR = "input";
/** The name of the tensor a reply carries. */
const OUTPUT_TENSOR = "output";

// Calls started by `send` and not yet taken by `recv`: per green thread,
// per address, in the order they started. Each promise already has a
// rejection handler, so a call no `recv` takes never becomes an unhandled
// rejection.
const pendingCalls = new WeakMap<GreenThread, Map<string, Promise<Tensor>[]>>();

// A run's open connections by address. A connection lives while calls to
// its worker are in flight and closes when the last one ends, so a run
// leaves no socket open behind it.
interface OpenClient {
  readonly client: RpcClient;
  inFlight: number;
}
const openClients = new WeakMap<RunServices, Map<string, OpenClient>>();

function endpointOf(
  endpoints: VarRef,
  index: VarRef | undefined,
  scope: Scope,
): string {
  const list = endpoints.raw(scope);
  let i = 0;
  if (index !== undefined) {
    const t = index.tensor(scope);
    if (t.size !== 1) {
      throw new RangeError(
        `index "${index.name}" must hold one element, has ${t.size}`,
      );
    }
    i = Number(t.item(0));
  }
  if (!(Number.isInteger(i) && i >= 0 && i < list.length)) {
    throw new RangeError(
      `index ${i} is out of range for Endpoints "${endpoints.name}" of ${list.length}`,
    );
  }
  return list[i];
}

// A worker that cannot be reached, refuses the token or serves another
// transpiled pair is a deployment mistake, not the program's: a
// ProgramError, which the CLI reports as one `error:` line (exit 1) rather
// than a panic with a goroutine dump. Anything else stays the op's panic.
function operationalError(e: unknown): never {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === "number" && OPERATIONAL_CODES.has(code)) {
    throw new ProgramError((e as Error).message);
  }
  throw e;
}

// Connect's codes FailedPrecondition, Unavailable and Unauthenticated; this
// module loads no RPC library before a call (see _rpc_modules.ts).
const OPERATIONAL_CODES: ReadonlySet<number> = new Set([9, 14, 16]);

// One call on the run's connection to `addr`; the connection closes when
// its last call ends.
async function callWorker(
  run: RunServices,
  addr: string,
  x: Tensor,
  program: string,
): Promise<Tensor> {
  // Started before the first await, while the calling thread runs.
  const traced = run.tracer && traceCall(run.tracer, addr, x);
  const { connectWorker } = await loadRpcClient();
  let clients = openClients.get(run);
  if (clients === undefined) openClients.set(run, clients = new Map());
  let open = clients.get(addr);
  if (open === undefined) {
    const ca = run.cluster?.tlsCa;
    open = { client: connectWorker(addr, { ca }), inFlight: 0 };
    clients.set(addr, open);
  }
  open.inFlight++;
  try {
    const reply = await open.client.call(RPC_ENDPOINT, {
      [RPC_INPUT_TENSOR]: x,
    }, { program }).catch(operationalError);
    const y = onlyTensor(reply, `the reply of worker ${addr}`);
    traced?.(y);
    return y;
  } finally {
    if (--open.inFlight === 0) {
      clients.delete(addr);
      open.client.close();
    }
  }
}

// A traced run's RPC call: a span on the worker's RPC track from the call
// to its reply, with the calling thread and the bytes each way.
function traceCall(
  tracer: RunTracer,
  addr: string,
  x: Tensor,
): (y: Tensor) => void {
  const start = tracer.now();
  const thread = tracer.current?.id;
  return (y) =>
    tracer.span(RPC_TRACK, `call ${addr}`, "rpc", start, {
      addr,
      thread,
      sentBytes: x.size * itemSize(x.dtype),
      receivedBytes: y.size * itemSize(y.dtype),
    });
}

/** The one tensor of a request or reply. */
function onlyTensor(tensors: Map<string, Tensor>, what: string): Tensor {
  if (tensors.size !== 1) {
    throw new RangeError(
      `${what} carries ${tensors.size} tensors, not 1 (${
        [...tensors.keys()].map((n) => `"${n}"`).join(", ")
      })`,
    );
  }
  return tensors.values().next().value!;
}

const send = defineOp({
  type: "send",
  summary:
    "starts a call of Endpoints[Index] (default 0) with X; the thread's next recv from that endpoint takes the reply",
  inputs: {
    X: slot.tensor(),
    Endpoints: slot.raw(),
    Index: slot.tensor({ optional: true }),
  },
  outputs: {},
  attrs: { fingerprint: attr.string("") },
  prepare(ctx) {
    const x = ctx.input("X");
    const program = ctx.attrs.fingerprint;
    const endpoints = ctx.input("Endpoints");
    const index = ctx.optionalInput("Index");
    return (scope, thread) => {
      const addr = endpointOf(endpoints, index, scope);
      parseHostPort(addr, { source: `Endpoints "${endpoints.name}"` });
      const release = thread.run.scheduler.hold();
      const call = callWorker(thread.run, addr, x.tensor(scope), program);
      call.then(release, release);
      let queues = pendingCalls.get(thread.thread);
      if (queues === undefined) {
        pendingCalls.set(thread.thread, queues = new Map());
      }
      const queue = queues.get(addr);
      if (queue === undefined) queues.set(addr, [call]);
      else queue.push(call);
    };
  },
});

const recv = defineOp({
  type: "recv",
  summary:
    "Out = the reply to this thread's oldest unanswered send to Endpoints[Index] (default 0)",
  inputs: {
    Endpoints: slot.raw(),
    Index: slot.tensor({ optional: true }),
  },
  outputs: { Out: slot.tensor() },
  attrs: {},
  prepare(ctx) {
    const endpoints = ctx.input("Endpoints");
    const index = ctx.optionalInput("Index");
    const out = ctx.output("Out");
    return async (scope, thread) => {
      const addr = endpointOf(endpoints, index, scope);
      const queue = pendingCalls.get(thread.thread)?.get(addr);
      const call = queue?.shift();
      if (call === undefined) {
        throw new Panic(
          `recv: no send to "${addr}" is waiting for its reply on this green thread`,
        );
      }
      out.write(scope, await call);
    };
  },
});

const listenAndDo = defineOp({
  type: "listen_and_do",
  summary:
    'serves sub_block at Endpoint (else --listen, else endpoint): each call runs it on a new green thread with input_var bound and replies output_var; prints "listening on HOST:PORT"; returns after max_requests calls (0: never)',
  inputs: { Endpoint: slot.raw({ optional: true }) },
  outputs: {},
  attrs: {
    endpoint: attr.string("127.0.0.1:0"),
    sub_block: attr.block(),
    input_var: attr.string("input"),
    output_var: attr.string("output"),
    max_requests: attr.int(0),
    fingerprint: attr.string(""),
    params_digest: attr.string(""),
  },
  check(a, ctx) {
    for (const name of [a.input_var, a.output_var]) {
      const info = ctx.declaredIn(a.sub_block, name);
      if (info === undefined) {
        throw new RangeError(
          `"${name}" is not declared in block ${a.sub_block}`,
        );
      }
      if (info.kind !== "tensor") {
        throw new RangeError(`"${name}" is a ${info.kind}, not a tensor`);
      }
    }
    if (a.max_requests < 0) {
      throw new RangeError(`max_requests ${a.max_requests} is negative`);
    }
  },
  prepare(ctx) {
    const endpointInput = ctx.optionalInput("Endpoint");
    const a = ctx.attrs;
    const body = ctx.block(a.sub_block, [a.input_var]);
    const inputSlot = body.layout.slotOf(a.input_var)!;
    const outputSlot = body.layout.slotOf(a.output_var)!;
    const goOptions = { createdAt: ctx.location };
    return async (scope, thread) => {
      const run = thread.run;
      const where = endpointInput?.raw(scope)[0] ?? run.cluster?.selfAddr ??
        a.endpoint;
      const { host, port } = listenAddress(where);
      const { serveWorker } = await loadRpcServer();
      let served = 0;
      const stopped = Promise.withResolvers<void>();
      // One call: run the block on a new green thread, reply its output.
      function handle(
        _endpoint: string,
        tensors: Map<string, Tensor>,
      ): Promise<RpcTensors> {
        const input = onlyTensor(tensors, "the call");
        const child = new Scope(body.layout, scope);
        child.values[inputSlot] = input;
        const reply = Promise.withResolvers<RpcTensors>();
        run.scheduler.goFrom(thread.thread, (t) => {
          const finish = () => {
            const output = child.values[outputSlot];
            if (output === undefined) {
              throw new Panic(
                `listen_and_do: the block did not write "${a.output_var}"`,
              );
            }
            reply.resolve({ [OUTPUT_TENSOR]: output as Tensor });
          };
          try {
            const pending = runBlock(body, child, threadContext(run, t));
            if (pending === undefined) return finish();
            return pending.then(finish).catch((e) => reply.reject(asReply(e)));
          } catch (e) {
            reply.reject(asReply(e));
          }
        }, goOptions);
        if (a.max_requests > 0 && ++served === a.max_requests) {
          reply.promise.finally(() => stopped.resolve());
        }
        return reply.promise;
      }
      const program = a.fingerprint === "" ? undefined : a.fingerprint;
      const server = await serveWorker({
        handler: handle,
        host,
        port,
        program,
      });
      run.print(`listening on ${server.addr}`);
      if (a.max_requests === 0) return new Promise<void>(() => {});
      await stopped.promise;
      await untilRepliesSent(server);
      await server.close();
    };
  },
});

// How often, and at most how many times, a server that served its
// max_requests asks itself whether its replies have gone out: closing
// sooner would cut them off (the handler returns before its reply is
// streamed). 5 s in all.
const DRAIN_POLL_MS = 10;
const DRAIN_POLLS = 500;

// Waits until `server` has no call in flight.
async function untilRepliesSent(server: RpcServer): Promise<void> {
  for (let i = 0; i < DRAIN_POLLS && server.callsInFlight > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
  }
}

// Where to listen: a host:port whose port may be 0 (pick one).
function listenAddress(text: string): { host: string; port: number } {
  const source = "listen address";
  const any = /:0$/.test(text.trim());
  const parsed = parseHostPort(any ? `${text.trim().slice(0, -1)}1` : text, {
    source,
  });
  return { host: parsed.host, port: any ? 0 : parsed.port };
}

// A block's failure as the caller sees it: the panic and where it happened.
function asReply(error: unknown): Error {
  if (error instanceof Panic) {
    const at = error.where === undefined ? "" : ` (at ${error.where})`;
    return new Error(`${error.message}${at}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The RPC ops: `listen_and_do`, `send` and `recv`.
 *
 * @example Usage
 * ```ts
 * import { RPC_OPS } from "./rpc.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(RPC_OPS.map((def) => def.type), ["listen_and_do", "send", "recv"]);
 * ```
 */
export const RPC_OPS: readonly OpDef[] = [listenAndDo, send, recv];
