/**
 * A PIR op that the table maps to one Rill op (`PirMappedOp`): its
 * operands fill slots (a combine's members one each) or, when a constant
 * op made them and the rule says so, become attributes; its results fill
 * the output slots in order (a list result one variable per member; a 0-D
 * result of an op that gives [1] in Rill through a `reshape2` to []); its attributes take their Rill names. What
 * does not fit the rule (an extra operand or result, an attribute the rule
 * does not name or holds at another value than its neutral one, a
 * computed operand where only a constant will do) is a gap of the
 * conversion.
 *
 * @module
 */
import {
  AttrType,
  type BlockDesc,
  type OpDesc_Attr,
} from "../../gen/rill/v1/framework_pb.ts";
import { attr, constantToDesc, pirAttrToDesc } from "./_pir_attr_convert.ts";
import type { PirConverter } from "./_pir_converter.ts";
import { PIR_IGNORED_ATTRS, type PirMappedOp } from "./pir_op_table.ts";
import type { PirOp, PirType } from "./pir_program.ts";

/**
 * Converts `op` by `rule` into `block`.
 *
 * @param c The conversion.
 * @param op The op.
 * @param rule Its table entry.
 * @param block The block.
 *
 * @example Usage
 * ```ts
 * import { decodePirProgram, pirToProgram } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = { "#": "0.t_dtensor", D: [{ "#": "0.t_f32" }, [1, 8, 4, 4], "NCHW", [], 0] };
 * const text = JSON.stringify({ base_code: { magic: "pir", version: 1 }, program: { regions: [
 *   { "#": "region_0", blocks: [{ "#": "block_0", args: [], ops: [
 *     { "#": "1.data", I: [], O: [{ "%": 1, TT: t }], A: [{ N: "name", AT: { "#": "0.a_str", D: "x" } }] },
 *     { "#": "1.hardsigmoid", I: [{ "%": 1 }], O: [{ "%": 2, TT: t }], A: [
 *       { N: "slope", AT: { "#": "0.a_f32", D: 0.25 } }, { N: "offset", AT: { "#": "0.a_f32", D: 0.5 } },
 *       { N: "struct_name", AT: { "#": "0.a_str", D: "/Net/Hardsigmoid/" } }] },
 *   ] }] }] } });
 * const op = pirToProgram(decodePirProgram(text)).blocks[0].ops[1];
 * assertEquals(op.type, "hard_sigmoid");
 * assertEquals(op.attrs.map((a) => [a.name, a.f]), [["slope", 0.25], ["offset", 0.5]]);
 * ```
 */
export function convertMapped(
  c: PirConverter,
  op: PirOp,
  rule: PirMappedOp,
  block: BlockDesc,
): void {
  const inputs: Record<string, string[]> = {};
  const attrs: OpDesc_Attr[] = [];
  if (op.operands.length > rule.inputs.length) {
    c.gap("op", `${op.name} with ${op.operands.length} operands`);
  }
  op.operands.forEach((id, i) => {
    const r = rule.inputs[i];
    if (id === 0 || r === undefined) return;
    const values = c.constantOf(id);
    if (typeof r === "string") {
      (inputs[r] ??= []).push(...c.argumentsOf(id, block));
    } else if (values !== undefined) {
      const a = constantToDesc(r.attr, r.as, values);
      if (a === undefined) c.gap("operand", `${op.name}.${r.attr}`);
      else attrs.push(a);
    } else if (r.slot !== undefined) {
      (inputs[r.slot] ??= []).push(...c.argumentsOf(id, block));
    } else {
      c.gap("operand", `${op.name}.${r.attr}`);
    }
  });
  attrs.push(...renamedAttrs(c, op, rule));
  if (op.results.length > rule.outputs.length) {
    c.gap("op", `${op.name} with ${op.results.length} results`);
  }
  const outputs: Record<string, string[]> = {};
  const reshapes: [string, string][] = [];
  op.results.forEach((v, i) => {
    if (i >= rule.outputs.length) return;
    if (v.type.kind === "vec") {
      outputs[rule.outputs[i]] = listResult(c, v.id, v.type.types, block);
      return;
    }
    c.declare(block, v.id, v.type);
    let name = c.nameOf(v.id);
    if (
      rule.oneForZeroD && v.type.kind === "dense" && v.type.dims.length === 0
    ) {
      const one = `${name}@1`;
      c.declareVar(block, one, { ...v.type, dims: [1] });
      reshapes.push([one, name]);
      name = one;
    }
    outputs[rule.outputs[i]] = [name];
  });
  c.emit(block, rule.type, { inputs, outputs }, attrs);
  for (const [one, name] of reshapes) {
    c.emit(block, "reshape2", {
      inputs: { X: [one] },
      outputs: { Out: [name] },
    }, [attr("shape", { type: AttrType.INTS, ints: [] })]);
  }
}

// A result of type `0.t_vec` (`1.split`'s): one variable per member,
// `%7.0`, `%7.1`…, which a `0.split` of it names.
function listResult(
  c: PirConverter,
  id: number,
  types: readonly PirType[],
  block: BlockDesc,
): string[] {
  const names = types.map((t, k) => {
    const name = `${c.nameOf(id)}.${k}`;
    c.declareVar(block, name, t);
    return name;
  });
  c.setMembers(id, names);
  return names;
}

// The op's attributes under their Rill names; one the rule does not name,
// or whose value Rill cannot hold, is a gap.
function renamedAttrs(
  c: PirConverter,
  op: PirOp,
  rule: PirMappedOp,
): OpDesc_Attr[] {
  const names = rule.attrs ?? {};
  const out: OpDesc_Attr[] = [];
  for (const { name, value } of op.attrs) {
    if (PIR_IGNORED_ATTRS.has(name)) continue;
    if (rule.neutral !== undefined && Object.hasOwn(rule.neutral, name)) {
      const v = "value" in value ? value.value : undefined;
      if (v !== rule.neutral[name]) {
        c.gap("attribute", `${op.name}.${name} (${JSON.stringify(v)})`);
      }
      continue;
    }
    if (!Object.hasOwn(names, name)) {
      c.gap("attribute", `${op.name}.${name}`);
      continue;
    }
    const to = names[name];
    if (to === null) continue;
    const a = pirAttrToDesc(to, value);
    if (typeof a === "string") c.gap("attribute", `${op.name}.${name} (${a})`);
    else out.push(a);
  }
  return out;
}
