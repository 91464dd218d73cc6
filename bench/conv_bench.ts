// The convolution shapes of issue 19 across devices and peers in one run:
// conv2d 3×3, 64→64 channels, 56×56, batch 8, stride 1, padding 1 (same),
// and depthwise 3×3 over 96 channels, 56×56, batch 8; Rill's CPU kernel
// (im2col into the WASM SIMD gemm; the 3×3 depthwise loop), Rill's WGSL
// kernels, and TensorFlow.js's WASM (XNNPACK, one thread under Deno) and
// WebGPU backends on the same llvmpipe adapter — the anchors of
// ../shared/anchors/conv/RESULTS.md. Run:
//   XDG_RUNTIME_DIR=/tmp/xdg deno bench -A bench/conv_bench.ts
//
// Rill runs the layout Paddle saves, NCHW; TensorFlow.js its own, NHWC
// (the anchors'): the same arithmetic on the same sizes.
// What one timed iteration is, as in the anchors:
//   - Rill CPU: one kernel call into a new tensor;
//   - tfjs wasm: the op and `dataSync()` (a copy out of its heap);
//   - GPU rows: the op plus its read-back (one mapAsync round, about
//     10 ms in Deno), inputs already on the device.
// FLOPs are 2 × multiply-adds. Medians and bests, GFLOPS and the ratios
// the issue asks for (Rill's speed ÷ TensorFlow.js's on the same device)
// are printed at the end.
// The peers are benchmark-only dependencies, pinned by full npm:
// specifiers here rather than in deno.json.
// deno-lint-ignore-file no-import-prefix

import * as tf from "npm:@tensorflow/tfjs-core@4.22.0";
import "npm:@tensorflow/tfjs-backend-webgpu@4.22.0";
import "npm:@tensorflow/tfjs-backend-wasm@4.22.0";
import { conv2d as cpuConv2d } from "../kernels/cpu/conv.ts";
import { GpuDevice } from "../kernels/webgpu/gpu_device.ts";
import { GpuBatch } from "../kernels/webgpu/gpu_batch.ts";
import { conv2d as gpuConv2d } from "../kernels/webgpu/conv.ts";
import { Tensor } from "../kernels/tensor.ts";
import { randomFloat32, Timings } from "./_timings.ts";

const ROWS = ["rill cpu", "tfjs wasm", "rill webgpu", "tfjs webgpu"] as const;
type Row = typeof ROWS[number];

interface Case {
  readonly name: string;
  readonly n: number;
  readonly c: number;
  readonly oc: number;
  readonly hw: number;
  readonly depthwise: boolean;
  /** Timed iterations per row. */
  readonly iterations: Readonly<Record<Row, number>>;
}

const CASES: readonly Case[] = [
  {
    name: "conv2d 3×3 64→64 56² b8",
    n: 8,
    c: 64,
    oc: 64,
    hw: 56,
    depthwise: false,
    iterations: {
      "rill cpu": 20,
      "tfjs wasm": 20,
      "rill webgpu": 5,
      "tfjs webgpu": 3,
    },
  },
  {
    name: "depthwise 3×3 c96 56² b8",
    n: 8,
    c: 96,
    oc: 96,
    hw: 56,
    depthwise: true,
    iterations: {
      "rill cpu": 30,
      "tfjs wasm": 30,
      "rill webgpu": 10,
      "tfjs webgpu": 10,
    },
  },
];
const WARMUP = 1;

const gpu = await GpuDevice.request();
if (!(gpu instanceof GpuDevice)) {
  throw new Error(`conv_bench: no WebGPU device: ${gpu.explain}`);
}
console.log(`adapter: ${gpu.explain}`);
const batch = new GpuBatch(gpu);
const timings = new Timings();

function flopsOf(c: Case): number {
  const taps = c.depthwise ? 9 : 9 * c.c;
  return 2 * c.n * c.hw * c.hw * c.oc * taps;
}

async function useBackend(backend: string): Promise<void> {
  if (tf.getBackend() === backend) return;
  if (!await tf.setBackend(backend)) {
    throw new Error(`conv_bench: tfjs backend ${backend} failed`);
  }
}

for (const c of CASES) {
  const x = new Tensor(
    "float32",
    [c.n, c.c, c.hw, c.hw],
    randomFloat32(c.n * c.c * c.hw * c.hw, 1),
  );
  const fShape = [c.oc, c.depthwise ? 1 : c.c, 3, 3];
  const f = new Tensor(
    "float32",
    fShape,
    randomFloat32(c.oc * fShape[1] * 9, 2),
  );
  const options = { paddings: [1, 1, 1, 1], groups: c.depthwise ? c.c : 1 };
  const gx = batch.upload(x), gf = batch.upload(f);
  // tfjs operands (NHWC; HWIO or HW·C·1), made in the backend they serve.
  const tfOperands = async (backend: string) => {
    await useBackend(backend);
    const input = tf.randomUniform(
      [c.n, c.hw, c.hw, c.c],
      -0.5,
      0.5,
    ) as tf.Tensor4D;
    const filter = tf.randomUniform(
      [3, 3, c.c, c.depthwise ? 1 : c.oc],
      -0.5,
      0.5,
    ) as tf.Tensor4D;
    return [input, filter] as const;
  };
  const tfOp = (input: tf.Tensor4D, filter: tf.Tensor4D) =>
    c.depthwise
      ? tf.depthwiseConv2d(input, filter, 1, "same")
      : tf.conv2d(input, filter, 1, "same");
  let wasmOperands: readonly [tf.Tensor4D, tf.Tensor4D] | undefined;
  let webgpuOperands: readonly [tf.Tensor4D, tf.Tensor4D] | undefined;

  const work: Record<Row, () => Promise<void>> = {
    "rill cpu": async () => {
      await timings.time(`rill cpu ${c.name}`, WARMUP, () => {
        cpuConv2d(x, f, options);
      });
    },
    "tfjs wasm": async () => {
      wasmOperands ??= await tfOperands("wasm");
      await useBackend("wasm");
      const [input, filter] = wasmOperands;
      await timings.time(`tfjs wasm ${c.name}`, WARMUP, () => {
        const y = tfOp(input, filter);
        y.dataSync();
        y.dispose();
      });
    },
    "rill webgpu": async () => {
      await timings.time(`rill webgpu ${c.name}`, WARMUP, async () => {
        const out = gpuConv2d(batch, gx, gf, options);
        await batch.read([out]);
        out.release();
      });
    },
    "tfjs webgpu": async () => {
      webgpuOperands ??= await tfOperands("webgpu");
      await useBackend("webgpu");
      const [input, filter] = webgpuOperands;
      await timings.time(`tfjs webgpu ${c.name}`, WARMUP, async () => {
        const y = tfOp(input, filter);
        await y.data();
        y.dispose();
      });
    },
  };

  for (const row of ROWS) {
    Deno.bench({
      name: `${row} ${c.name}`,
      group: c.name,
      baseline: row === "rill cpu",
      n: c.iterations[row],
      warmup: WARMUP,
      fn: work[row],
    });
  }
}

globalThis.addEventListener("unload", () => {
  console.log(
    "\nms, median (best); GFLOPS of the median; read-back included on the GPU:",
  );
  for (const c of CASES) {
    const median = new Map<Row, number>();
    const cells = ROWS.map((row) => {
      const t = timings.get(`${row} ${c.name}`);
      if (t === undefined) return `${row} —`;
      median.set(row, t[0]);
      return `${row} ${t[0].toFixed(1)} (${t[1].toFixed(1)}) ${
        (flopsOf(c) / t[0] / 1e6).toFixed(2)
      }`;
    });
    const ratio = (rill: Row, peer: Row) =>
      `${rill} ÷ ${peer} ${
        ((median.get(peer) ?? NaN) / (median.get(rill) ?? NaN)).toFixed(2)
      }×`;
    console.log(`${c.name}: ${cells.join("; ")}`);
    console.log(
      `  speed ${ratio("rill cpu", "tfjs wasm")}, ${
        ratio("rill webgpu", "tfjs webgpu")
      }`,
    );
  }
});
