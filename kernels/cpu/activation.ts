// Paddle's parameterized activations on the CPU: the reference semantics
// of every ActivationKind (../device.ts), one scalar function per kind
// made from the kind's parameters, computed in float64 and rounded once by
// the output array's store (as kernels/cpu/alu.ts does).
//
// Each formula is Paddle's (phi's activation functors), written so that
// float64 loses nothing Paddle's own float32 arithmetic keeps:
//   gelu       0.5·x·(1 + erf(x/√2)); for x/√2 <= -2 as 0.5·x·erfc(|x|/√2),
//              which keeps the relative accuracy of the tiny negative tail.
//   gelu_tanh  0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), computed as
//              x / (1 + e^(-2y)), the same value without the cancellation
//              of 1 + tanh(y) for negative y.
//   elu        expm1 where Paddle writes exp(x) - 1.
// Special values come out as Paddle's formulas give them: gelu and swish
// of -Infinity are NaN (-∞ · 0), as in Paddle.
//
// erf and erfc (JavaScript has neither): for |z| < ERF_SERIES_MAX the
// series erf(z) = 2/√π · e^(-z²) · Σ 2ⁿ z^(2n+1) / (1·3···(2n+1)), whose
// terms are all positive (no cancellation), summed until they stop
// counting; beyond it Laplace's continued fraction
//   erfc(z) = 2z·e^(-z²)/√π / (2z²+1 - 1·2/(2z²+5 - 3·4/(2z²+9 - …))),
// evaluated from depth ERFC_DEPTH up, which is within 1e-17 of its limit
// from z = 2 on (measured against depth 500). Both are within a few units
// of float64's last place of erf and erfc there.

import { allocate } from "../allocate.ts";
import { ACTIVATION_PARAMS, type ActivationKind } from "../kernel_kinds.ts";
import { type DType, isFloatDType, type StorageArray } from "../dtype.ts";
import { Tensor } from "../tensor.ts";
import { cast } from "./cast.ts";

/** Makes a kind's scalar function from its parameters. */
type Activation = (params: readonly number[]) => (a: number) => number;

const ERF_SERIES_MAX = 2;
const ERFC_DEPTH = 32;
const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);
const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

/**
 * Every activation kind's scalar function, made from its parameters (in
 * `ACTIVATION_PARAMS` order).
 *
 * @example Usage
 * ```ts
 * import { ACTIVATION_ALU } from "./activation.ts";
 * import { assertAlmostEquals, assertEquals } from "@std/assert";
 *
 * assertEquals(ACTIVATION_ALU.leaky_relu([0.5])(-4), -2);
 * // gelu(1) = Φ(1), the standard normal CDF at 1.
 * assertAlmostEquals(ACTIVATION_ALU.gelu([])(1), 0.8413447460685429, 1e-15);
 * ```
 */
export const ACTIVATION_ALU: Readonly<Record<ActivationKind, Activation>> = {
  gelu: () => gelu,
  gelu_tanh: () => (a) => {
    const y = SQRT_2_OVER_PI * (a + 0.044715 * a * a * a);
    return a / (1 + Math.exp(-2 * y));
  },
  swish: ([beta]) => (a) => a / (1 + Math.exp(-beta * a)),
  hard_swish: ([threshold, scale, offset]) => (a) =>
    a * Math.min(Math.max(a + offset, 0), threshold) / scale,
  hard_sigmoid: ([slope, offset]) => (a) =>
    Math.max(0, Math.min(1, slope * a + offset)),
  leaky_relu: ([alpha]) => (a) => (a > 0 ? a : alpha * a),
  relu6: ([threshold]) => (a) => Math.min(Math.max(a, 0), threshold),
  elu: ([alpha]) => (a) => (a < 0 ? alpha * Math.expm1(a) : a),
  // Paddle's ClipFunctor: NaN fails both tests and passes through.
  clip: ([min, max]) => (a) => (a < min ? min : a > max ? max : a),
  // Paddle 3's ThresholdedReluFunctor: NaN fails the test and gives value.
  thresholded_relu: ([threshold, value]) => (a) => (a > threshold ? a : value),
};

/**
 * A parameterized activation, elementwise.
 *
 * @param kind The activation.
 * @param x The operand. Float dtypes keep theirs; integer and bool
 * operands compute as float32.
 * @param params The kind's parameters, as `ACTIVATION_PARAMS` lists them;
 * each is rounded to float32 first, as Paddle's float attributes are.
 * @returns A new tensor of x's shape.
 * @throws {TypeError} If the kind is unknown.
 * @throws {RangeError} If `params` has the wrong length.
 *
 * @example Usage
 * ```ts
 * import { activation } from "./activation.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([-3, 0.5, 9], "float32");
 * assertEquals(activation("relu6", x, [6]).toNested(), [0, 0.5, 6]);
 * assertEquals(activation("hard_sigmoid", x, [0.2, 0.5]).toNested(), [0, 0.6000000238418579, 1]);
 * ```
 */
export function activation(
  kind: ActivationKind,
  x: Tensor,
  params: readonly number[] = [],
): Tensor {
  const make = ACTIVATION_ALU[kind];
  if (make === undefined) {
    throw new TypeError(`activation: unknown kind "${kind}"`);
  }
  const names = ACTIVATION_PARAMS[kind];
  if (params.length !== names.length) {
    throw new RangeError(
      `${kind}: takes ${names.length} parameters (${
        names.join(", ")
      }), got ${params.length}`,
    );
  }
  const dtype: DType = isFloatDType(x.dtype) ? x.dtype : "float32";
  // Paddle's attributes are float32 (its functors cast them to T).
  const p = params.map(Math.fround);
  const a = cast(x, dtype).data as StorageArray;
  const data = allocate(dtype, x.size);
  const out = data as StorageArray;
  const inline = INLINE[kind];
  if (inline !== undefined) {
    inline(a, out, p);
  } else {
    const f = make(p);
    for (let i = 0; i < a.length; i++) out[i] = f(a[i] as number);
  }
  return new Tensor(dtype, x.shape, data);
}

/** A kind's whole loop: operand, output, parameters (float32-rounded). */
type ActivationLoop = (
  a: StorageArray,
  out: StorageArray,
  params: readonly number[],
) => void;

// The cheap kinds' loops written out, each with the formula of its
// ACTIVATION_ALU entry (so the same float64 arithmetic and one rounding
// per store): through `f`, one call per element from a call site every
// kind shares (megamorphic, never inlined) cost 2–4 × the arithmetic, and
// MobileNetV3's hard_swish and hard_sigmoid run over every feature map.
const INLINE: Readonly<Partial<Record<ActivationKind, ActivationLoop>>> = {
  hard_swish: (a, out, [threshold, scale, offset]) => {
    for (let i = 0; i < a.length; i++) {
      const v = a[i] as number;
      out[i] = v * Math.min(Math.max(v + offset, 0), threshold) / scale;
    }
  },
  hard_sigmoid: (a, out, [slope, offset]) => {
    for (let i = 0; i < a.length; i++) {
      out[i] = Math.max(0, Math.min(1, slope * (a[i] as number) + offset));
    }
  },
  leaky_relu: (a, out, [alpha]) => {
    for (let i = 0; i < a.length; i++) {
      const v = a[i] as number;
      out[i] = v > 0 ? v : alpha * v;
    }
  },
  relu6: (a, out, [threshold]) => {
    for (let i = 0; i < a.length; i++) {
      out[i] = Math.min(Math.max(a[i] as number, 0), threshold);
    }
  },
  clip: (a, out, [min, max]) => {
    for (let i = 0; i < a.length; i++) {
      const v = a[i] as number;
      out[i] = v < min ? min : v > max ? max : v;
    }
  },
};

function gelu(x: number): number {
  const z = x / Math.SQRT2;
  // e^(-z²) as e^(-x²/2): one rounding fewer.
  const gauss = Math.exp(-0.5 * x * x);
  if (Math.abs(z) < ERF_SERIES_MAX) return 0.5 * x * (1 + erfSeries(z, gauss));
  const tail = erfcFraction(Math.abs(z), gauss);
  return z > 0 ? x * (1 - 0.5 * tail) : 0.5 * x * tail;
}

// erf(z) for |z| < ERF_SERIES_MAX; `gauss` is e^(-z²).
function erfSeries(z: number, gauss: number): number {
  const a = Math.abs(z), twoA2 = 2 * a * a;
  let term = a, sum = a;
  for (let n = 0; term > 1e-17 * sum; n++) {
    term *= twoA2 / (2 * n + 3);
    sum += term;
  }
  const erf = TWO_OVER_SQRT_PI * gauss * sum;
  return z < 0 ? -erf : erf;
}

// erfc(a) for a >= ERF_SERIES_MAX (Infinity included); `gauss` is e^(-a²).
function erfcFraction(a: number, gauss: number): number {
  if (gauss === 0) return 0;
  const s = 2 * a * a;
  let f = s + 4 * ERFC_DEPTH + 1;
  for (let n = ERFC_DEPTH; n >= 1; n--) {
    f = s + 4 * n - 3 - (2 * n - 1) * (2 * n) / f;
  }
  return TWO_OVER_SQRT_PI * a * gauss / f;
}
