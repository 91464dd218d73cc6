/**
 * The shape rules of the kernels that move elements without computing on
 * them (reshape, transpose, concat, slice, split, broadcastTo), shared by
 * every device:
 * each checks its arguments with one message and says where elements go,
 * so the CPU and the GPU kernels agree by construction.
 *
 * Cuts and joins along an axis view a tensor as [outer, dim, inner]
 * (outer = product of the dims before the axis, inner = after it).
 *
 * @module
 */
import { formatShape, normalizeAxis, shapeSize } from "./_shape.ts";
import type { SplitKernelOptions } from "./kernel_options.ts";

/**
 * The dims `reshape` gives a tensor of shape `from`: a 0 keeps that dim,
 * one -1 takes what is left.
 *
 * @param from The tensor's dims.
 * @param shape The dims asked for.
 * @returns The new dims.
 * @throws {RangeError} If the element counts cannot match.
 *
 * @example Usage
 * ```ts
 * import { reshapeDims } from "./layout.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(reshapeDims([2, 3, 4], [0, -1]), [2, 12]);
 * ```
 */
export function reshapeDims(
  from: readonly number[],
  shape: readonly number[],
): number[] {
  const size = shapeSize(from);
  const dims = shape.map((d, i) => (d === 0 && i < from.length ? from[i] : d));
  const unknown = dims.indexOf(-1);
  const known = dims.reduce((p, d) => (d === -1 ? p : p * d), 1);
  const bad = dims.some((d) => !Number.isInteger(d) || d < -1) ||
    dims.indexOf(-1, unknown + 1) !== -1 ||
    (unknown === -1 ? known !== size : known === 0 || size % known !== 0);
  if (bad) {
    throw new RangeError(
      `reshape: cannot reshape ${formatShape(from)} (${size} elements) to ${
        formatShape(shape)
      }`,
    );
  }
  if (unknown !== -1) dims[unknown] = size / known;
  return dims;
}

/**
 * The permutation `transpose` applies: `axes` with negative entries
 * resolved.
 *
 * @param shape The tensor's dims.
 * @param axes A permutation of `0..rank-1`; negative entries count from the end.
 * @returns The permutation.
 * @throws {RangeError} If `axes` is not a permutation of the dims.
 *
 * @example Usage
 * ```ts
 * import { transposePerm } from "./layout.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(transposePerm([2, 3, 4], [-1, 0, 1]), [2, 0, 1]);
 * ```
 */
export function transposePerm(
  shape: readonly number[],
  axes: readonly number[],
): number[] {
  const rank = shape.length;
  const perm = axes.map((a) => normalizeAxis(a, rank, "transpose"));
  if (perm.length !== rank || new Set(perm).size !== rank) {
    throw new RangeError(
      `transpose: axes ${formatShape(axes)} are not a permutation for ${
        formatShape(shape)
      }`,
    );
  }
  return perm;
}

/**
 * Where `concat` joins and the shape it makes.
 *
 * @param shapes The operands' dims, at least one.
 * @param axis The axis; negative counts from the end.
 * @returns The resolved axis and the result's dims.
 * @throws {RangeError} Without operands, or if they differ off the axis.
 *
 * @example Usage
 * ```ts
 * import { concatLayout } from "./layout.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(concatLayout([[2, 3], [2, 1]], -1), { axis: 1, shape: [2, 4] });
 * ```
 */
export function concatLayout(
  shapes: readonly (readonly number[])[],
  axis: number,
): { axis: number; shape: number[] } {
  if (shapes.length === 0) throw new RangeError("concat: no inputs");
  const first = shapes[0];
  const a = normalizeAxis(axis, first.length, "concat");
  let total = 0;
  for (const s of shapes) {
    const same = s.length === first.length &&
      s.every((d, i) => i === a || d === first[i]);
    if (!same) {
      throw new RangeError(
        `concat: shapes ${formatShape(first)} and ${
          formatShape(s)
        } differ off axis ${a}`,
      );
    }
    total += s[a];
  }
  return { axis: a, shape: first.with(a, total) };
}

/**
 * Where `slice` starts on each dim and the shape it keeps: bounds clamp to
 * the dim, negative ones count from its end.
 *
 * @param shape The tensor's dims.
 * @param axes The axes sliced.
 * @param starts Their starts.
 * @param ends Their ends (exclusive).
 * @returns The first index on every dim and the result's dims.
 * @throws {RangeError} If the lists differ in length or an axis is out of range.
 *
 * @example Usage
 * ```ts
 * import { sliceLayout } from "./layout.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(sliceLayout([4, 5], [1], [-3], [99]), { begin: [0, 2], shape: [4, 3] });
 * ```
 */
export function sliceLayout(
  shape: readonly number[],
  axes: readonly number[],
  starts: readonly number[],
  ends: readonly number[],
): { begin: number[]; shape: number[] } {
  if (starts.length !== axes.length || ends.length !== axes.length) {
    throw new RangeError(
      `slice: ${axes.length} axes need as many starts and ends, got ${starts.length} and ${ends.length}`,
    );
  }
  const kept = [...shape];
  const begin = new Array<number>(shape.length).fill(0);
  axes.forEach((axis, i) => {
    const a = normalizeAxis(axis, shape.length, "slice");
    const dim = shape[a];
    begin[a] = clampIndex(starts[i], dim);
    kept[a] = Math.max(0, clampIndex(ends[i], dim) - begin[a]);
  });
  return { begin, shape: kept };
}

/**
 * The sizes `split` cuts a dim into: `num` equal parts, or `sections`
 * with at most one -1 taking the rest.
 *
 * @param shape The tensor's dims.
 * @param axis The axis; negative counts from the end.
 * @param options `num` or `sections`.
 * @returns The resolved axis and the parts' sizes along it.
 * @throws {RangeError} If the parts do not fit the dim.
 *
 * @example Usage
 * ```ts
 * import { splitLayout } from "./layout.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(splitLayout([5], 0, { sections: [1, -1, 2] }), { axis: 0, sizes: [1, 2, 2] });
 * ```
 */
export function splitLayout(
  shape: readonly number[],
  axis: number,
  options: SplitKernelOptions,
): { axis: number; sizes: number[] } {
  const a = normalizeAxis(axis, shape.length, "split");
  const dim = shape[a];
  const sizes = "num" in options
    ? equalSections(dim, options.num)
    : [...options.sections];
  const unknown = sizes.indexOf(-1);
  const known = sizes.reduce((p, s) => (s === -1 ? p : p + s), 0);
  if (unknown !== -1) sizes[unknown] = dim - known;
  const bad = sizes.some((s) => !Number.isInteger(s) || s < 0) ||
    sizes.reduce((p, s) => p + s, 0) !== dim;
  if (bad) {
    throw new RangeError(
      `split: ${
        "num" in options
          ? `num ${options.num}`
          : `sections ${formatShape(options.sections)}`
      } do not fit dim ${dim} of ${formatShape(shape)}`,
    );
  }
  return { axis: a, sizes };
}

/**
 * The sizes `splitNearEqual` cuts a dim into: `num` parts that differ by
 * at most one element, the larger first (the dim need not divide evenly).
 *
 * @param shape The tensor's dims.
 * @param axis The axis; negative counts from the end.
 * @param num How many parts.
 * @returns The resolved axis and the parts' sizes along it.
 * @throws {RangeError} If `num` is not a positive integer.
 *
 * @example Usage
 * ```ts
 * import { nearEqualLayout } from "./layout.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(nearEqualLayout([2, 5], -1, 3), { axis: 1, sizes: [2, 2, 1] });
 * ```
 */
export function nearEqualLayout(
  shape: readonly number[],
  axis: number,
  num: number,
): { axis: number; sizes: number[] } {
  const a = normalizeAxis(axis, shape.length, "split");
  if (!Number.isInteger(num) || num < 1) {
    throw new RangeError(`split: num ${num} is not a positive integer`);
  }
  const dim = shape[a];
  const base = Math.floor(dim / num), extra = dim % num;
  const sizes = Array.from(
    { length: num },
    (_, i) => base + (i < extra ? 1 : 0),
  );
  return { axis: a, sizes };
}

/**
 * [outer, dim, inner]: the sizes before, at and after an axis.
 *
 * @param shape The dims.
 * @param axis A resolved axis.
 * @returns The three sizes.
 *
 * @example Usage
 * ```ts
 * import { aroundAxis } from "./layout.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(aroundAxis([2, 3, 4, 5], 1), [2, 3, 20]);
 * ```
 */
export function aroundAxis(
  shape: readonly number[],
  axis: number,
): [number, number, number] {
  return [
    shapeSize(shape.slice(0, axis)),
    shape[axis],
    shapeSize(shape.slice(axis + 1)),
  ];
}

/**
 * How `broadcastTo` reads X for each element of a result of dims `to`:
 * X's dims align with the last dims of `to` (NumPy's rule), and a dim of 1
 * repeats, read with stride 0.
 *
 * @param from X's dims.
 * @param to The result's dims, of at least X's rank.
 * @returns X's stride for each dim of the result.
 * @throws {RangeError} If `to` has a lower rank, or an aligned dim of X is
 * neither 1 nor the result's.
 *
 * @example Usage
 * ```ts
 * import { broadcastToStrides } from "./layout.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(broadcastToStrides([3, 1], [2, 3, 4]), [0, 1, 0]);
 * ```
 */
export function broadcastToStrides(
  from: readonly number[],
  to: readonly number[],
): number[] {
  const lead = to.length - from.length;
  const fits = lead >= 0 && to.every((d) => Number.isInteger(d) && d >= 0) &&
    from.every((d, i) => d === to[lead + i] || d === 1);
  if (!fits) {
    throw new RangeError(
      `broadcastTo: cannot broadcast ${formatShape(from)} to ${
        formatShape(to)
      }`,
    );
  }
  const strides = new Array<number>(to.length).fill(0);
  let stride = 1;
  for (let i = from.length - 1; i >= 0; i--) {
    if (from[i] !== 1) strides[lead + i] = stride;
    stride *= from[i];
  }
  return strides;
}

// `num` equal parts, or one impossible part when they cannot be equal.
function equalSections(dim: number, num: number): number[] {
  if (!Number.isInteger(num) || num < 1 || dim % num !== 0) return [dim + 1];
  return new Array<number>(num).fill(dim / num);
}

function clampIndex(i: number, dim: number): number {
  const k = i < 0 ? i + dim : i;
  return Math.min(Math.max(k, 0), dim);
}
