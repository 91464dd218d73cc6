/**
 * The RPC layer (runtime/cluster/worker_server.ts and worker_client.ts),
 * loaded on first use by `send`, `recv` and `listen_and_do`. It imports
 * `@connectrpc/*`, which a run of any other program must not fetch
 * (tests/first_run_test.ts), so:
 *
 * - the specifiers are computed, not string literals, which keeps the
 *   modules out of `mod.ts`'s module graph;
 * - the types below are the parts of the layer's API the ops use, written
 *   out here, because even an `import type` puts a module in the graph
 *   that `deno info` walks. `tests/runtime/ops/rpc_test.ts` checks they
 *   fit the real modules.
 *
 * @module
 */
import type { Tensor } from "../../kernels/tensor.ts";

/** A call's tensors by name (worker_server.ts's `NamedTensors`). */
export type RpcTensors = Readonly<Record<string, Tensor>> | Map<string, Tensor>;

/** What `serveWorker` passes a handler besides the tensors. */
export interface RpcCallContext {
  /** Aborted when the call ends early. */
  readonly signal: AbortSignal;
}

/** A serving worker (worker_server.ts's `WorkerServer`). */
export interface RpcServer {
  /** `host:port` as bound. */
  readonly addr: string;
  /** How many calls it is serving now. */
  readonly callsInFlight: number;
  /** Stops serving. */
  close(): Promise<void>;
}

/** The options of `serveWorker` that the ops set. */
export interface RpcServeOptions {
  /** Runs each call. */
  handler(
    endpoint: string,
    tensors: Map<string, Tensor>,
    context: RpcCallContext,
  ): RpcTensors | Promise<RpcTensors>;
  /** The address to bind. */
  host?: string;
  /** The port; 0 picks one. */
  port?: number;
  /** The transpiled pair's fingerprint; calls naming another are refused. */
  program?: string;
}

/** A connection to a worker (worker_client.ts's `WorkerClient`). */
export interface RpcClient {
  /** The worker's `host:port`. */
  readonly addr: string;
  /** Runs an endpoint on the worker, naming the caller's program. */
  call(
    endpoint: string,
    tensors: RpcTensors,
    options?: { program?: string },
  ): Promise<Map<string, Tensor>>;
  /**
   * Asks whether the worker serves, how many calls it is serving, and how
   * many it has served since it started.
   */
  health(): Promise<
    {
      readonly serving: boolean;
      readonly callsInFlight: number;
      readonly callsServed: bigint;
    }
  >;
  /** Closes the connection. */
  close(): void;
}

/** The parts of worker_server.ts the ops use. */
export interface RpcServerModule {
  /** Serves a worker until closed. */
  serveWorker(options: RpcServeOptions): Promise<RpcServer>;
}

/** The parts of worker_client.ts the ops use. */
export interface RpcClientModule {
  /**
   * Makes a client for the worker at `addr`: over TLS with a CA, with the
   * keepalive and the call deadline in milliseconds.
   */
  connectWorker(
    addr: string,
    options?: { ca?: string; keepaliveMs?: number; timeoutMs?: number },
  ): RpcClient;
}

// Computed, not string literals: see the module's documentation.
const SERVER_URL = new URL("../cluster/worker_server.ts", import.meta.url);
const CLIENT_URL = new URL("../cluster/worker_client.ts", import.meta.url);

let server: Promise<RpcServerModule> | undefined;
let client: Promise<RpcClientModule> | undefined;

/**
 * The worker server module, imported once.
 *
 * @returns The module.
 *
 * @example Usage
 * ```ts
 * import { loadRpcServer } from "./_rpc_modules.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(typeof (await loadRpcServer()).serveWorker, "function");
 * ```
 */
export function loadRpcServer(): Promise<RpcServerModule> {
  server ??= import(SERVER_URL.href);
  return server;
}

/**
 * The worker client module, imported once.
 *
 * @returns The module.
 *
 * @example Usage
 * ```ts
 * import { loadRpcClient } from "./_rpc_modules.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(typeof (await loadRpcClient()).connectWorker, "function");
 * ```
 */
export function loadRpcClient(): Promise<RpcClientModule> {
  client ??= import(CLIENT_URL.href);
  return client;
}
