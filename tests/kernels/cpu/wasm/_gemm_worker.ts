// A Worker for gemm_test.ts: instantiates the GEMM kernel over the shared
// memory it is sent and computes the rows it is asked for.
//
// Protocol: each message is { memory, layout, options } with the arguments
// of GemmKernel.computeRows; the reply is { ok: true } or { ok: false,
// error } once the rows are written.

/// <reference lib="deno.worker" />

import {
  type ComputeRowsOptions,
  GemmKernel,
  type GemmLayout,
} from "../../../../kernels/cpu/wasm/gemm.ts";

interface Job {
  readonly memory: WebAssembly.Memory;
  readonly layout: GemmLayout;
  readonly options: ComputeRowsOptions;
}

self.onmessage = (event: MessageEvent<Job>) => {
  const { memory, layout, options } = event.data;
  try {
    new GemmKernel(memory).computeRows(layout, options);
    self.postMessage({ ok: true });
  } catch (error) {
    self.postMessage({ ok: false, error: String(error) });
  }
};
