// A Worker for gemm_test.ts's adoptGemmModule() case: adopts the module it
// is sent as the unshared GEMM module, then answers whether gemmModule()
// now returns that very module (rather than building its own) and whether
// a product through it is right.

/// <reference lib="deno.worker" />

import {
  adoptGemmModule,
  gemmModule,
  matmulFloat32,
} from "../../../../kernels/cpu/wasm/gemm.ts";

self.onmessage = (event: MessageEvent<{ module: WebAssembly.Module }>) => {
  const { module } = event.data;
  adoptGemmModule(false, module);
  const c = matmulFloat32(
    { data: new Float32Array([1, 2, 3, 4]), rows: 2, cols: 2 },
    { data: new Float32Array([1, 0, 0, 1]), rows: 2, cols: 2 },
    {},
  );
  self.postMessage({ same: gemmModule(false) === module, c: [...c] });
};
