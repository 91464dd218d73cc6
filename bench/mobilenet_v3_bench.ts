// MobileNetV3-small (../shared/paddle-models/mbv3_small_3cls, or under
// RILL_PADDLE_MODELS), batch 1 and 16, end to end on each device: Rill's
// Executor on the CPU (one worker) and on WebGPU, beside the same layers
// built in TensorFlow.js (bench/_tfjs_program.ts) on its WASM backend
// (XNNPACK, one thread under Deno) and its WebGPU backend, on the same
// llvmpipe adapter. The tfjs layers carry the model's own weights, so
// before timing, their output on the folder's input is checked against the
// expected output (the same network, not a look-alike). One iteration is
// one inference: Rill's `run` (validation, feed, every op, the fetch read
// back), tfjs's forward pass and `dataSync()` / `data()`. Run:
//   XDG_RUNTIME_DIR=/tmp/xdg deno bench -A bench/mobilenet_v3_bench.ts
// deno-lint-ignore-file no-import-prefix

import * as tf from "npm:@tensorflow/tfjs-core@4.22.0";
import "npm:@tensorflow/tfjs-backend-webgpu@4.22.0";
import "npm:@tensorflow/tfjs-backend-wasm@4.22.0";
import { decodeNpy, Executor, loadModel, Tensor } from "../mod.ts";
import { randomFloat32, Timings } from "./_timings.ts";
import { tfjsProgram } from "./_tfjs_program.ts";

const ROWS = ["rill cpu", "tfjs wasm", "rill webgpu", "tfjs webgpu"] as const;
type Row = typeof ROWS[number];
const BATCHES = [1, 16] as const;
const ITERATIONS: Readonly<Record<Row, readonly [number, number]>> = {
  "rill cpu": [10, 5],
  "tfjs wasm": [10, 4],
  "rill webgpu": [10, 3],
  "tfjs webgpu": [10, 3],
};
const WARMUP = 2;

const models = Deno.env.get("RILL_PADDLE_MODELS") ??
  new URL("../../shared/paddle-models", import.meta.url).pathname;
const dir = `${models}/mbv3_small_3cls`;
const model = await loadModel(dir);
const timings = new Timings();

async function useBackend(backend: string): Promise<void> {
  if (tf.getBackend() === backend) return;
  if (!await tf.setBackend(backend)) {
    throw new Error(`mobilenet_v3_bench: tfjs backend ${backend} failed`);
  }
}

// The tfjs network on a backend, checked against the expected output once.
const networks = new Map<string, ReturnType<typeof tfjsProgram>>();
async function network(
  backend: string,
): Promise<ReturnType<typeof tfjsProgram>> {
  await useBackend(backend);
  let net = networks.get(backend);
  if (net !== undefined) return net;
  net = tfjsProgram(model.desc, model.parameters);
  networks.set(backend, net);
  const x = decodeNpy(await Deno.readFile(`${dir}/synthetic.npy`));
  const want = decodeNpy(await Deno.readFile(`${dir}/synthetic.expected.npy`));
  const input = tf.transpose(tf.tensor(x.data as Float32Array, [...x.shape]), [
    0,
    2,
    3,
    1,
  ]);
  const got = await net.run(input).data();
  const scale = Math.max(...Array.from(want.data as Float32Array, Math.abs));
  const error = Math.max(
    ...Array.from(got, (v, i) => Math.abs(v - (want.data[i] as number))),
  );
  console.log(
    `tfjs ${backend}: |out - expected| ≤ ${
      (error / scale).toExponential(1)
    } · max`,
  );
  if (!(error <= 1e-4 * scale)) {
    throw new Error(
      `mobilenet_v3_bench: tfjs ${backend} computes another network`,
    );
  }
  return net;
}

for (const [b, n] of BATCHES.entries()) {
  const size = n * 3 * 224 * 224;
  const x = new Tensor("float32", [n, 3, 224, 224], randomFloat32(size, 7));
  const inputs = new Map<string, tf.Tensor>();
  const nhwc = async (backend: string) => {
    await useBackend(backend);
    let t = inputs.get(backend);
    if (t === undefined) {
      t = tf.transpose(tf.tensor(x.data as Float32Array, [...x.shape]), [
        0,
        2,
        3,
        1,
      ]);
      inputs.set(backend, t);
    }
    return t;
  };
  const rill = (device: "cpu" | "webgpu") => {
    const executor = new Executor({ device, workers: 1 });
    return () => executor.run(model, { feeds: { x } });
  };
  const cpuRun = rill("cpu");
  const gpuRun = rill("webgpu");
  const name = `MobileNetV3-small b${n}`;
  const work: Record<Row, () => Promise<void>> = {
    // async functions: Deno.bench awaits only those.
    "rill cpu": async () => {
      await timings.time(`rill cpu ${name}`, WARMUP, cpuRun);
    },
    "tfjs wasm": async () => {
      const net = await network("wasm");
      const input = await nhwc("wasm");
      await timings.time(`tfjs wasm ${name}`, WARMUP, () => {
        const y = net.run(input);
        y.dataSync();
        y.dispose();
      });
    },
    "rill webgpu": async () => {
      await timings.time(`rill webgpu ${name}`, WARMUP, gpuRun);
    },
    "tfjs webgpu": async () => {
      const net = await network("webgpu");
      const input = await nhwc("webgpu");
      await timings.time(`tfjs webgpu ${name}`, WARMUP, async () => {
        const y = net.run(input);
        await y.data();
        y.dispose();
      });
    },
  };
  for (const row of ROWS) {
    Deno.bench({
      name: `${row} ${name}`,
      group: name,
      baseline: row === "rill cpu",
      n: ITERATIONS[row][b],
      warmup: WARMUP,
      fn: work[row],
    });
  }
}

globalThis.addEventListener("unload", () => {
  console.log("\nms per inference, median (best):");
  for (const n of BATCHES) {
    const name = `MobileNetV3-small b${n}`;
    const median = new Map<Row, number>();
    const cells = ROWS.map((row) => {
      const t = timings.get(`${row} ${name}`);
      if (t === undefined) return `${row} —`;
      median.set(row, t[0]);
      return `${row} ${t[0].toFixed(1)} (${t[1].toFixed(1)})`;
    });
    const ratio = (rill: Row, peer: Row) =>
      `${rill} ÷ ${peer} ${
        ((median.get(peer) ?? NaN) / (median.get(rill) ?? NaN)).toFixed(2)
      }×`;
    console.log(`${name}: ${cells.join("; ")}`);
    console.log(
      `  speed ${ratio("rill cpu", "tfjs wasm")}, ${
        ratio("rill webgpu", "tfjs webgpu")
      }`,
    );
  }
});
