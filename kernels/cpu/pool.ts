// 2-D max and average pooling on the CPU, with Paddle's windows
// (paddle/phi/kernels/funcs/pooling.cc, read for its rules):
//
//   Output (i, j) looks at input rows [i·sh − pt, i·sh − pt + kh) and
//   columns likewise, clipped to the input; only the top and left paddings
//   place the windows (the bottom and right ones only add outputs, through
//   the output size).
//   Average: the sum over the clipped window divided by its size, or, when
//   not `exclusive`, by the size of the window clipped to
//   [−pt, H + pt) × [−pl, W + pl) instead (padding counts as zeros there).
//   Adaptive: output i covers [floor(i·H/OH), ceil((i + 1)·H/OH)), and
//   averages over it.
//   Max: the largest value of the clipped window, NaN if it holds one;
//   a window with no position inside the input (possible with ceil_mode)
//   gives −3.4028234663852886e38 (−FLT_MAX, Paddle's start value) for max
//   and NaN (0 / 0) for an exclusive average.
// Sums are float64, rounded once to the dtype.

import { allocate } from "../allocate.ts";
import { poolGeometry, type WindowGeometry } from "../conv_geometry.ts";
import type { PoolKind } from "../kernel_kinds.ts";
import type { Pool2dKernelOptions } from "../kernel_options.ts";
import { Tensor } from "../tensor.ts";
import { transpose } from "./shape.ts";

type Floats = { [index: number]: number; readonly length: number };

const FLT_MAX = 3.4028234663852886e38;

/**
 * Max or average pooling over windows of X's spatial dims (NCHW, or NHWC
 * with `channelLast`), by Paddle's rules (see the file's header).
 *
 * @param kind `max` or `avg`.
 * @param x The input, of a float dtype, rank 4.
 * @param options The window, resolved: `ksize`, strides, `[top, bottom,
 * left, right]` paddings, ceil mode, exclusive, adaptive, layout.
 * @returns The result, of X's dtype.
 * @throws {RangeError} If the window does not fit the padded input or an
 * option is malformed, naming the shapes.
 * @throws {TypeError} If X is not of a float dtype.
 *
 * @example Usage
 * ```ts
 * import { pool2d } from "./pool.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[[[1, 2, 3, 4], [5, 6, 7, 8]]]], "float32");
 * const opts = { ksize: [2, 2], strides: [2, 2] };
 * assertEquals(pool2d("max", x, opts).toNested(), [[[[6, 8]]]]);
 * assertEquals(pool2d("avg", x, opts).toNested(), [[[[3.5, 5.5]]]]);
 * ```
 */
export function pool2d(
  kind: PoolKind,
  x: Tensor,
  options: Pool2dKernelOptions,
): Tensor {
  const g = poolGeometry(x, options);
  if (g.channelLast) {
    const nchw = pool2d(kind, transpose(x, [0, 3, 1, 2]), {
      ...options,
      channelLast: false,
    });
    return transpose(nchw, [0, 2, 3, 1]);
  }
  const out = allocate(x.dtype, g.n * g.c * g.oh * g.ow) as Floats;
  const windows = poolWindows(g, options);
  const xs = x.data as Floats;
  const hw = g.h * g.w, ohw = g.oh * g.ow;
  const average = kind === "avg";
  for (let plane = 0; plane < g.n * g.c; plane++) {
    const base = plane * hw;
    for (let i = 0; i < g.oh; i++) {
      const y0 = windows.rows[2 * i], y1 = windows.rows[2 * i + 1];
      for (let j = 0; j < g.ow; j++) {
        const x0 = windows.cols[2 * j], x1 = windows.cols[2 * j + 1];
        let acc = average ? 0 : -FLT_MAX;
        for (let y = y0; y < y1; y++) {
          const row = base + y * g.w;
          for (let xx = x0; xx < x1; xx++) {
            const v = xs[row + xx];
            if (average) acc += v;
            else if (v !== v) acc = NaN;
            else if (v > acc) acc = v; // false once acc is NaN
          }
        }
        out[plane * ohw + i * g.ow + j] = average
          ? acc / windows.divisor(i, j)
          : acc;
      }
    }
  }
  return new Tensor(x.dtype, [g.n, g.c, g.oh, g.ow], out as never);
}

/** The clipped windows of every output row and column, and the divisor. */
interface PoolWindows {
  /** Start and end input row of each output row, in pairs. */
  readonly rows: Int32Array;
  /** Start and end input column of each output column, in pairs. */
  readonly cols: Int32Array;
  /** What the average of output (i, j) divides by. */
  divisor(i: number, j: number): number;
}

function poolWindows(
  g: WindowGeometry,
  options: Pool2dKernelOptions,
): PoolWindows {
  const adaptive = options.adaptive === true;
  const exclusive = options.exclusive ?? true;
  const rows = new Int32Array(2 * g.oh), cols = new Int32Array(2 * g.ow);
  // The window clipped to the top-or-left padding on both sides, for the
  // divisor of a non-exclusive average.
  const rowsPadded = new Int32Array(g.oh), colsPadded = new Int32Array(g.ow);
  const place = (
    ends: Int32Array,
    padded: Int32Array,
    count: number,
    size: number,
    kernel: number,
    stride: number,
    pad: number,
  ) => {
    for (let i = 0; i < count; i++) {
      if (adaptive) {
        ends[2 * i] = Math.floor((i * size) / count);
        ends[2 * i + 1] = Math.ceil(((i + 1) * size) / count);
        continue;
      }
      const start = i * stride - pad;
      const end = Math.min(start + kernel, size + pad);
      padded[i] = end - start;
      ends[2 * i] = Math.max(start, 0);
      ends[2 * i + 1] = Math.max(ends[2 * i], Math.min(end, size));
    }
  };
  place(rows, rowsPadded, g.oh, g.h, g.kh, g.sh, g.pt);
  place(cols, colsPadded, g.ow, g.w, g.kw, g.sw, g.pl);
  const clipped = exclusive || adaptive;
  return {
    rows,
    cols,
    divisor: clipped
      ? (i, j) =>
        (rows[2 * i + 1] - rows[2 * i]) * (cols[2 * j + 1] - cols[2 * j])
      : (i, j) => rowsPadded[i] * colsPadded[j],
  };
}
