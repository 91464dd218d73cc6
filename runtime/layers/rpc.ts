/**
 * Builders of the RPC ops: `listenAndDo(body)` builds the block a worker
 * serves; `rpcSend` and `rpcRecv` call it from a master (named apart from
 * the channel builders `send` and `recv`).
 *
 * @module
 */
import type { DType } from "../../kernels/dtype.ts";
import { defaultProgram, type Variable } from "../build/program.ts";
import { appendLayer, out1 } from "./append_layer.ts";

/** Options of {@linkcode listenAndDo}. */
export interface ListenAndDoOptions {
  /**
   * Where to listen, `host:port` (port 0 picks one); `--listen` overrides
   * it.
   *
   * @default {"127.0.0.1:0"}
   */
  endpoint?: string;
  /** A RAW variable holding where to listen; overrides both. */
  endpointVar?: Variable;
  /**
   * Stop serving after this many calls; 0 serves until the process ends.
   *
   * @default {0}
   */
  maxRequests?: number;
  /** The input's element type, for the block's declaration. @default {"float32"} */
  dtype?: DType;
}

/**
 * `listen_and_do`: serves `body` on the network. Each call runs it on a new
 * green thread with `input` bound to the call's tensor, and replies with
 * the variable `body` returns. The op prints `listening on HOST:PORT`
 * once it serves.
 *
 * @param body Builds the served block: gets the input, returns the output.
 * @param options Where to listen, and when to stop.
 *
 * @example Usage
 * ```ts
 * import { listenAndDo, Program, scale } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => listenAndDo((input) => scale(input, { scale: 2 })));
 * assertEquals(p.desc.blocks[0].ops[0].type, "listen_and_do");
 * assertEquals(p.desc.blocks[1].ops[0].type, "scale");
 * ```
 */
export function listenAndDo(
  body: (input: Variable) => Variable,
  options: ListenAndDoOptions = {},
): void {
  const program = defaultProgram();
  const outer = program.currentBlock;
  let input: Variable | undefined;
  let output: Variable | undefined;
  const block = program.subBlock(() => {
    input = program.currentBlock.createVar({
      name: "input",
      dtype: options.dtype ?? "float32",
    });
    const result = body(input);
    output = program.currentBlock.createVar({
      name: "output",
      dtype: result.dtype,
    });
    appendLayer("assign", { X: result }, {}, { Out: output });
  });
  outer.appendOp({
    type: "listen_and_do",
    inputs: { Endpoint: options.endpointVar },
    attrs: {
      endpoint: options.endpoint,
      sub_block: block,
      input_var: input!.name,
      output_var: output!.name,
      max_requests: options.maxRequests,
    },
  });
}

/** Options of {@linkcode rpcSend} and {@linkcode rpcRecv}. */
export interface RpcOptions {
  /** Which endpoint of the list (int tensor of one element). @default {the first} */
  index?: Variable;
}

/**
 * `send`: starts a call of `endpoints[index]` with `x`; the same green
 * thread's next {@linkcode rpcRecv} from that endpoint takes the reply.
 *
 * @param x The tensor to send.
 * @param endpoints The workers' `host:port` list (RAW).
 * @param options Which one.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, kubeGetWorkersAddrs, Program, rpcRecv, rpcSend } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const workers = kubeGetWorkersAddrs();
 *   rpcSend(fillConstant({ shape: [2] }), workers);
 *   rpcRecv(workers);
 * });
 * assertEquals(p.desc.blocks[0].ops.map((o) => o.type).slice(-2), ["send", "recv"]);
 * ```
 */
export function rpcSend(
  x: Variable,
  endpoints: Variable,
  options: RpcOptions = {},
): void {
  appendLayer("send", { X: x, Endpoints: endpoints, Index: options.index });
}

/**
 * `recv`: the reply to this green thread's oldest unanswered
 * {@linkcode rpcSend} to `endpoints[index]`.
 *
 * @param endpoints The workers' `host:port` list (RAW).
 * @param options Which one, and where to write.
 * @returns The reply's tensor.
 *
 * @example Usage
 * ```ts
 * import { kubeGetWorkersAddrs, Program, rpcRecv } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => rpcRecv(kubeGetWorkersAddrs())).kind, "tensor");
 * ```
 */
export function rpcRecv(
  endpoints: Variable,
  options: RpcOptions & { out?: Variable } = {},
): Variable {
  return out1(
    "recv",
    { Endpoints: endpoints, Index: options.index },
    {},
    options,
  );
}
