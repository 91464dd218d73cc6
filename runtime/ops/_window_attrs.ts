/**
 * Paddle's window attributes, resolved the way its `UpdatePadding` and
 * `UpdatePaddingAndDilation` resolve them, for the convolution and pooling
 * ops (conv.ts, pool.ts): a layout string, two or four paddings, a padding
 * algorithm. Shape rules call these with -1 for a dim not known before the
 * run; run functions with the real dims.
 *
 * - Two paddings `[h, w]` mean `[h, h, w, w]`; four are `[top, bottom,
 *   left, right]`.
 * - `SAME` pads so that the output is `ceil(in / stride)`: the padding
 *   `max((out − 1)·stride + k − in, 0)` split with the smaller half on top
 *   (left), and the dilation set to 1, as Paddle does.
 * - `VALID` pads nothing; `EXPLICIT` takes the paddings as given.
 *
 * @module
 */
import { AttrError } from "../core/attr_read.ts";

const LAYOUTS = ["NCHW", "NHWC", "AnyLayout"];
const ALGORITHMS = ["EXPLICIT", "SAME", "VALID"];

/**
 * Checks a layout attribute (`data_format`, `data_layout`): NCHW, NHWC or
 * AnyLayout (read as NCHW).
 *
 * @param name The attribute's name.
 * @param value Its value.
 * @throws {AttrError} For any other value.
 *
 * @example Usage
 * ```ts
 * import { checkLayout } from "./_window_attrs.ts";
 * import { assertThrows } from "@std/assert";
 *
 * checkLayout("data_format", "AnyLayout");
 * assertThrows(() => checkLayout("data_format", "NDHWC"));
 * ```
 */
export function checkLayout(name: string, value: string): void {
  if (!LAYOUTS.includes(value)) {
    throw new AttrError(
      name,
      `"${value}" is not one of ${LAYOUTS.map((l) => `"${l}"`).join(", ")}`,
    );
  }
}

/**
 * Whether a layout attribute says channels last.
 *
 * @param value NCHW, NHWC or AnyLayout.
 * @returns True for NHWC.
 *
 * @example Usage
 * ```ts
 * import { channelLast } from "./_window_attrs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals([channelLast("NHWC"), channelLast("AnyLayout")], [true, false]);
 * ```
 */
export function channelLast(value: string): boolean {
  return value === "NHWC";
}

/** A window op's attributes, as Paddle names them. */
export interface WindowAttrs {
  /** `strides`. */
  readonly strides: readonly number[];
  /** `paddings`, two or four. */
  readonly paddings: readonly number[];
  /** `padding_algorithm`. */
  readonly padding_algorithm: string;
}

/**
 * Checks the window attributes every conv and pool op has: two strides,
 * two or four paddings, a known padding algorithm, and two of each pair
 * attribute named in `pairs` (`dilations`, `ksize`).
 *
 * @param a The attributes.
 * @param pairs More two-value attributes, by name.
 * @throws {AttrError} Naming the attribute that is wrong.
 *
 * @example Usage
 * ```ts
 * import { checkWindowAttrs } from "./_window_attrs.ts";
 * import { assertThrows } from "@std/assert";
 *
 * const a = { strides: [1, 1], paddings: [1, 1, 0, 0], padding_algorithm: "SAME" };
 * checkWindowAttrs(a, { dilations: [1, 1] });
 * assertThrows(() => checkWindowAttrs({ ...a, paddings: [1, 1, 1] }));
 * ```
 */
export function checkWindowAttrs(
  a: WindowAttrs,
  pairs: Readonly<Record<string, readonly number[]>> = {},
): void {
  if (!ALGORITHMS.includes(a.padding_algorithm)) {
    throw new AttrError(
      "padding_algorithm",
      `"${a.padding_algorithm}" is not one of ${
        ALGORITHMS.map((l) => `"${l}"`).join(", ")
      }`,
    );
  }
  if (a.paddings.length !== 2 && a.paddings.length !== 4) {
    throw new AttrError(
      "paddings",
      `[${a.paddings.join(", ")}] has ${a.paddings.length} values, not 2 or 4`,
    );
  }
  if (a.paddings.some((p) => p < 0)) {
    throw new AttrError("paddings", `[${a.paddings.join(", ")}] is negative`);
  }
  for (
    const [name, values] of Object.entries({ strides: a.strides, ...pairs })
  ) {
    if (values.length !== 2 || values.some((v) => v < 1)) {
      throw new AttrError(
        name,
        `[${values.join(", ")}] is not two positive integers`,
      );
    }
  }
}

/** Paddings and dilations resolved for one call. */
export interface ResolvedWindow {
  /**
   * `[top, bottom, left, right]`; a value is -1 where it depends on an
   * input dim not known yet (`SAME`).
   */
  readonly paddings: number[];
  /** `[h, w]` (all 1 under `SAME`). */
  readonly dilations: number[];
}

/**
 * Resolves paddings and dilations for an input's spatial dims.
 *
 * @param a The window attributes.
 * @param input The input's `[height, width]`, -1 where unknown.
 * @param kernel The window's `[height, width]` (undilated).
 * @param dilations The `dilations` attribute (`[1, 1]` for pooling).
 * @returns The four paddings and the dilations.
 *
 * @example Usage
 * ```ts
 * import { resolveWindow } from "./_window_attrs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const a = { strides: [2, 2], paddings: [0, 0], padding_algorithm: "SAME" };
 * assertEquals(resolveWindow(a, [5, -1], [3, 3], [2, 2]), {
 *   paddings: [1, 1, -1, -1],
 *   dilations: [1, 1],
 * });
 * ```
 */
export function resolveWindow(
  a: WindowAttrs,
  input: readonly number[],
  kernel: readonly number[],
  dilations: readonly number[] = [1, 1],
): ResolvedWindow {
  const p = a.paddings.length === 2
    ? [a.paddings[0], a.paddings[0], a.paddings[1], a.paddings[1]]
    : [...a.paddings];
  switch (a.padding_algorithm) {
    case "VALID":
      return { paddings: [0, 0, 0, 0], dilations: [...dilations] };
    case "SAME":
      for (let i = 0; i < 2; i++) {
        if (input[i] < 0) {
          p[2 * i] = p[2 * i + 1] = -1;
          continue;
        }
        const stride = a.strides[i];
        const out = Math.ceil(input[i] / stride);
        const sum = Math.max((out - 1) * stride + kernel[i] - input[i], 0);
        p[2 * i] = Math.floor(sum / 2);
        p[2 * i + 1] = sum - p[2 * i];
      }
      return { paddings: p, dilations: [1, 1] };
    default:
      return { paddings: p, dilations: [...dilations] };
  }
}

/**
 * An NCHW or NHWC shape's channel count and spatial dims.
 *
 * @param shape A rank-4 shape.
 * @param last Channels last.
 * @returns `[channels, height, width]`.
 *
 * @example Usage
 * ```ts
 * import { splitLayout } from "./_window_attrs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(splitLayout([8, 56, 56, 64], true), [64, 56, 56]);
 * ```
 */
export function splitLayout(
  shape: readonly number[],
  last: boolean,
): [number, number, number] {
  return last ? [shape[3], shape[1], shape[2]] : [shape[1], shape[2], shape[3]];
}

/**
 * A rank-4 shape from its parts, in a layout.
 *
 * @param n Images.
 * @param c Channels.
 * @param hw `[height, width]`.
 * @param last Channels last.
 * @returns `[n, c, h, w]` or `[n, h, w, c]`.
 *
 * @example Usage
 * ```ts
 * import { joinLayout } from "./_window_attrs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(joinLayout(8, 64, [28, 28], false), [8, 64, 28, 28]);
 * ```
 */
export function joinLayout(
  n: number,
  c: number,
  hw: readonly number[],
  last: boolean,
): number[] {
  return last ? [n, hw[0], hw[1], c] : [n, c, hw[0], hw[1]];
}

/**
 * `[1, 3, 224, 224]`, with `?` for an unknown dim.
 *
 * @param shape Dims, -1 unknown.
 * @returns The text.
 *
 * @example Usage
 * ```ts
 * import { shapeText } from "./_window_attrs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(shapeText([-1, 3, 224, 224]), "[?, 3, 224, 224]");
 * ```
 */
export function shapeText(shape: readonly number[]): string {
  return `[${shape.map((d) => (d < 0 ? "?" : String(d))).join(", ")}]`;
}
