/**
 * How the normalizations group a tensor's elements, shared by the CPU and
 * WebGPU kernels so that both accept and refuse the same shapes with the
 * same words: `layer_norm` normalizes rows (the dims from
 * `begin_norm_axis` on), `instance_norm` each image's channel planes,
 * `group_norm` each image's groups of channels.
 *
 * @module
 */
import { formatShape, shapeSize } from "./_shape.ts";

/**
 * `layer_norm`'s rows: `left` rows of `right` elements.
 *
 * @param shape X's shape.
 * @param beginNormAxis The first dim of a row.
 * @returns The row count and length.
 * @throws {RangeError} If the axis is not a dim of X.
 *
 * @example Usage
 * ```ts
 * import { layerNormRows } from "./norm_geometry.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(layerNormRows([2, 3, 4], 1), { left: 2, right: 12 });
 * ```
 */
export function layerNormRows(
  shape: readonly number[],
  beginNormAxis: number,
): { left: number; right: number } {
  const axis = beginNormAxis;
  if (!Number.isInteger(axis) || axis < 0 || axis >= shape.length) {
    throw new RangeError(
      `layer_norm: begin_norm_axis ${axis} is outside [0, ${shape.length}) for input ${
        formatShape(shape)
      }`,
    );
  }
  return {
    left: shapeSize(shape.slice(0, axis)),
    right: shapeSize(shape.slice(axis)),
  };
}

/**
 * `instance_norm`'s planes: `n` images of `c` channels of `plane`
 * elements (NCHW).
 *
 * @param shape X's shape.
 * @returns Images, channels and plane size.
 * @throws {RangeError} If X's rank is below 2.
 *
 * @example Usage
 * ```ts
 * import { instanceNormPlanes } from "./norm_geometry.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(instanceNormPlanes([2, 3, 4, 5]), { n: 2, c: 3, plane: 20 });
 * ```
 */
export function instanceNormPlanes(
  shape: readonly number[],
): { n: number; c: number; plane: number } {
  if (shape.length < 2) {
    throw new RangeError(
      `instance_norm: input ${formatShape(shape)} has rank below 2`,
    );
  }
  return { n: shape[0], c: shape[1], plane: shapeSize(shape.slice(2)) };
}

/**
 * `group_norm`'s groups: `n` images of `c` channels, each in groups of
 * `width` channels, with `positions` elements per image and channel.
 *
 * @param shape X's shape.
 * @param groups The group count.
 * @param channelLast Whether X is NHWC.
 * @returns Images, channels, channels per group, elements per channel.
 * @throws {RangeError} If the groups do not divide C or X's rank is below 2.
 *
 * @example Usage
 * ```ts
 * import { groupNormGroups } from "./norm_geometry.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(groupNormGroups([2, 4, 3], 2, false), { n: 2, c: 4, width: 2, positions: 3 });
 * ```
 */
export function groupNormGroups(
  shape: readonly number[],
  groups: number,
  channelLast: boolean,
): { n: number; c: number; width: number; positions: number } {
  const rank = shape.length;
  const c = shape[channelLast ? rank - 1 : 1];
  if (
    rank < 2 || !Number.isInteger(groups) || groups < 1 || c % groups !== 0
  ) {
    throw new RangeError(
      `group_norm: input ${
        formatShape(shape)
      } does not split into ${groups} groups of channels`,
    );
  }
  const n = shape[0];
  return {
    n,
    c,
    width: c / groups,
    positions: n * c === 0 ? 0 : shapeSize(shape) / (n * c),
  };
}
