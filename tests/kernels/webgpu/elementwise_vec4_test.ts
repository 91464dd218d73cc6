import { assert, assertEquals } from "@std/assert";
import * as cpu from "../../../kernels/cpu/elementwise.ts";
import {
  binary,
  compare,
  GPU_BINARY,
  GPU_UNARY,
  scale,
  unary,
} from "../../../kernels/webgpu/elementwise.ts";
import {
  vec4Fits,
  vec4Plan,
} from "../../../kernels/webgpu/_elementwise_vec4.ts";
import { COMPARE_KINDS } from "../../../kernels/kernel_kinds.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
  gpu,
  gpuTest,
  hasF16,
  onGpu,
  randomTensor,
  seeded,
  SPECIALS,
} from "./_gpu.ts";

// Sizes around the quad: a lone element, a partial quad, whole quads, one
// more, and a partial quad after many whole ones.
const SIZES = [1, 3, 4, 5, 7, 1000, 4096 + 3];

// [x shape, y shape, expected reads]: the shapes that coalesce to one dim
// with strides 0 or 1, so binary() takes the vec4 kernels.
// Coalescing drops dims of 1, so one element is read as a splat.
const FLAT: [number[], number[], string][] = [
  ...SIZES.flatMap((n): [number[], number[], string][] => {
    const quad = n === 1 ? "splat" : "quad";
    return [
      [[n], [n], `${quad} ${quad}`],
      [[n], [], `${quad} splat`],
      [[1], [n], `splat ${quad}`],
    ];
  }),
  [[7, 33], [7, 33], "quad quad"],
  [[7, 33], [1, 1], "quad splat"],
  [[1], [1, 1], "splat splat"],
  [[], [], "splat splat"],
];

// Checks that vec4Plan accepts operands of these shapes, reading them as
// expected, so the cases below really run the vec4 kernels.
function planned(xs: number[], ys: number[], reads: string): void {
  const b = batch();
  const x = b.upload(Tensor.zeros(xs, "float32"));
  const y = b.upload(Tensor.zeros(ys, "float32"));
  assertEquals(vec4Plan(x, y, -1)?.reads.join(" "), reads, `${xs} ${ys}`);
  x.release();
  y.release();
}

Deno.test({
  name: "vec4Plan() takes same shapes and scalars, leaves the rest",
  ...gpuTest,
  fn: () => {
    for (const [xs, ys, reads] of FLAT) planned(xs, ys, reads);
    const b = batch();
    const m = b.upload(Tensor.zeros([2, 3], "float32"));
    const row = b.upload(Tensor.zeros([3], "float32"));
    assertEquals(vec4Plan(m, row, -1), null);
    assertEquals(vec4Fits(6, [m]), true);
    // float16 needs shader-f16, which a GL adapter (Mesa without its Vulkan
    // driver) does not have.
    if (hasF16) {
      const h = b.upload(Tensor.zeros([2, 3], "float16"));
      assertEquals(vec4Plan(h, h, -1), null);
      assertEquals(vec4Fits(6, [h]), false);
      h.release();
    }
    for (const t of [m, row]) t.release();
  },
});

Deno.test({
  name: "binary() on the vec4 path matches the CPU, NaN, ±Infinity, ±0",
  ...gpuTest,
  fn: async () => {
    const next = seeded(21);
    for (const kind of GPU_BINARY.float32) {
      const range = kind === "pow" ? { min: -3, max: 3 } : { min: -9, max: 9 };
      for (const [xs, ys] of FLAT) {
        const opts = { ...range, specials: SPECIALS };
        const x = randomTensor(next, xs, "float32", opts);
        const y = randomTensor(next, ys, "float32", opts);
        const got = await onGpu([x, y], (a, b) => binary(batch(), kind, a, b));
        assertMatchesCpu(kind, got, cpu.binary(kind, x, y));
      }
    }
  },
});

Deno.test({
  name: "binary() on the vec4 path gives every special pair the CPU's bits",
  ...gpuTest,
  fn: async () => {
    // All 7 × 7 pairs in one tensor (49 elements: a partial last quad).
    const xs: number[] = [], ys: number[] = [];
    for (const a of SPECIALS) for (const b of SPECIALS) xs.push(a), ys.push(b);
    const x = Tensor.fromArray(xs, "float32");
    const y = Tensor.fromArray(ys, "float32");
    for (const kind of ["add", "sub", "mul", "max", "min"] as const) {
      const got = await onGpu([x, y], (a, b) => binary(batch(), kind, a, b));
      const want = cpu.binary(kind, x, y);
      const bits = (t: Tensor) =>
        [...new Uint32Array(new Float32Array(t.data as Float32Array).buffer)]
          .map((u, i) => Number.isNaN(t.data[i]) ? "NaN" : u);
      assertEquals(bits(got), bits(want), kind);
    }
  },
});

Deno.test({
  name: "binary() and compare() on the vec4 path match the CPU on int32",
  ...gpuTest,
  fn: async () => {
    const next = seeded(22);
    for (const [xs, ys] of FLAT) {
      const x = randomTensor(next, xs, "int32", { min: -3e9, max: 3e9 });
      const y = randomTensor(next, ys, "int32", { min: -3e9, max: 3e9 });
      for (const kind of GPU_BINARY.int32) {
        const got = await onGpu([x, y], (a, b) => binary(batch(), kind, a, b));
        assertEquals(got.toNested(), cpu.binary(kind, x, y).toNested(), kind);
      }
      const got = await onGpu(
        [x, y],
        (a, b) => compare(batch(), "less_than", a, b),
      );
      assertEquals(got.toNested(), cpu.compare("less_than", x, y).toNested());
    }
  },
});

Deno.test({
  name: "compare() on the vec4 path matches the CPU, NaN included",
  ...gpuTest,
  fn: async () => {
    const next = seeded(23);
    const opts = { min: -2, max: 2, integers: true, specials: SPECIALS };
    for (const kind of COMPARE_KINDS) {
      for (const [xs, ys] of FLAT) {
        const x = randomTensor(next, xs, "float32", opts);
        const y = randomTensor(next, ys, "float32", opts);
        const got = await onGpu([x, y], (a, b) => compare(batch(), kind, a, b));
        assertEquals(got.dtype, "bool");
        assertMatchesCpu(kind, got, cpu.compare(kind, x, y));
      }
    }
  },
});

Deno.test({
  name: "unary() and scale() on the vec4 path match the CPU at every size",
  ...gpuTest,
  fn: async () => {
    const next = seeded(24);
    for (const n of SIZES) {
      const x = randomTensor(next, [n], "float32", {
        min: -50,
        max: 50,
        specials: SPECIALS,
      });
      for (const kind of GPU_UNARY) {
        const got = await onGpu([x], (a) => unary(batch(), kind, a));
        assertMatchesCpu(kind, got, cpu.unary(kind, x));
      }
      const got = await onGpu([x], (a) => scale(batch(), a, 0.1, 3.3, false));
      assertMatchesCpu("scale", got, cpu.scale(x, 0.1, 3.3, false));
      const xi = randomTensor(next, [n], "int32", { min: -3e9, max: 3e9 });
      const goti = await onGpu([xi], (a) => scale(batch(), a, 3e9 + 7, -2));
      assertEquals(goti.toNested(), cpu.scale(xi, 3e9 + 7, -2).toNested());
    }
  },
});

Deno.test({
  name: "binary() keeps the broadcast rank of scalar operands",
  ...gpuTest,
  fn: async () => {
    const x = Tensor.fromArray([2], "float32");
    const y = Tensor.fromArray([[3]], "float32");
    const got = await onGpu([x, y], (a, b) => binary(batch(), "mul", a, b));
    assertEquals(got.toNested(), [[6]]);
    const empty = Tensor.zeros([0], "float32");
    const none = await onGpu(
      [empty, empty],
      (a, b) => binary(batch(), "add", a, b),
    );
    assertEquals(none.shape, [0]);
  },
});

Deno.test({
  name: "binary() and unary() on the vec4 path loop past 65535 workgroups",
  ...gpuTest,
  fn: async () => {
    // 65535 workgroups of 64 invocations cover 65535 · 256 elements; this
    // size makes the first invocations take a second quad, and a partial
    // one at the end.
    const n = 65535 * 256 + 4 * 64 * 3 + 3;
    if (gpu().device.limits.maxStorageBufferBindingSize < n * 4) return;
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = (i % 2001) - 1000;
    const x = new Tensor("float32", [n], data);
    const y = Tensor.scalar(0.5, "float32");
    const sum = await onGpu([x, y], (a, b) => binary(batch(), "add", a, b));
    const relu = await onGpu([x], (a) => unary(batch(), "relu", a));
    for (let i = 0; i < n; i++) {
      const v = data[i];
      if (sum.data[i] !== v + 0.5 || relu.data[i] !== (v > 0 ? v : 0)) {
        assert(false, `element ${i} of ${n}: ${sum.data[i]}, ${relu.data[i]}`);
      }
    }
  },
});
