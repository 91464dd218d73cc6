/**
 * Builders for Paddle's inference layers: `fc` and `lookup_table_v2`. Each
 * option left out is left out of the op, which then takes Paddle's default.
 *
 * @module
 */
import type { Variable } from "../build/program.ts";
import { out1, type OutOptions } from "./append_layer.ts";

/** Options of {@linkcode fc}. */
export interface FcOptions extends OutOptions {
  /** `Bias`: added to each row of the product, `[N]` or `[1, N]`. */
  bias?: Variable;
  /**
   * `in_num_col_dims`: Input's dims before it are the rows, the rest the
   * columns. @default {1}
   */
  inNumColDims?: number;
  /** `activation_type`: `"relu"` applies relu to the sum. @default {""} */
  activationType?: "" | "relu";
}

/**
 * `fc`: `input` flattened to a matrix at `inNumColDims`, times `w`, plus the
 * bias, then relu if asked.
 *
 * @param input The input; its flattened columns are `w`'s rows.
 * @param w The weights, `[K, N]`.
 * @param options Bias, column dims, activation and where to write.
 * @returns The `Out` variable, Input's leading dims and `N`.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, fc, Program, Tensor } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() =>
 *   fc(assignValue([1, 2], { shape: [1, 2] }), assignValue([1, -1, 1, -2], { shape: [2, 2] }), {
 *     bias: assignValue([1, 0]),
 *     activationType: "relu",
 *   })
 * );
 * const { fetched } = await new Executor().run(p, { fetch: [y.name] });
 * assertEquals((fetched[y.name] as Tensor).toNested(), [[4, 0]]);
 * ```
 */
export function fc(
  input: Variable,
  w: Variable,
  options: FcOptions = {},
): Variable {
  const inputs = options.bias === undefined
    ? { Input: input, W: w }
    : { Input: input, W: w, Bias: options.bias };
  return out1("fc", inputs, {
    in_num_col_dims: options.inNumColDims,
    activation_type: options.activationType,
  }, options);
}

/** Options of {@linkcode lookupTableV2}. */
export interface LookupTableV2Options extends OutOptions {
  /**
   * `padding_idx`: ids equal to it give a row of zeros; -1 is none, and
   * another negative value counts from the vocabulary's end. @default {-1}
   */
  paddingIdx?: number | bigint;
}

/**
 * `lookup_table_v2` (Paddle 2.x's embedding): the rows of `w` at `ids`.
 *
 * @param ids The ids, int64 or int32, any shape.
 * @param w The table, `[vocab, dim]`.
 * @param options The padding id and where to write.
 * @returns The `Out` variable, `[...ids' dims, dim]`.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, lookupTableV2, Program, Tensor } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() =>
 *   lookupTableV2(
 *     assignValue([2, 0], { dtype: "int64" }),
 *     assignValue([1, 2, 3, 4, 5, 6], { shape: [3, 2] }),
 *     { paddingIdx: 0 },
 *   )
 * );
 * const { fetched } = await new Executor().run(p, { fetch: [y.name] });
 * assertEquals((fetched[y.name] as Tensor).toNested(), [[5, 6], [0, 0]]);
 * ```
 */
export function lookupTableV2(
  ids: Variable,
  w: Variable,
  options: LookupTableV2Options = {},
): Variable {
  const padding = options.paddingIdx;
  return out1("lookup_table_v2", { W: w, Ids: ids }, {
    padding_idx: padding === undefined ? undefined : BigInt(padding),
  }, options);
}
