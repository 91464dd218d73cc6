/**
 * A run's inputs, bound before block 0 starts: parameters loaded from a
 * model directory, and feeds. A feed is given by the name of the variable
 * it binds. When a block-0 `feed` op writes that variable, as in every
 * program `save_inference_model` writes, the tensor goes to the op's column
 * of the feed list and the op binds it; otherwise the variable is bound
 * directly. Every check happens here, before anything runs: each feed fits
 * its variable's declaration as Paddle checks a feed (`fitsFeed`: kind and
 * dtype, and the shape when the variable says `need_check_feed`), each
 * block-0 `feed` op has a feed, and every
 * `feed` and `fetch` op's column is below the number of such ops on its
 * list (so a list holds no more columns than the program has ops for).
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import {
  describeDeclaration,
  describeTensor,
  fitsFeed,
} from "../core/declared_fit.ts";
import { ProgramError } from "../core/errors.ts";
import type { Scope } from "../core/scope.ts";
import { TensorArray } from "../core/value.ts";

/** A block-0 `feed` op: the variable it binds and where it reads it. */
export interface FeedTarget {
  /** The variable the op writes (its Out): the name a feed is given by. */
  readonly name: string;
  /** The feed list variable (its X), `feed` in Paddle's programs. */
  readonly list: string;
  /** The column of the list the op reads (its `col`). */
  readonly col: number;
  /** The op's index in block 0. */
  readonly op: number;
}

function argument(
  slots: readonly { parameter: string; arguments: string[] }[],
  parameter: string,
): string | undefined {
  return slots.find((s) => s.parameter === parameter)?.arguments[0];
}

function columnOf(attrs: readonly { name: string; i: number }[]): number {
  return attrs.find((a) => a.name === "col")?.i ?? 0;
}

/**
 * The variables block 0's `feed` ops write, in op order: what a Fluid
 * program's user feeds (Fluid's `feed_target_names`).
 *
 * @param desc The program.
 * @returns One entry per feed op.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { feedTargets } from "./feed_binding.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const desc = create(ProgramDescSchema, {
 *   blocks: [{ idx: 0, parentIdx: -1, ops: [{
 *     type: "feed",
 *     inputs: [{ parameter: "X", arguments: ["feed"] }],
 *     outputs: [{ parameter: "Out", arguments: ["img"] }],
 *     attrs: [{ name: "col", type: 0, i: 0 }],
 *   }] }],
 * });
 * assertEquals(feedTargets(desc), [{ name: "img", list: "feed", col: 0, op: 0 }]);
 * ```
 */
export function feedTargets(desc: ProgramDesc): FeedTarget[] {
  const targets: FeedTarget[] = [];
  desc.blocks[0]?.ops.forEach((op, i) => {
    if (op.type !== "feed") return;
    const name = argument(op.outputs, "Out");
    const list = argument(op.inputs, "X");
    if (name === undefined || list === undefined) return; // validation says
    targets.push({ name, list, col: columnOf(op.attrs), op: i });
  });
  return targets;
}

/**
 * The variables block 0's `fetch` ops read, by column: what a Fluid
 * program's user fetches (Fluid's `fetch_targets`).
 *
 * @param desc The program.
 * @returns Their names, in column order.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { fetchTargets } from "./feed_binding.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const fetchOf = (x: string, col: number) => ({
 *   type: "fetch",
 *   inputs: [{ parameter: "X", arguments: [x] }],
 *   outputs: [{ parameter: "Out", arguments: ["fetch"] }],
 *   attrs: [{ name: "col", type: 0, i: col }],
 * });
 * const desc = create(ProgramDescSchema, {
 *   blocks: [{ idx: 0, parentIdx: -1, ops: [fetchOf("b", 1), fetchOf("a", 0)] }],
 * });
 * assertEquals(fetchTargets(desc), ["a", "b"]);
 * ```
 */
export function fetchTargets(desc: ProgramDesc): string[] {
  const targets: { name: string; col: number }[] = [];
  for (const op of desc.blocks[0]?.ops ?? []) {
    const name = op.type === "fetch" ? argument(op.inputs, "X") : undefined;
    if (name !== undefined) targets.push({ name, col: columnOf(op.attrs) });
  }
  return targets.sort((a, b) => a.col - b.col).map((t) => t.name);
}

/** Options of `bindRunInputs`. */
export interface BindRunInputsOptions {
  /** Tensors for persistable variables, bound as they are. @default {none} */
  parameters?: ReadonlyMap<string, Tensor>;
  /** Tensors by the name of the variable each binds. @default {none} */
  feeds?: Readonly<Record<string, Tensor>>;
  /** The program's file, named in errors. @default {undefined} */
  file?: string;
}

/**
 * Binds parameters and feeds into block 0's scope, after checking them all.
 *
 * @param desc The program (validated).
 * @param scope Block 0's scope.
 * @param options The parameters, the feeds, the file.
 * @throws {ProgramError} If a feed names no block-0 variable or does not
 * fit its declaration (`fitsFeed`), or a block-0 `feed` op has no feed;
 * nothing is bound then.
 *
 * @example Usage
 * ```ts
 * import { Program, Scope, BlockLayout, Tensor } from "../../mod.ts";
 * import { bindRunInputs } from "./feed_binding.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const program = new Program();
 * program.globalBlock.createVar({ name: "x", dtype: "int64", shape: [1] });
 * const scope = new Scope(new BlockLayout(program.desc.blocks[0]));
 * const x = Tensor.fromArray([7n], "int64");
 * bindRunInputs(program.desc, scope, { feeds: { x } });
 * assertEquals(scope.get("x"), x);
 * const bad = { x: Tensor.fromArray([1, 2], "float32") };
 * assertThrows(() => bindRunInputs(program.desc, scope, { feeds: bad }), Error, "int64 [1]");
 * ```
 */
export function bindRunInputs(
  desc: ProgramDesc,
  scope: Scope,
  options: BindRunInputsOptions = {},
): void {
  const { file } = options;
  checkColumns(desc, file);
  const feeds = Object.entries(options.feeds ?? {});
  const targets = feedTargets(desc);
  for (const [name, t] of feeds) {
    const declared = scope.layout.declarationOf(name);
    if (declared === undefined) {
      throw new ProgramError(
        `feed: variable "${name}" is not declared in block 0`,
        { variable: name },
      );
    }
    if (!fitsFeed(declared, t)) {
      throw new ProgramError(
        `feed: variable "${name}" is declared ${
          describeDeclaration(declared)
        }, the feed is ${describeTensor(t)}`,
        { variable: name },
      );
    }
  }
  const given = new Set(feeds.map(([name]) => name));
  const unfed = targets.find((target) => !given.has(target.name));
  if (unfed !== undefined) {
    throw new ProgramError(`no feed given for "${unfed.name}"`, {
      file,
      block: 0,
      op: unfed.op,
      opType: "feed",
      variable: unfed.name,
    });
  }
  for (const [name, t] of options.parameters ?? []) scope.set(name, t);
  for (const [name, t] of feeds) {
    const fedByOp = targets.filter((target) => target.name === name);
    if (fedByOp.length === 0) scope.set(name, t);
    for (const { list, col } of fedByOp) listOf(scope, list).write(col, t);
  }
}

// Every feed and fetch op's column is below the number of ops of its type
// on its list, as in every program Paddle saves (columns 0 to n - 1): the
// lists are arrays, and a column of 10^8 would make one of 10^8 slots.
function checkColumns(desc: ProgramDesc, file: string | undefined): void {
  for (const [type, side, slot] of LIST_SLOTS) {
    const ops: { block: number; op: number; list?: string; col: number }[] = [];
    for (const block of desc.blocks) {
      block.ops.forEach((op, i) => {
        if (op.type !== type) return;
        const list = argument(op[side], slot);
        ops.push({ block: block.idx, op: i, list, col: columnOf(op.attrs) });
      });
    }
    const count = new Map<string | undefined, number>();
    for (const { list } of ops) count.set(list, (count.get(list) ?? 0) + 1);
    for (const { block, op, list, col } of ops) {
      const n = count.get(list)!;
      if (col < n) continue;
      throw new ProgramError(
        `attribute "col": ${col} is not below the ${n} ${type} ` +
          `op${n === 1 ? "" : "s"} on "${list}"`,
        { file, block, op, opType: type },
      );
    }
  }
}

// Each list op's type, and the side and slot naming its list.
const LIST_SLOTS = [
  ["feed", "inputs", "X"],
  ["fetch", "outputs", "Out"],
] as const;

// The feed list variable's array, made on first use.
function listOf(scope: Scope, name: string): TensorArray {
  const held = scope.get(name);
  if (held instanceof TensorArray) return held;
  const list = new TensorArray();
  scope.set(name, list);
  return list;
}
