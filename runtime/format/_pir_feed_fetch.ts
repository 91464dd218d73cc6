/**
 * The ends of a PIR program: `1.data` ops become `feed` ops on the `feed`
 * list (columns in op order) and `1.fetch` ops `fetch` ops on the `fetch`
 * list (their own `col`), as in the programs Paddle 2 saved. A fetched
 * value is named by its fetch name when nothing else names it; otherwise
 * (a feed or a parameter fetched, or a value fetched twice) an `assign`
 * copies it to that name, so the fetch targets are always the fetch names.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type BlockDesc,
  VarDescSchema,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import { intAttr } from "./_pir_attr_convert.ts";
import type { PirConverter } from "./_pir_converter.ts";
import type { PirOp } from "./pir_program.ts";

/**
 * Converts a `1.data` op into `block` (block 0).
 *
 * @param c The conversion.
 * @param op The op.
 * @param block The block.
 *
 * @example Usage
 * ```ts
 * import { decodePirProgram, pirToProgram } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = { "#": "0.t_dtensor", D: [{ "#": "0.t_f32" }, [-1, 2], "NCHW", [], 0] };
 * const text = JSON.stringify({ base_code: { magic: "pir", version: 1 }, program: { regions: [
 *   { "#": "region_0", blocks: [{ "#": "block_0", args: [], ops: [
 *     { "#": "1.data", I: [], O: [{ "%": 1, TT: t }], A: [{ N: "name", AT: { "#": "0.a_str", D: "x" } }] },
 *   ] }] }] } });
 * const [feed] = pirToProgram(decodePirProgram(text)).blocks[0].ops;
 * assertEquals([feed.type, feed.outputs[0].arguments, feed.attrs[0].i], ["feed", ["x"], 0]);
 * ```
 */
export function convertData(
  c: PirConverter,
  op: PirOp,
  block: BlockDesc,
): void {
  c.checkAttrs(op, ["name", "shape", "dtype", "place"]);
  declareList(block, "feed", VarType_Type.FEED_MINIBATCH);
  const col = block.ops.filter((o) => o.type === "feed").length;
  const v = op.results[0];
  c.declare(block, v.id, v.type, { feed: true });
  c.emit(block, "feed", {
    inputs: { X: ["feed"] },
    outputs: { Out: [c.nameOf(v.id)] },
  }, [intAttr("col", col)]);
}

/**
 * Converts a `1.fetch` op into `block` (block 0).
 *
 * @param c The conversion.
 * @param op The op.
 * @param block The block.
 *
 * @example Usage
 * ```ts
 * import { decodePirProgram, pirToProgram } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = { "#": "0.t_dtensor", D: [{ "#": "0.t_f32" }, [2], "NCHW", [], 0] };
 * const text = JSON.stringify({ base_code: { magic: "pir", version: 1 }, program: { regions: [
 *   { "#": "region_0", blocks: [{ "#": "block_0", args: [], ops: [
 *     { "#": "1.data", I: [], O: [{ "%": 1, TT: t }], A: [{ N: "name", AT: { "#": "0.a_str", D: "x" } }] },
 *     { "#": "1.fetch", I: [{ "%": 1 }], O: [{ "%": 2, TT: t }], A: [
 *       { N: "name", AT: { "#": "0.a_str", D: "fetch_name_0" } }, { N: "col", AT: { "#": "0.a_i32", D: 0 } }] },
 *   ] }] }] } });
 * const ops = pirToProgram(decodePirProgram(text)).blocks[0].ops;
 * // A fed value fetched: copied to the fetch name first.
 * assertEquals(ops.map((op) => op.type), ["feed", "assign", "fetch"]);
 * assertEquals(ops[2].inputs[0].arguments, ["fetch_name_0"]);
 * ```
 */
export function convertFetch(
  c: PirConverter,
  op: PirOp,
  block: BlockDesc,
): void {
  c.checkAttrs(op, ["name", "col"]);
  const col = op.attrs.find((a) => a.name === "col")?.value;
  const k = col?.kind === "i32" || col?.kind === "i64" ? col.value : 0;
  const target = fetchName(op) ?? `fetch_name_${k}`;
  declareList(block, "fetch", VarType_Type.FETCH_LIST);
  const [name] = c.argumentsOf(op.operands[0], block);
  const result = op.results[0];
  c.alias(result.id, target);
  if (name !== target) {
    c.declare(block, result.id, result.type);
    c.emit(block, "assign", {
      inputs: { X: [name] },
      outputs: { Out: [target] },
    });
  }
  c.emit(block, "fetch", {
    inputs: { X: [target] },
    outputs: { Out: ["fetch"] },
  }, [intAttr("col", k)]);
}

/**
 * The `name` attribute of a `1.data` or `1.fetch` op.
 *
 * @param op The op.
 * @returns The name, if it has one.
 *
 * @example Usage
 * ```ts
 * import { fetchName } from "./_pir_feed_fetch.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const op = { name: "1.fetch", operands: [1], results: [], regions: [],
 *   attrs: [{ name: "name", value: { kind: "str", value: "fetch_name_0" } } as const] };
 * assertEquals(fetchName(op), "fetch_name_0");
 * ```
 */
export function fetchName(op: PirOp): string | undefined {
  const name = op.attrs.find((a) => a.name === "name")?.value;
  return name?.kind === "str" ? name.value : undefined;
}

// Declares a feed or fetch list once.
function declareList(block: BlockDesc, name: string, type: VarType_Type): void {
  if (block.vars.some((v) => v.name === name)) return;
  block.vars.push(
    create(VarDescSchema, { name, type: { type }, persistable: true }),
  );
}
