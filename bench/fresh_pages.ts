// What touching fresh memory costs on this machine, beside memory touched
// before: why shared tensor storage keeps a small budget and reuses warm
// blocks (runtime/pool/shared_storage.ts).
//
//   deno run -A bench/fresh_pages.ts

const MB = 1 << 20;
const ROUNDS = 32;

function fillMs(arrays: Float32Array[]): number {
  const t0 = performance.now();
  for (const a of arrays) a.fill(1);
  return (performance.now() - t0) / arrays.length;
}

const memory = new WebAssembly.Memory({
  initial: (ROUNDS * 4 * MB) / 65536,
  maximum: 65536,
  shared: true,
});
const shared = Array.from(
  { length: ROUNDS },
  (_, i) => new Float32Array(memory.buffer, i * 4 * MB, MB),
);
const fresh = fillMs(shared);
const warm = fillMs(shared);
const buffers = fillMs(
  Array.from({ length: ROUNDS }, () => new Float32Array(MB)),
);
console.log(
  `4 MiB fill, fresh shared WebAssembly.Memory pages: ${fresh.toFixed(2)} ms`,
);
console.log(
  `4 MiB fill, the same pages again:                 ${warm.toFixed(2)} ms`,
);
console.log(
  `4 MiB fill, a new ArrayBuffer each:               ${buffers.toFixed(2)} ms`,
);
