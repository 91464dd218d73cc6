// Float32 C = A·B (n×n) with the WASM SIMD kernel on 1 thread against 2
// Workers sharing one WebAssembly.Memory: the requester packs B once, then
// each Worker computes half the rows of C into the same memory.
//
//   deno run -A bench/gemm_workers.ts [sizes, default 256,512,1024]
//
// This file is also the Worker script: run as a Worker, it waits for
// { memory } once, then for { layout, options } jobs, and replies to each
// with "done" once its rows are written. Times include the pack of B and,
// for Workers, the message round trip; GFLOPS = 2n³ / time. Both paths
// must give the same bits (the kernel's sums do not depend on the split).

/// <reference lib="deno.worker" />

import {
  type ComputeRowsOptions,
  GemmKernel,
  type GemmLayout,
  gemmScratchBytes,
  packedBBytes,
} from "../kernels/cpu/wasm/gemm.ts";

const TIMEOUT_MS = 120_000;

interface Job {
  readonly layout: GemmLayout;
  readonly options: ComputeRowsOptions;
}

if ("WorkerGlobalScope" in globalThis) {
  let kernel: GemmKernel | undefined;
  self.onmessage = (event: MessageEvent) => {
    if (kernel === undefined) {
      kernel = new GemmKernel(event.data.memory);
      return;
    }
    const { layout, options } = event.data as Job;
    kernel.computeRows(layout, options);
    self.postMessage("done");
  };
} else {
  await main(Deno.args[0] ?? "256,512,1024");
}

async function main(sizes: string): Promise<void> {
  const memory = new WebAssembly.Memory({
    initial: 1,
    maximum: 65536,
    shared: true,
  });
  const kernel = new GemmKernel(memory);
  const workers = [0, 1].map(() =>
    new Worker(import.meta.url, { type: "module" })
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timed out")), TIMEOUT_MS);
  });
  try {
    for (const worker of workers) worker.postMessage({ memory });
    for (const n of sizes.split(",").map(Number)) {
      await Promise.race([measure(n, kernel, workers), timeout]);
    }
  } finally {
    clearTimeout(timer);
    for (const worker of workers) worker.terminate();
  }
}

async function measure(
  n: number,
  kernel: GemmKernel,
  workers: Worker[],
): Promise<void> {
  // Two scratches (one per Worker; the main thread uses the first), then
  // A, B, packed B and C.
  const scratch = gemmScratchBytes();
  const a = 2 * scratch, b = a + 4 * n * n, packedB = b + 4 * n * n;
  const c = packedB + packedBBytes(n, n);
  const memory = kernel.memory;
  const pages = Math.ceil((c + 4 * n * n) / 65536);
  const have = memory.buffer.byteLength / 65536;
  if (pages > have) memory.grow(pages - have);
  const f32 = new Float32Array(memory.buffer);
  let seed = n;
  for (let i = a / 4; i < packedB / 4; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    f32[i] = seed / 2 ** 31 - 1;
  }
  const layout = { a, b, packedB, c, m: n, k: n, n };

  const oneThread = () => {
    kernel.packB(layout);
    kernel.computeRows(layout, { scratch: 0 });
    return Promise.resolve();
  };
  // Rows split in half at a multiple of 4, the kernel's strip height.
  const half = Math.ceil(n / 8) * 4;
  const ranges = [
    { scratch: 0, start: 0, end: half },
    { scratch, start: half, end: n },
  ];
  const twoWorkers = () => {
    kernel.packB(layout);
    return Promise.all(
      workers.map((worker, i) =>
        new Promise<void>((resolve) => {
          worker.onmessage = () => resolve();
          worker.postMessage({ layout, options: ranges[i] });
        })
      ),
    ).then(() => {});
  };

  const runs = n <= 256 ? 21 : n <= 512 ? 11 : 7;
  const single = await time(oneThread, runs);
  const expected = f32.slice(c / 4, c / 4 + n * n);
  f32.fill(NaN, c / 4, c / 4 + n * n);
  const dual = await time(twoWorkers, runs);
  const same = f32.subarray(c / 4, c / 4 + n * n).every((v, i) =>
    v === expected[i]
  );
  const gflops = (ms: number) => (2 * n ** 3 / ms / 1e6).toFixed(1);
  console.log(
    `${n}²: 1 thread ${gflops(single.best)} / ${
      gflops(single.median)
    } GFLOPS (best / median, ${single.median.toFixed(2)} ms); ` +
      `2 Workers ${gflops(dual.best)} / ${gflops(dual.median)} GFLOPS (${
        dual.median.toFixed(2)
      } ms); speed-up ${(single.median / dual.median).toFixed(2)}x; ` +
      `same bits: ${same}`,
  );
}

// Best and median of `runs` timed calls, after warm-up calls that let V8
// tier the kernel up.
async function time(
  f: () => Promise<unknown>,
  runs: number,
): Promise<{ best: number; median: number }> {
  for (let i = 0; i < 3; i++) await f();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await f();
    times.push(performance.now() - start);
  }
  times.sort((x, y) => x - y);
  return { best: times[0], median: times[runs >> 1] };
}
