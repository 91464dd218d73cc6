/**
 * How a program will run: its device, how many workers it uses and why,
 * and where its goroutines may go. `planRun` makes every such decision, in
 * one place, from what was asked (`--device`, `--workers`, the Executor's
 * options) and the program; the executor, the pool and `--explain` read
 * the plan and decide nothing again.
 *
 * The rules, in the order they apply:
 * - The device: `chooseDevice` (device_choice.ts) picks it from the name
 *   asked for; a `Device` object is used as given.
 * - The worker count asked for: a number, or `"auto"` — every core (at most
 *   `MAX_WORKERS`), except that naming `webgpu` asks for one, since
 * - a run with workers keeps its tensors on the CPU (a worker's tensors
 *   live in shared memory, where the other workers can read them). So when
 *   the chosen device is a GPU and workers were asked for, either the GPU
 *   wins (it was found by `auto`: the run stays on one worker) or the
 *   workers win (the device was named: the CPU runs the pool).
 * - A pool starts only when it could help: some `go` or `parallel_for`
 *   block may move to another worker (placement), or a matrix product is
 *   large enough to split between workers.
 *
 * @module
 */
import type { OpDesc, ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { cpuDevice } from "../../kernels/cpu/device.ts";
import type { Device } from "../../kernels/device.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { varInfoOf } from "../core/var_info.ts";
import { placeProgram, type ProgramPlacement } from "../check/placement.ts";
import { OPS } from "../ops/mod.ts";
import {
  chooseDevice,
  type DeviceChoice,
  type DeviceName,
} from "./device_choice.ts";

/** The most workers a run may have. */
export const MAX_WORKERS = 256;

/** What a run asks for: the flags, or the Executor's options. */
export interface RunRequest {
  /** A device, or one by name (`auto`, `cpu`, `webgpu`). */
  readonly device: Device | DeviceName;
  /**
   * How many workers the run may use (1 to `MAX_WORKERS`), or `"auto"`:
   * every core, or one when `webgpu` is named.
   */
  readonly workers: number | "auto";
  /** The feeds, whose batch size stands in for `-1` dims. */
  readonly feeds?: Readonly<Record<string, Tensor>>;
}

/** How a program will run. */
export interface RunPlan {
  /** The device tensor kernels run on. */
  readonly device: Device;
  /** Why that device, in one line (`--explain`'s `device:`). */
  readonly deviceReason: string;
  /** How many workers the run uses: 1 runs it on the calling thread alone. */
  readonly workers: number;
  /** Why that many, in one line (`--explain`'s `workers:`). */
  readonly workersReason: string;
  /** Where each `go` and `parallel_for` block may run. */
  readonly placement: ProgramPlacement;
  /**
   * On the GPU device, the program's ops that run on the CPU alone
   * (`rnn ×1, conv2d_transpose ×2`, or `none`: `--explain`'s
   * `cpu fallback:`), from runtime/ops/op_devices.ts; undefined on the CPU.
   */
  readonly cpuFallback?: string;
}

/**
 * Plans a run of `desc`.
 *
 * @param desc The program, validated.
 * @param request What was asked for.
 * @returns The plan.
 * @throws {ProgramError} For `webgpu` when no adapter exists.
 *
 * @example Usage
 * ```ts
 * import { planRun } from "./run_plan.ts";
 * import { fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => fillConstant({ shape: [2] }));
 * const plan = await planRun(p.desc, { device: "cpu", workers: 4 });
 * assertEquals([plan.device.name, plan.workers], ["cpu", 1]);
 * assertEquals(plan.workersReason, "1 of 4: nothing to spread (no goroutine may move, no large product to split)");
 * ```
 */
export async function planRun(
  desc: ProgramDesc,
  request: RunRequest,
): Promise<RunPlan> {
  const wanted = request.device;
  const [asked, why] = workersAsked(wanted, request.workers);
  const batch = batchOf(request.feeds);
  const chosen = typeof wanted === "string"
    ? await chooseDevice(wanted, desc, batch)
    : { device: wanted, reason: wanted.name };
  if (asked === 1) {
    const plan = { device: chosen.device, deviceReason: chosen.reason };
    return withPlacement(desc, {
      ...plan,
      workers: 1,
      workersReason: `1 (${why})`,
      cpuFallback: await cpuFallbackOf(desc, chosen.device),
    });
  }
  const placement = placeProgram(desc);
  const use = poolUse(desc, placement, batch);
  const settled = settleWorkers(wanted, chosen, asked, use);
  const cpuFallback = await cpuFallbackOf(desc, settled.device);
  return { ...settled, cpuFallback, placement };
}

// The ops that fall back to the CPU on a GPU device; undefined on the CPU.
// The op table's devices (and the WebGPU kernel table they read) load only
// for a run on the GPU, which has loaded the WebGPU modules anyway.
async function cpuFallbackOf(
  desc: ProgramDesc,
  device: Device,
): Promise<string | undefined> {
  if (device.name !== "webgpu") return undefined;
  const { cpuFallbacks } = await import("../ops/op_devices.ts");
  return cpuFallbacks(desc);
}

// A plan whose placement is worked out when first read: a run on one
// worker never reads it, and placing a program of 10,000 ops costs a few
// milliseconds.
function withPlacement(desc: ProgramDesc, plan: DeviceAndWorkers): RunPlan {
  let placement: ProgramPlacement | undefined;
  return {
    ...plan,
    get placement(): ProgramPlacement {
      return placement ??= placeProgram(desc);
    },
  };
}

// How many workers a request asks for, and why, in words for when it is one.
function workersAsked(
  wanted: Device | DeviceName,
  workers: number | "auto",
): [number, string] {
  if (workers !== "auto") return [workers, "one asked for"];
  if (wanted === "webgpu") {
    return [1, "webgpu named: a run with workers keeps its tensors on the CPU"];
  }
  const cores = Math.min(navigator.hardwareConcurrency, MAX_WORKERS);
  return [cores, cores === 1 ? "one core" : "every core"];
}

/** The part of a plan where the device and the workers settle each other. */
export type DeviceAndWorkers = Omit<RunPlan, "placement">;

/**
 * Settles the device chosen for a program against the workers asked for
 * (see the top of this module): a pool starts only when it could help, and
 * a run with workers keeps its tensors on the CPU, so a GPU that `auto`
 * found keeps the run on one worker and one that was named gives way to
 * the workers.
 *
 * @param wanted The device asked for.
 * @param chosen The device chosen for the program, and why.
 * @param asked How many workers were asked for, more than one.
 * @param use Why a pool could help the program; undefined: it could not.
 * @returns The device and the workers, each with its reason.
 *
 * @example Usage
 * ```ts
 * import { settleWorkers } from "./run_plan.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const chosen = { device: cpuDevice, reason: "cpu (--device cpu)" };
 * const plan = settleWorkers("cpu", chosen, 2, "block 1 may run on another worker");
 * assertEquals([plan.device, plan.workers], [cpuDevice, 2]);
 * assertEquals(plan.workersReason, "2 (block 1 may run on another worker)");
 * ```
 */
export function settleWorkers(
  wanted: Device | DeviceName,
  chosen: DeviceChoice,
  asked: number,
  use: string | undefined,
): DeviceAndWorkers {
  const plan = { device: chosen.device, deviceReason: chosen.reason };
  if (use === undefined) {
    const reason = `1 of ${asked}: nothing to spread (no goroutine may move, ` +
      "no large product to split)";
    return { ...plan, workers: 1, workersReason: reason };
  }
  if (chosen.device.name === "cpu") {
    return { ...plan, workers: asked, workersReason: `${asked} (${use})` };
  }
  if (wanted === "auto") {
    const deviceReason = `${chosen.reason}; on one worker, as a run with ` +
      "workers keeps its tensors on the CPU";
    const workersReason = `1 of ${asked}: the GPU keeps the run on one worker`;
    return { device: chosen.device, deviceReason, workers: 1, workersReason };
  }
  return {
    device: cpuDevice,
    deviceReason: `cpu (${chosen.reason}, but a run with workers uses the CPU)`,
    workers: asked,
    workersReason: `${asked} (${use})`,
  };
}

/**
 * The lines `--explain` prints for a plan: the device and the workers,
 * each with its reason, and on the GPU a third, the ops that fall back to
 * the CPU (`cpu fallback: rnn ×1`, or `cpu fallback: none`).
 *
 * @param plan The plan.
 * @returns Two lines, or three on the GPU, each ending in a newline.
 *
 * @example Usage
 * ```ts
 * import { explainPlan, planRun } from "./run_plan.ts";
 * import { Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const plan = await planRun(new Program().desc, { device: "cpu", workers: 1 });
 * assertEquals(
 *   explainPlan(plan),
 *   "device: cpu (--device cpu)\nworkers: 1 (one asked for)\n",
 * );
 * ```
 */
export function explainPlan(plan: RunPlan): string {
  const fallback = plan.cpuFallback === undefined
    ? ""
    : `cpu fallback: ${plan.cpuFallback}\n`;
  return `device: ${plan.deviceReason}\nworkers: ${plan.workersReason}\n` +
    fallback;
}

// Why a pool could help, or undefined: some go or parallel_for block may
// move, or a matrix product (an op whose def is `poolWorthy`) may be large
// enough to split (its declared shapes do not rule that out).
function poolUse(
  desc: ProgramDesc,
  placement: ProgramPlacement,
  batch: number,
): string | undefined {
  for (const [idx, b] of placement.blocks) {
    if (b.movable) return `block ${idx} may run on another worker`;
  }
  for (const b of desc.blocks) {
    for (const [i, op] of b.ops.entries()) {
      if (OPS.get(op.type)?.poolWorthy !== "product") continue;
      if (!(estimatedWork(desc, b.idx, op, batch) < SPLIT_WORK)) {
        return `block ${b.idx} op ${i} (${op.type}) may be split`;
      }
    }
  }
  return undefined;
}

/** The least work (multiply-adds) a split product may be worth. */
const SPLIT_WORK = 2 ** 27;

// The batch size a run's feeds fix: their largest leading dim; NaN without
// feeds. In the programs Paddle saves, a -1 dim is the batch dim that the
// feeds fix, so it stands in for -1 when estimating work. A wrong guess
// costs only speed: placement never changes what a program computes.
function batchOf(feeds: Readonly<Record<string, Tensor>> | undefined): number {
  const leading = Object.values(feeds ?? {}).map((t) => t.shape[0] ?? 1);
  return leading.length === 0 ? NaN : Math.max(...leading);
}

// size(X) times Y's last dim, from the declarations: m·k·n for a plain
// product, a -1 dim taken as `batch`; NaN when a shape is not known.
function estimatedWork(
  desc: ProgramDesc,
  block: number,
  op: OpDesc,
  batch: number,
): number {
  const dims = (slot: string) => {
    const name = op.inputs.find((v) => v.parameter === slot)?.arguments[0];
    for (let b = block; b >= 0; b = desc.blocks[b].parentIdx) {
      const v = desc.blocks[b].vars.find((v) => v.name === name);
      if (v !== undefined) {
        return varInfoOf(v).shape?.map((d) => d < 0 ? batch : d);
      }
      if (b === 0) break;
    }
    return undefined;
  };
  const [left, right] = OPS.get(op.type)?.productSlots ?? ["X", "Y"];
  const x = dims(left);
  const y = dims(right);
  if (x === undefined || y === undefined || y.length === 0) return NaN;
  return x.reduce((p, d) => p * d, 1) * y[y.length - 1];
}
