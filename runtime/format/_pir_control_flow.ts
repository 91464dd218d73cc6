/**
 * PIR's structured control flow as Rill's sub-block ops. A PIR region's
 * block becomes a sub-block whose parent is the block of the op, so it
 * reads the enclosing values by name as the PIR block reads them by id.
 *
 * - `1.if(cond)` with regions (then, else), each ending in `2.yield`:
 *   the results are variables of the enclosing block; each branch ends by
 *   assigning its yielded values to them. Two `conditional_block` ops run
 *   the branches, the second on `logical_not(cond)`, which is computed
 *   before either branch runs (so a then-branch cannot change it).
 * - `1.while(cond, inits…)` with one region whose block takes one argument
 *   per init and yields (next cond, next values…): the block arguments are
 *   variables of the enclosing block, set from the inits, and a `while` op
 *   runs the body while the condition variable holds. The body assigns
 *   every yielded value to a fresh `@next` variable before any argument is
 *   rebound, so a yield that swaps arguments reads the old values. The
 *   op's results are the argument variables after the loop.
 *
 * @module
 */
import type { BlockDesc } from "../../gen/rill/v1/framework_pb.ts";
import { blockAttr, boolAttr } from "./_pir_attr_convert.ts";
import type { PirConverter } from "./_pir_converter.ts";
import type { PirBlock, PirOp, PirType } from "./pir_program.ts";

const BOOL: PirType = { kind: "dense", element: "0.t_bool", dims: [] };

/**
 * Converts a `1.if` op into `block` (see the module's documentation).
 *
 * @param c The conversion.
 * @param op The `1.if` op.
 * @param block The enclosing block.
 *
 * @example Usage
 * ```ts
 * import { decodePirProgram, pirToProgram } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = { "#": "0.t_dtensor", D: [{ "#": "0.t_bool" }, [], "NCHW", [], 0] };
 * const full = (id: number, v: number) => ({ "#": "1.full", I: [], O: [{ "%": id, TT: t }], A: [
 *   { N: "shape", AT: { "#": "1.a_intarray", D: [] } }, { N: "value", AT: { "#": "0.a_f64", D: v } },
 *   { N: "dtype", AT: { "#": "1.a_dtype", D: "bool" } }] });
 * const branch = (id: number, v: number) => ({ "#": `region_${id}`, blocks: [{ "#": `block_${id}`, args: [], ops: [
 *   full(id + 10, v), { "#": "2.yield", I: [{ "%": id + 10 }], O: [], A: [] }] }] });
 * const text = JSON.stringify({ base_code: { magic: "pir", version: 1 }, program: { regions: [
 *   { "#": "region_0", blocks: [{ "#": "block_0", args: [], ops: [
 *     full(1, 1), { "#": "1.if", I: [{ "%": 1 }], O: [{ "%": 2, TT: t }], A: [], regions: [branch(1, 0), branch(2, 1)] },
 *   ] }] }] } });
 * const desc = pirToProgram(decodePirProgram(text));
 * assertEquals(desc.blocks[0].ops.map((op) => op.type), [
 *   "fill_constant", "logical_not", "conditional_block", "conditional_block",
 * ]);
 * ```
 */
export function convertIf(c: PirConverter, op: PirOp, block: BlockDesc): void {
  const branches = op.regions.map((r) => r.blocks);
  if (branches.length !== 2 || branches.some((b) => b.length !== 1)) {
    c.gap("op", `${op.name} with other than two one-block regions`);
    return;
  }
  const [cond] = c.argumentsOf(op.operands[0], block);
  const results = op.results.map((v) => {
    c.declare(block, v.id, v.type);
    return c.nameOf(v.id);
  });
  const not = `${cond}@not`;
  if (!block.vars.some((v) => v.name === not)) c.declareVar(block, not, BOOL);
  c.emit(block, "logical_not", {
    inputs: { X: [cond] },
    outputs: { Out: [not] },
  });
  for (const [k, pir] of branches.map((b) => b[0]).entries()) {
    const sub = branch(c, pir, block, results);
    c.emit(block, "conditional_block", {
      inputs: { Cond: [k === 0 ? cond : not], Input: [] },
      outputs: { Out: results },
    }, [blockAttr(sub.idx), boolAttr("is_scalar_condition", true)]);
  }
}

/**
 * Converts a `1.while` op into `block` (see the module's documentation).
 *
 * @param c The conversion.
 * @param op The `1.while` op.
 * @param block The enclosing block.
 *
 * @example Usage
 * ```ts
 * import { decodePirProgram, pirToProgram } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = { "#": "0.t_dtensor", D: [{ "#": "0.t_bool" }, [], "NCHW", [], 0] };
 * const text = JSON.stringify({ base_code: { magic: "pir", version: 1 }, program: { regions: [
 *   { "#": "region_0", blocks: [{ "#": "block_0", args: [], ops: [
 *     { "#": "1.full", I: [], O: [{ "%": 1, TT: t }], A: [
 *       { N: "value", AT: { "#": "0.a_f64", D: 0 } }, { N: "dtype", AT: { "#": "1.a_dtype", D: "bool" } }] },
 *     { "#": "1.while", I: [{ "%": 1 }, { "%": 1 }], O: [{ "%": 2, TT: t }], A: [], regions: [
 *       { "#": "region_1", blocks: [{ "#": "block_1", args: [{ "%": -1, TT: t }], ops: [
 *         { "#": "2.yield", I: [{ "%": -1 }, { "%": -1 }], O: [], A: [] }] }] }] },
 *   ] }] }] } });
 * const desc = pirToProgram(decodePirProgram(text));
 * assertEquals(desc.blocks[0].ops.map((op) => op.type), [
 *   "fill_constant", "assign", "assign", "while",
 * ]);
 * assertEquals(desc.blocks[1].ops.map((op) => op.type), ["assign", "assign", "assign"]);
 * ```
 */
export function convertWhile(
  c: PirConverter,
  op: PirOp,
  block: BlockDesc,
): void {
  const body = op.regions[0]?.blocks[0];
  const inits = op.operands.slice(1);
  if (
    op.regions.length !== 1 || op.regions[0].blocks.length !== 1 ||
    body.args.length !== inits.length || op.results.length !== inits.length
  ) {
    c.gap("op", `${op.name} of another form than (cond, values…)`);
    return;
  }
  const args = body.args.map((a) => {
    c.declare(block, a.id, a.type);
    return c.nameOf(a.id);
  });
  const cond = `${args[0] ?? c.nameOf(op.results[0]?.id ?? 0)}@cond`;
  const [first] = c.argumentsOf(op.operands[0], block);
  c.declareVar(block, cond, BOOL);
  inits.forEach((id, i) =>
    assign(c, block, c.argumentsOf(id, block)[0], args[i])
  );
  assign(c, block, first, cond);
  const sub = c.newBlock(block.idx);
  c.convertBlock(body, sub, (y) => {
    const [next, ...values] = y.operands.map((id) => c.argumentsOf(id, sub)[0]);
    const staged = values.map((v, i) => {
      const name = `${args[i]}@next`;
      c.declareVar(sub, name, body.args[i].type);
      assign(c, sub, v, name);
      return name;
    });
    staged.forEach((s, i) => assign(c, sub, s, args[i]));
    assign(c, sub, next, cond);
  });
  c.emit(block, "while", {
    inputs: { X: [...args, cond], Condition: [cond] },
    outputs: { Out: args },
  }, [blockAttr(sub.idx)]);
  op.results.forEach((v, i) => c.alias(v.id, args[i]));
}

// Converts one branch of an if into a new sub-block of `block`, ending in
// assignments of its yielded values to `results`.
function branch(
  c: PirConverter,
  pir: PirBlock,
  block: BlockDesc,
  results: readonly string[],
): BlockDesc {
  const sub = c.newBlock(block.idx);
  c.convertBlock(pir, sub, (y) => {
    y.operands.forEach((id, i) => {
      if (i < results.length) {
        assign(c, sub, c.argumentsOf(id, sub)[0], results[i]);
      }
    });
  });
  return sub;
}

function assign(
  c: PirConverter,
  block: BlockDesc,
  from: string,
  to: string,
): void {
  c.emit(block, "assign", { inputs: { X: [from] }, outputs: { Out: [to] } });
}
