/**
 * Builders for the tensor array ops: create, write, read, length, split a
 * tensor into an array and join an array into a tensor.
 *
 * @module
 */
import type { DType } from "../../kernels/dtype.ts";
import { codeOfDType } from "../core/dtype_codes.ts";
import type { Variable } from "../build/program.ts";
import { appendLayer, out1, type OutOptions } from "./append_layer.ts";

/**
 * `create_array`: a new empty tensor array.
 *
 * @param options The declared element type, where to write.
 * @returns The array variable.
 *
 * @example Usage
 * ```ts
 * import { createArray, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => createArray()).kind, "array");
 * ```
 */
export function createArray(
  options: OutOptions & { dtype?: DType } = {},
): Variable {
  return out1("create_array", {}, {
    dtype: options.dtype && codeOfDType(options.dtype),
  }, options);
}

/**
 * `write_to_array`: `array[i] = x`, in place.
 *
 * @param x The tensor.
 * @param i The index (one integer).
 * @param array The array; a new one when absent.
 * @returns The array variable.
 *
 * @example Usage
 * ```ts
 * import { arrayWrite, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const a = p.guard(() =>
 *   arrayWrite(fillConstant({ shape: [2] }), fillConstant({ shape: [1], dtype: "int64" }))
 * );
 * assertEquals(a.kind, "array");
 * ```
 */
export function arrayWrite(
  x: Variable,
  i: Variable,
  array?: Variable,
): Variable {
  return out1("write_to_array", { X: x, I: i }, {}, {
    out: array ?? createArray(),
  });
}

/**
 * `read_from_array`: `array[i]`.
 *
 * @param array The array.
 * @param i The index.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { arrayRead, createArray, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const t = p.guard(() => arrayRead(createArray(), fillConstant({ shape: [1], dtype: "int64" })));
 * assertEquals(t.kind, "tensor");
 * ```
 */
export function arrayRead(
  array: Variable,
  i: Variable,
  options: OutOptions = {},
): Variable {
  return out1("read_from_array", { X: array, I: i }, {}, options);
}

/**
 * `array_length`: the number of slots of `array` (int64); given a RAW list
 * (`kubeGetWorkersAddrs()`), its number of strings.
 *
 * @param array The array.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { arrayLength, createArray, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => arrayLength(createArray())).dtype, "int64");
 * ```
 */
export function arrayLength(
  array: Variable,
  options: OutOptions = {},
): Variable {
  return out1("array_length", { X: array }, {}, options);
}

/**
 * `split_to_array`: `x` cut along `axis` into `num` near-equal chunks.
 *
 * @param x The input.
 * @param num How many chunks (one integer).
 * @param options Axis (default 0), where to write.
 * @returns The array variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, splitToArray } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const a = p.guard(() =>
 *   splitToArray(fillConstant({ shape: [5, 2] }), fillConstant({ shape: [1], dtype: "int32", value: 2 }))
 * );
 * assertEquals(a.kind, "array");
 * ```
 */
export function splitToArray(
  x: Variable,
  num: Variable,
  options: OutOptions & { axis?: number } = {},
): Variable {
  return out1(
    "split_to_array",
    { X: x, Num: num },
    { axis: options.axis },
    options,
  );
}

/**
 * `array_to_tensor`: the array's tensors concatenated (or stacked).
 *
 * @param array The array.
 * @param options Axis (default 0), `useStack`, where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { arrayToTensor, createArray, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => arrayToTensor(createArray(), { useStack: true })).kind, "tensor");
 * ```
 */
export function arrayToTensor(
  array: Variable,
  options: OutOptions & { axis?: number; useStack?: boolean } = {},
): Variable {
  return appendLayer("array_to_tensor", { X: array }, {
    axis: options.axis,
    use_stack: options.useStack,
  }, { Out: options.out }).Out[0];
}
