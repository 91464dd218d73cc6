/**
 * Builders for the concurrency ops, so the CSP design doc's Python reads
 * naturally in TypeScript: `makeChannel`, `send`, `recv`, `closeChannel`,
 * `go(() => ...)`, `select(s => { s.send(...); s.recv(...); s.default(...) })`,
 * `sleep`, `after`.
 *
 * @module
 */
import type { DType } from "../kernels/dtype.ts";
import { codeOfDType } from "./dtype_codes.ts";
import { outerVariables } from "./free_variables.ts";
import { appendLayer } from "./layers.ts";
import { type Block, defaultProgram, type Variable } from "./program.ts";

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
 * `channel_create`: a new channel.
 *
 * @param options Capacity, element type, name.
 * @returns The channel variable.
 *
 * @example Usage
 * ```ts
 * import { makeChannel, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => makeChannel({ capacity: 10, dtype: "int64" })).kind, "channel");
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
  appendLayer("channel_create", {}, {
    capacity: options.capacity,
    data_type: options.dtype && codeOfDType(options.dtype),
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
 * import { fillConstant, makeChannel, Program, send } from "../mod.ts";
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
 * import { makeChannel, Program, recv } from "../mod.ts";
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
 * import { makeChannel, Program, recvOk } from "../mod.ts";
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
 * import { closeChannel, makeChannel, Program } from "../mod.ts";
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

function uniqueByName(vars: readonly Variable[]): Variable[] {
  return [...new Map(vars.map((v) => [v.name, v])).values()];
}

/** Options of `go`. */
export interface GoOptions {
  /** Variables bound by value when the `go` op runs (a Go call's arguments). */
  args?: readonly Variable[];
}

/**
 * `go`: runs `body` on a new green thread. Variables the body uses resolve
 * by reference, like a Go closure, except `args`, copied when the op runs.
 *
 * @param body Builds the goroutine's block.
 * @param options Arguments bound by value.
 *
 * @example Usage
 * ```ts
 * import { Executor, fillConstant, go, makeChannel, print, Program, recv, send } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel();
 *   go(() => send(ch, fillConstant({ shape: [1], dtype: "int32", value: 99 })));
 *   print(recv(ch));
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["99"]);
 * ```
 */
export function go(body: () => void, options: GoOptions = {}): void {
  const program = defaultProgram();
  const outer = program.currentBlock;
  const block = program.subBlock(body);
  const { reads, writes } = outerVariables(block);
  outer.appendOp({
    type: "go",
    inputs: {
      X: uniqueByName([...reads, ...writes]),
      Args: options.args ?? [],
    },
    attrs: { sub_block: block },
  });
}

/** Adds the cases of a `select`; each case's body builds its block. */
export interface SelectBuilder {
  /** A send of `x` on `ch`; `body` runs if it is chosen. */
  send(ch: Variable, x: Variable, body?: () => void): void;
  /**
   * A receive from `ch`; `body` gets the value and status variables and
   * runs if it is chosen.
   */
  recv(ch: Variable, body?: (value: Variable, ok: Variable) => void): void;
  /** The default case: runs when no other case is ready. */
  default(body?: () => void): void;
}

/**
 * `select`: waits until one case can proceed and runs it; a uniformly
 * random choice among ready cases; `default` when none is ready.
 *
 * @param build Adds the cases.
 *
 * @example Usage
 * ```ts
 * import { Executor, fillConstant, makeChannel, print, Program, select } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ capacity: 1 });
 *   const x = fillConstant({ shape: [1], value: 7 });
 *   select((s) => {
 *     s.recv(ch, (v) => print(v));
 *     s.default(() => print(x, { message: "nothing ready" }));
 *   });
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["nothing ready 7"]);
 * ```
 */
export function select(build: (s: SelectBuilder) => void): void {
  const program = defaultProgram();
  const outer = program.currentBlock;
  const cases: string[] = [];
  const blocks: Block[] = [];
  const used: Variable[] = [];
  const addCase = (text: string, body: () => void, vars: Variable[]) => {
    cases.push(text);
    blocks.push(program.subBlock(body));
    used.push(...vars);
  };
  build({
    send(ch, x, body = () => {}) {
      addCase(`send,${ch.name},${x.name},`, body, [ch, x]);
    },
    recv(ch, body = () => {}) {
      const value = outer.createVar({
        name: program.uniqueName("select.value"),
      });
      const ok = outer.createVar({
        name: program.uniqueName("select.ok"),
        dtype: "bool",
        shape: [1],
      });
      addCase(
        `recv,${ch.name},${value.name},${ok.name}`,
        () => body(value, ok),
        [ch],
      );
    },
    default(body = () => {}) {
      addCase("default,,,", body, []);
    },
  });
  const free = blocks.flatMap((b) => {
    const { reads, writes } = outerVariables(b);
    return [...reads, ...writes];
  });
  outer.appendOp({
    type: "select",
    inputs: { X: uniqueByName([...used, ...free]) },
    attrs: { cases, sub_blocks: blocks },
  });
}

/**
 * `sleep`: parks the green thread for `ms` milliseconds.
 *
 * @param ms The duration.
 *
 * @example Usage
 * ```ts
 * import { Program, sleep } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => sleep(5));
 * assertEquals(p.desc.blocks[0].ops[0].type, "sleep");
 * ```
 */
export function sleep(ms: number): void {
  appendLayer("sleep", {}, { ms });
}

/**
 * `channel_after`: a channel that delivers `true` once, after `ms`.
 *
 * @param ms The delay.
 * @returns The channel variable.
 *
 * @example Usage
 * ```ts
 * import { after, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => after(10)).kind, "channel");
 * ```
 */
export function after(ms: number): Variable {
  return appendLayer("channel_after", {}, { ms }).Out[0];
}
