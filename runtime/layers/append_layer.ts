/**
 * `appendLayer`, which every builder function calls: it appends an op to
 * the default program's current block and declares the outputs with the
 * dtype and shape the op's `infer` gives, reading the op's registered
 * definition so that no builder repeats a slot or attribute list. Also the
 * small helpers the builder files share; only `appendLayer` and
 * `OutOptions` leave this folder.
 *
 * @module
 */
import { readAttrs } from "../core/attr_read.ts";
import type { InferredType, VarInfo } from "../core/op_def.ts";
import { OPS } from "../ops/mod.ts";
import {
  type AttrInput,
  defaultProgram,
  encodeAttrs,
  type SlotInput,
  Variable,
} from "../build/program.ts";

/** Options every single-output builder function takes. */
export interface OutOptions {
  /** Write into this variable instead of a new one. */
  out?: Variable;
}

/**
 * Appends op `type` to the default program's current block. Output slots
 * not given in `outputs` get new variables typed by the op's `infer`.
 *
 * @param type The op type.
 * @param inputs Input slots.
 * @param attrs Attributes (`undefined` ones left out).
 * @param outputs Output slots given by the caller.
 * @returns Every output slot's variables.
 *
 * @example Usage
 * ```ts
 * import { appendLayer } from "./append_layer.ts";
 * import { Program } from "../build/program.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const { Out } = p.guard(() =>
 *   appendLayer("fill_constant", {}, { shape: [2, 3], dtype: 5, value: 1 })
 * );
 * assertEquals(Out[0].shape, [2, 3]);
 * ```
 */
export function appendLayer(
  type: string,
  inputs: Readonly<Record<string, SlotInput>>,
  attrs: Readonly<Record<string, AttrInput | undefined>> = {},
  outputs: Readonly<Record<string, SlotInput>> = {},
): Record<string, Variable[]> {
  const def = OPS.get(type);
  if (def === undefined) throw new TypeError(`append op: unknown op "${type}"`);
  const block = defaultProgram().currentBlock;
  const infos = (slot: string): VarInfo[] =>
    listOf(inputs[slot]).map((v) => v.info);
  let inferred: Readonly<
    Record<string, InferredType | readonly InferredType[]>
  > = {};
  try {
    const values = readAttrs(def.attrs, encodeAttrs(def, attrs));
    inferred = def.infer?.({ inputs: infos, attrs: values as never }) ?? {};
  } catch (e) {
    const message = (e as Error).message;
    // encodeAttrs already names the op; the shape rules do not.
    if (message.startsWith("append op ")) throw e;
    throw new TypeError(`append op ${type}: ${message}`);
  }
  const result: Record<string, Variable[]> = {};
  for (const [slot, spec] of Object.entries(def.outputs)) {
    const given = outputs[slot];
    if (given !== undefined) {
      result[slot] = [...listOf(given)];
    } else if (!spec.optional) {
      // A duplicable slot gets one variable per type infer gives (unstack's
      // num); without those it is left empty.
      const t = inferred[slot];
      const types: readonly (InferredType | undefined)[] = spec.duplicable
        ? (Array.isArray(t) ? t : [])
        : [t as InferredType | undefined];
      if (types.length === 0) continue;
      const kind = spec.kind === "any" ? inputKind(inputs) : spec.kind;
      result[slot] = types.map((info) =>
        block.createVar({
          name: block.program.uniqueName(`${type}.${slot.toLowerCase()}`),
          kind,
          dtype: info?.dtype,
          shape: info?.shape,
        })
      );
    }
  }
  block.appendOp({ type, inputs, outputs: result, attrs });
  return result;
}

function listOf(s: SlotInput): readonly Variable[] {
  return s === undefined ? [] : s instanceof Variable ? [s] : s;
}

// `assign` and friends output what they take.
function inputKind(
  inputs: Readonly<Record<string, SlotInput>>,
): Exclude<VarInfo["kind"], "other"> {
  const kind = Object.values(inputs).flatMap((s) => listOf(s))[0]?.kind;
  return kind === undefined || kind === "other" ? "tensor" : kind;
}

/**
 * Appends a one-output op and returns its `Out` variable.
 *
 * @param type The op type.
 * @param inputs Input slots.
 * @param attrs Attributes.
 * @param options Where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { out1 } from "./append_layer.ts";
 * import { fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => out1("relu", { X: fillConstant({ shape: [2] }) }, {}));
 * assertEquals(y.shape, [2]);
 * ```
 */
export function out1(
  type: string,
  inputs: Readonly<Record<string, SlotInput>>,
  attrs: Readonly<Record<string, AttrInput | undefined>>,
  options: OutOptions = {},
): Variable {
  return appendLayer(type, inputs, attrs, { Out: options.out }).Out[0];
}

/**
 * A builder of the unary op `type` (`X → Out`).
 *
 * @param type The op type.
 * @returns The builder.
 *
 * @example Usage
 * ```ts
 * import { unaryBuilder } from "./append_layer.ts";
 * import { fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const exp = unaryBuilder("exp");
 * const p = new Program();
 * assertEquals(p.guard(() => exp(fillConstant({ shape: [3] }))).shape, [3]);
 * ```
 */
export function unaryBuilder(
  type: string,
): (x: Variable, options?: OutOptions) => Variable {
  return (x, options = {}) => out1(type, { X: x }, {}, options);
}

/**
 * `vars` with one variable per name, in first-seen order.
 *
 * @param vars Variables, maybe repeated.
 * @returns Each once.
 *
 * @example Usage
 * ```ts
 * import { uniqueByName } from "./append_layer.ts";
 * import { fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const x = p.guard(() => fillConstant({ shape: [1] }));
 * assertEquals(uniqueByName([x, x]).length, 1);
 * ```
 */
export function uniqueByName(vars: readonly Variable[]): Variable[] {
  return [...new Map(vars.map((v) => [v.name, v])).values()];
}
