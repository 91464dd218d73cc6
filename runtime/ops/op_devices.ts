/**
 * Where an op runs, derived from two tables: the kernels its definition
 * declares (`OpDef.kernels`) and the WebGPU kernel table (`GPU_KERNELS`,
 * kernels/webgpu/gpu_kernels.ts). The `ops` command, `--explain` and
 * docs/operators.md all read `opDevices`; nothing else decides it.
 *
 * - `host`: the op calls no kernel; it moves values, runs blocks or does
 *   I/O on the host, whatever the device.
 * - `cpu`: every kernel it calls runs on the CPU (or it computes in its own
 *   code, `"own"`), so on the GPU device it falls back: its operands are
 *   read back, once, and it runs on the CPU.
 * - `wgsl`: every kernel it calls may run on the GPU (float32 operands).
 * - `partly`: some of its kernel calls run on the GPU, others on the CPU.
 *
 * An op unknown to Rill has no entry; `programOps` marks it `unknown`.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { runsOnGpu } from "../../kernels/webgpu/gpu_kernels.ts";
import type { KernelUse, OpDef } from "../core/op_def.ts";
import { OPS } from "./mod.ts";

/** Where an op runs: see the top of this module. */
export type OpPlace = "host" | "cpu" | "wgsl" | "partly";

/** Where an op runs, and which of its kernel calls stay on the CPU. */
export interface OpDevices {
  /** Where it runs. */
  readonly place: OpPlace;
  /**
   * Its kernel calls that run on the CPU even on the GPU device, as
   * `kernel` or `kernel kind` (`binary mod`); `own code` for an op that
   * computes in its own code.
   */
  readonly cpuOnly: readonly string[];
}

/**
 * Where an op runs, from its declared kernels and the WebGPU table.
 *
 * @param def The op's definition.
 * @returns Its place and its kernel calls that stay on the CPU.
 *
 * @example Usage
 * ```ts
 * import { opDevices } from "./op_devices.ts";
 * import { OPS } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(opDevices(OPS.get("conv2d")!).place, "wgsl");
 * assertEquals(opDevices(OPS.get("rnn")!).place, "wgsl");
 * assertEquals(opDevices(OPS.get("channel_send")!).place, "host");
 * assertEquals(opDevices(OPS.get("elementwise_mod")!).cpuOnly, ["binary mod"]);
 * ```
 */
export function opDevices(def: OpDef): OpDevices {
  const kernels = def.kernels ?? [];
  if (kernels === "own") return { place: "cpu", cpuOnly: ["own code"] };
  if (kernels.length === 0) return { place: "host", cpuOnly: [] };
  const calls = kernels.flatMap(callsOf);
  const cpuOnly = calls.filter((c) => !c.gpu).map((c) => c.name);
  const place = cpuOnly.length === 0
    ? "wgsl"
    : cpuOnly.length === calls.length
    ? "cpu"
    : "partly";
  return { place, cpuOnly };
}

// Each (kernel, kind) call of a declaration, and whether it may run on the
// GPU.
function callsOf(use: KernelUse): { name: string; gpu: boolean }[] {
  if (typeof use === "string") {
    return [{ name: use, gpu: runsOnGpu(use) }];
  }
  return use.kinds.map((kind) => ({
    name: `${use.kernel} ${kind}`,
    gpu: runsOnGpu(use.kernel, kind),
  }));
}

/** One op type a program uses. */
export interface ProgramOp {
  /** The op type. */
  readonly type: string;
  /** How many ops of the program, in every block, have it. */
  readonly count: number;
  /** Where it runs; undefined for an op unknown to Rill. */
  readonly devices: OpDevices | undefined;
}

/**
 * Every op type a program uses, in every block, sorted by type, with its
 * count and where it runs.
 *
 * @param desc The program (it need not be valid: unknown ops are listed).
 * @param registry The op table.
 * @returns The op types.
 *
 * @example Usage
 * ```ts
 * import { programOps } from "./op_devices.ts";
 * import { fillConstant, Program, relu } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => relu(relu(fillConstant({ shape: [2] }))));
 * const ops = programOps(p.desc);
 * assertEquals(ops.map((o) => [o.type, o.count, o.devices?.place]), [
 *   ["fill_constant", 1, "cpu"],
 *   ["relu", 2, "wgsl"],
 * ]);
 * ```
 */
export function programOps(
  desc: ProgramDesc,
  registry: ReadonlyMap<string, OpDef> = OPS,
): ProgramOp[] {
  const counts = new Map<string, number>();
  for (const block of desc.blocks) {
    for (const op of block.ops) {
      counts.set(op.type, (counts.get(op.type) ?? 0) + 1);
    }
  }
  return [...counts].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map((
    [type, count],
  ) => {
    const def = registry.get(type);
    return { type, count, devices: def && opDevices(def) };
  });
}

/**
 * The ops of a program that run on the CPU alone on the GPU device (place
 * `cpu`), as `--explain` lists them: `rnn ×1, conv2d_transpose ×2`, or
 * `none`.
 *
 * @param desc The program, validated.
 * @returns The list, in words.
 *
 * @example Usage
 * ```ts
 * import { cpuFallbacks } from "./op_devices.ts";
 * import { fillConstant, Program, relu } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => relu(fillConstant({ shape: [2] })));
 * assertEquals(cpuFallbacks(p.desc), "fill_constant ×1");
 * assertEquals(cpuFallbacks(new Program().desc), "none");
 * ```
 */
export function cpuFallbacks(desc: ProgramDesc): string {
  const cpu = programOps(desc).filter((o) => o.devices?.place === "cpu");
  return cpu.length === 0
    ? "none"
    : cpu.map((o) => `${o.type} ×${o.count}`).join(", ");
}
