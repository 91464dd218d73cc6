/**
 * Builders for the channel ops, so the CSP design doc's Python reads
 * naturally in TypeScript: `makeChannel`, `send`, `recv`, `recvOk`,
 * `closeChannel`.
 *
 * @module
 */
import { VarType_Type } from "../../gen/rill/v1/framework_pb.ts";
import type { DType } from "../../kernels/dtype.ts";
import { codeOfDType } from "../core/dtype_codes.ts";
import { defaultProgram, type Variable } from "../build/program.ts";
import { appendLayer } from "./append_layer.ts";

/** Options of `makeChannel`. */
export interface MakeChannelOptions {
  /** The buffer size; 0 is unbuffered. @default {0} */
  capacity?: number;
  /** The element type; absent, the channel carries any tensor. */
  dtype?: DType;
  /** The channel variable's name. */
  name?: string;
}

/**
 * `channel_create`: a new channel. Without a `dtype` the channel carries any
 * tensor, and both its declaration and the op say so: element type
 * LOD_TENSOR (7), "any tensor" (docs/architecture.md §2).
 *
 * @param options Capacity, element type, name.
 * @returns The channel variable.
 *
 * @example Usage
 * ```ts
 * import { makeChannel, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => makeChannel({ capacity: 10, dtype: "int64" })).kind, "channel");
 * ```
 *
 * @example A channel of any tensor is declared so
 * ```ts
 * import { makeChannel, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const ch = p.guard(() => makeChannel());
 * assertEquals(ch.dtype, undefined);
 * assertEquals(p.desc.blocks[0].vars[0].type?.channel?.dataType, 7);
 * ```
 */
export function makeChannel(options: MakeChannelOptions = {}): Variable {
  const block = defaultProgram().currentBlock;
  const ch = block.createVar({
    name: options.name ?? block.program.uniqueName("channel"),
    kind: "channel",
    dtype: options.dtype,
    capacity: options.capacity,
  });
  const dataType = options.dtype === undefined
    ? VarType_Type.LOD_TENSOR
    : codeOfDType(options.dtype);
  appendLayer("channel_create", {}, {
    capacity: options.capacity,
    data_type: dataType,
  }, { Out: ch });
  return ch;
}

/**
 * `channel_send`: sends `x` on `ch`.
 *
 * @param ch The channel.
 * @param x The tensor.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, makeChannel, Program, send } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => send(makeChannel({ capacity: 1 }), fillConstant({ shape: [1] })));
 * assertEquals(p.desc.blocks[0].ops.at(-1)?.type, "channel_send");
 * ```
 */
export function send(ch: Variable, x: Variable): void {
  appendLayer("channel_send", { Channel: ch, X: x });
}

/** Options of `recv`. */
export interface RecvOptions {
  /** Write the value into this variable. */
  out?: Variable;
  /** Write whether the value came from a send (true) into this variable. */
  status?: Variable;
}

/**
 * `channel_recv`: a value received from `ch`.
 *
 * @param ch The channel.
 * @param options Where to write the value and the status.
 * @returns The value variable.
 *
 * @example Usage
 * ```ts
 * import { makeChannel, Program, recv } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => recv(makeChannel())).kind, "tensor");
 * ```
 */
export function recv(ch: Variable, options: RecvOptions = {}): Variable {
  return appendLayer("channel_recv", { Channel: ch }, {}, {
    Out: options.out,
    Status: options.status,
  }).Out[0];
}

/**
 * `channel_recv` with its status: `[value, ok]`, ok false once `ch` is
 * closed and drained (Go's `v, ok := <-ch`).
 *
 * @param ch The channel.
 * @returns The value and status variables.
 *
 * @example Usage
 * ```ts
 * import { makeChannel, Program, recvOk } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const [, ok] = p.guard(() => recvOk(makeChannel()));
 * assertEquals(ok.dtype, "bool");
 * ```
 */
export function recvOk(ch: Variable): [Variable, Variable] {
  const block = defaultProgram().currentBlock;
  const ok = block.createVar({
    name: block.program.uniqueName("channel_recv.status"),
    dtype: "bool",
    shape: [1],
  });
  return [recv(ch, { status: ok }), ok];
}

/**
 * `channel_close`: closes `ch`.
 *
 * @param ch The channel.
 *
 * @example Usage
 * ```ts
 * import { closeChannel, makeChannel, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => closeChannel(makeChannel()));
 * assertEquals(p.desc.blocks[0].ops.at(-1)?.type, "channel_close");
 * ```
 */
export function closeChannel(ch: Variable): void {
  appendLayer("channel_close", { Channel: ch });
}
