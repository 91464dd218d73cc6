// Which kernels may be cut by rows, and how: the facts a runtime that
// splits a large call over several threads (runtime/pool/parallel_kernels.ts)
// reads, next to the catalog they describe (device.ts).
//
// A call cut by rows computes rows [start, end) of its output from the same
// rows of the operands that carry them; an operand that broadcasts along
// the rows is passed whole. Two cuts:
//   "elements"  every tensor operand has the output's shape, so any run of
//               elements is a piece (the call is cut as if flat);
//   "rows"      dim 0 of the output, when the kernel leaves it alone.
// A kernel with no entry never splits; a rule that answers undefined says
// this call mixes its rows (a softmax or reduction over dim 0).

import { sameShape } from "./_shape.ts";
import type { Kernels } from "./device.ts";
import type { Tensor } from "./tensor.ts";

/**
 * How a call is cut by rows; see {@linkcode RowCutRule}.
 *
 * @example Usage
 * ```ts
 * import type { RowCut } from "./kernel_rows.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const cut: RowCut = "elements";
 * assertEquals(cut, "elements");
 * ```
 */
export type RowCut = "elements" | "rows";

/**
 * How calls of kernel `K` may be cut by rows.
 *
 * @example Usage
 * ```ts
 * import type { RowCutRule } from "./kernel_rows.ts";
 * import { KERNEL_ROWS } from "./kernel_rows.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const rule: RowCutRule<"cast"> = KERNEL_ROWS.cast!;
 * assertEquals(rule.operand, 0);
 * ```
 */
export interface RowCutRule<K extends keyof Kernels> {
  /** The argument that sizes the call: the kernel's first tensor. */
  readonly operand: 0 | 1;
  /**
   * How this call may be cut, or undefined when it mixes rows.
   *
   * @param args The call's arguments.
   * @returns The cut.
   */
  cut(...args: Parameters<Kernels[K]>): RowCut | undefined;
}

/**
 * The rule of each kernel that may be cut by rows. Only a kernel of at
 * most four parameters may have one: the pool passes calls on through
 * four, with no argument list built per call.
 *
 * @example Usage
 * ```ts
 * import type { RowCutRules } from "./kernel_rows.ts";
 * import { KERNEL_ROWS } from "./kernel_rows.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const rules: RowCutRules = KERNEL_ROWS;
 * assertEquals(rules.matmul, undefined); // the pool's gemm splits products
 * ```
 */
export type RowCutRules = {
  readonly [K in keyof Kernels]?: Parameters<Kernels[K]> extends UpToFour
    ? RowCutRule<K>
    : never;
};

type UpToFour = [unknown?, unknown?, unknown?, unknown?];

// A binary kernel (kind, x, y, …) cuts by elements when x and y have one
// shape, else by dim 0, across which the other operand broadcasts.
const PAIR = {
  operand: 1,
  cut: (_kind: unknown, x: Tensor, y: Tensor): RowCut =>
    sameShape(x.shape, y.shape) ? "elements" : "rows",
} as const;

/**
 * The kernels whose calls may be cut by rows: elementwise arithmetic,
 * comparisons, logic, math functions, `scale`, `cast` and the
 * activations, and `softmax`
 * and `reduce` over dims other than dim 0.
 *
 * @example Usage
 * ```ts
 * import { KERNEL_ROWS } from "./kernel_rows.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.full([4, 3], "float32", 1);
 * assertEquals(KERNEL_ROWS.softmax?.cut(x, -1), "rows");
 * assertEquals(KERNEL_ROWS.softmax?.cut(x, 0), undefined);
 * assertEquals(KERNEL_ROWS.unary?.cut("exp", x), "elements");
 * assertEquals(KERNEL_ROWS.transpose, undefined);
 * ```
 */
export const KERNEL_ROWS: RowCutRules = Object.freeze(
  {
    binary: PAIR,
    compare: PAIR,
    logical: PAIR,
    unary: { operand: 1, cut: () => "elements" },
    scale: { operand: 0, cut: () => "elements" },
    cast: { operand: 0, cut: () => "elements" },
    softmax: {
      operand: 0,
      cut: (x, axis) => rowWise(x, [axis ?? -1]) ? "rows" : undefined,
    },
    reduce: {
      operand: 1,
      cut: (_kind, x, options) =>
        !options?.reduceAll && rowWise(x, options?.dims ?? [])
          ? "rows"
          : undefined,
    },
    activation: { operand: 1, cut: () => "elements" },
  } satisfies RowCutRules,
);

// Whether an op over `dims` of x leaves dim 0 alone (rows are independent).
function rowWise(x: Tensor, dims: readonly number[]): boolean {
  return x.rank >= 2 && dims.length > 0 &&
    dims.every((d) => (d < 0 ? d + x.rank : d) !== 0);
}
