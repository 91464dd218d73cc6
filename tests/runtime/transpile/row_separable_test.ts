// checkRowSeparable() reads each op's `rows` rule: every op with a rule
// splits when it meets the data input, and every other op is refused.

import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { create } from "@bufbuild/protobuf";
import { AttrType, OpDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import { assignValue, print, Program, read } from "../../../mod.ts";
import type { AttrKind, OpDef } from "../../../runtime/core/op_def.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";
import { out1 } from "../../../runtime/layers/append_layer.ts";
import { OPS } from "../../../runtime/ops/mod.ts";
import { checkRowSeparable } from "../../../runtime/transpile/row_separable.ts";
import { transpile } from "../../../runtime/transpile/transpile.ts";

const DEFS = [...OPS.values()];

// A value for a required attribute: 5 is float32 as a dtype code (cast);
// 1 is a clip whose min and max agree.
const REQUIRED: Partial<Record<AttrKind, number>> = { int: 5, float: 1 };

// `read` → the op on the rows (X, or a product's left slot) and a [1]
// parameter (its other tensor inputs; [1, 1] for a product's right slot
// that must be a matrix) → `print`.
function onRows(def: OpDef): Program {
  const [left, right] = def.productSlots ?? ["X", "Y"];
  const p = new Program();
  p.guard(() => {
    const [x] = read("x.npy");
    const inputs = Object.fromEntries(
      Object.keys(def.inputs).map((slot) => [
        slot,
        slot === left ? x : assignValue([2], {
          shape: def.productSlots && slot === right ? [1, 1] : [1],
        }),
      ]),
    );
    const attrs = Object.fromEntries(
      Object.entries(def.attrs).filter(([, spec]) => spec.required)
        .map(([name, spec]) => [name, REQUIRED[spec.kind]]),
    );
    print(out1(def.type, inputs, attrs));
  });
  return p;
}

Deno.test("transpile() runs every op with a row rule on the workers", () => {
  const split = DEFS.filter((def) => def.rows !== undefined);
  assertEquals(split.length > 0, true);
  for (const def of split) {
    const { worker } = transpile(onRows(def).desc);
    assertEquals(
      worker.blocks[1].ops.map((op) => op.type),
      [def.type],
      def.type,
    );
  }
});

Deno.test("checkRowSeparable() refuses every op without a row rule", () => {
  const context = {
    carriesRows: (name: string) => name === "x",
    declaration: () => undefined,
  };
  for (const def of DEFS.filter((d) => d.rows === undefined)) {
    const slot = Object.keys(def.inputs)[0] ?? "X";
    const op = create(OpDescSchema, {
      type: def.type,
      inputs: [{ parameter: slot, arguments: ["x"] }],
    });
    const e = assertThrows(
      () => checkRowSeparable(op, 1, context),
      ProgramError,
    );
    assertEquals([e.where.opType, e.where.variable], [def.type, "x"]);
    assertStringIncludes(e.message, "which mixes rows");
  }
});

Deno.test("checkRowSeparable() asks a product's rule about its attributes", () => {
  const context = {
    carriesRows: (name: string) => name === "x",
    declaration: () => undefined,
  };
  const product = (type: string, attrs: Record<string, unknown>) =>
    create(OpDescSchema, {
      type,
      inputs: [
        { parameter: "X", arguments: ["x"] },
        { parameter: "Y", arguments: ["w"] },
      ],
      attrs: Object.entries(attrs).map(([name, v]) =>
        typeof v === "boolean"
          ? { name, type: AttrType.BOOLEAN, b: v }
          : { name, type: AttrType.INT, i: v as number }
      ),
    });
  checkRowSeparable(product("matmul", {}), 1, context);
  const transposed = assertThrows(
    () =>
      checkRowSeparable(product("matmul", { transpose_X: true }), 1, context),
    ProgramError,
  );
  assertStringIncludes(transposed.message, "a matmul that transposes it");
  const flattened = assertThrows(
    () => checkRowSeparable(product("mul", { x_num_col_dims: 2 }), 1, context),
    ProgramError,
  );
  assertStringIncludes(flattened.message, "x_num_col_dims 2, not 1");
});
