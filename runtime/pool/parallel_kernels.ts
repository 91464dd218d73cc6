/**
 * Large elementwise operators, casts, softmax and row-wise reductions
 * split over a pool's workers by rows of their output (row_split.ts): the
 * kernels with a rule in `KERNEL_ROWS` (kernels/kernel_rows.ts), cut as
 * the rule says.
 *
 * A call splits when its input has at least MIN_ELEMENTS elements and its
 * tensors live in the run's heap (shared_storage.ts), so that every worker
 * reads them in place. The rows are dim 0 of the output, or its elements
 * when every tensor operand has one shape (unary ops, casts, and binary
 * ops without broadcasting). An operand of the output's rank whose dim 0
 * is the output's is cut into the same rows; any other operand broadcasts
 * along dim 0 and is passed whole.
 *
 * The requester computes row 0 first with the device's own kernel: its
 * result tells the output's dtype and row shape without repeating the
 * kernels' shape rules here. Then each worker computes chunks of rows with
 * the same kernel over views of the operands' rows, and copies each chunk
 * into the output. The call is described to the helpers as a small JSON
 * plan in a byte blob (_byte_blob.ts), whose tensors name their place in
 * the heap.
 *
 * @module
 */
import type { Kernels } from "../../kernels/device.ts";
import { KERNEL_ROWS, type RowCut } from "../../kernels/kernel_rows.ts";
import type { DType, TypedArray } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";
import { JOB_WORDS, type RowSplit, RowSplitFailed } from "./row_split.ts";
import { SharedStorage } from "./shared_storage.ts";
import { byteBlobSize, readByteBlob, writeByteBlob } from "./_byte_blob.ts";

/** The least input elements worth splitting. */
const MIN_ELEMENTS = 65536;

// A call's word in its ticket: its plan, a byte blob of JSON.
const PLAN = JOB_WORDS;

/** The kernels that split: those with a rule in KERNEL_ROWS. */
type SplitKernel = keyof typeof KERNEL_ROWS;

// A split kernel, called with its arguments as they come.
type AnyKernel = (...args: unknown[]) => Tensor;

interface TensorPlace {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly at: number;
  readonly cut: boolean;
}

// What a helper needs to compute rows of a call.
interface CallPlan {
  readonly kernel: SplitKernel;
  // The arguments, a tensor's place given as { t: index }.
  readonly args: readonly unknown[];
  readonly tensors: readonly TensorPlace[];
  readonly flat: boolean;
  readonly out: {
    readonly at: number;
    readonly dtype: DType;
    readonly rowBytes: number;
    readonly rowSize: number;
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * One worker's side of split kernel calls.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { PoolMember } from "../../scheduler/shared/pool_member.ts";
 * import { createWakeRings } from "../../scheduler/shared/wake_ring.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { RowSplit } from "./row_split.ts";
 * import { SharedStorage } from "./shared_storage.ts";
 * import { ParallelKernels } from "./parallel_kernels.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const storage = SharedStorage.install(member);
 * const kernels = new ParallelKernels(member, new RowSplit(member, 1))
 *   .wrap(cpuDevice.kernels);
 * const x = cpuDevice.kernels.fill([256, 256], "float32", 2);
 * assertEquals(kernels.unary("square", x).item(0), 4);
 * storage.uninstall();
 * member.close();
 * ```
 */
export class ParallelKernels {
  readonly #member: PoolMember;
  readonly #split: RowSplit;
  readonly #job: number;
  #base: Kernels | undefined;

  /**
   * @param member This worker.
   * @param split This worker's row splitter; the calls register there.
   */
  constructor(member: PoolMember, split: RowSplit) {
    this.#member = member;
    this.#split = split;
    this.#job = split.register((t, start, end) => this.#rows(t, start, end));
  }

  /**
   * `base` with its large elementwise calls, softmax and row-wise
   * reductions split over the workers.
   *
   * @param base The device's kernels; helpers compute with them too.
   * @returns The kernels this worker's threads use.
   */
  wrap(base: Kernels): Kernels {
    this.#base = base;
    const kernels = { ...base } as unknown as Record<string, AnyKernel>;
    // Four parameters, the most a kernel with a rule has (RowCutRules'
    // type allows no more), passed on as they come: no argument list is
    // built for the common case, a small first operand, which goes straight
    // to the base kernel.
    for (const [name, rule] of Object.entries(KERNEL_ROWS)) {
      const kernel = base[name as SplitKernel] as AnyKernel;
      const cut = rule.cut as (...args: unknown[]) => RowCut | undefined;
      const first = rule.operand === 0;
      kernels[name] = (a, b, c, d) => {
        if (((first ? a : b) as Tensor).size < MIN_ELEMENTS) {
          return kernel(a, b, c, d);
        }
        const how = cut(a, b, c, d);
        if (how === undefined) return kernel(a, b, c, d);
        return this.#call(
          name as SplitKernel,
          [a, b, c, d],
          how === "elements",
        ) ??
          kernel(a, b, c, d);
      };
    }
    return kernels as unknown as Kernels;
  }

  // The call split over the workers, or undefined when it does not split.
  #call(
    kernel: SplitKernel,
    args: readonly unknown[],
    flat: boolean,
  ): Tensor | undefined {
    const base = this.#base!;
    const memory = this.#member.heap.memory;
    const tensors = args.filter((a): a is Tensor => a instanceof Tensor);
    if (this.#split.workers < 2) return;
    const places = placesOf(tensors, flat, memory);
    if (places === undefined) return;
    const rows = flat ? tensors[0].size : rowsOf(tensors);
    // Row 0 tells the output's dtype and row shape. If it throws, the
    // whole call will too, with the shapes the user gave.
    let probe: Tensor;
    try {
      probe = computeRows(base, kernel, args, tensors, places, 0, 1, flat);
    } catch {
      return undefined;
    }
    const shape = flat ? tensors[0].shape : [rows, ...probe.shape.slice(1)];
    // Every row is written below: no need to zero the output first.
    const data = SharedStorage.of(memory)?.allocate(
      probe.dtype,
      probe.size * rows,
      false,
    );
    if (data === undefined) return;
    const outAt = SharedStorage.offsetIn(memory, data)!;
    const rowBytes = probe.data.byteLength;
    copyRows(memory, probe.data, outAt);
    const plan: CallPlan = {
      kernel,
      args: args.map((a) =>
        a instanceof Tensor ? { t: tensors.indexOf(a) } : a
      ),
      tensors: places,
      flat,
      out: { at: outAt, dtype: probe.dtype, rowBytes, rowSize: probe.size },
    };
    try {
      this.#run(plan, rows);
    } catch (error) {
      // A helper's rows threw: the call throws here as on one worker.
      if (error instanceof RowSplitFailed) return undefined;
      throw error;
    }
    return new Tensor(probe.dtype, shape, data);
  }

  #run(plan: CallPlan, rows: number): void {
    const member = this.#member;
    const heap = member.heap;
    const bytes = encoder.encode(JSON.stringify(plan, numbersKept));
    member.lock();
    const blob = heap.allocData(byteBlobSize(bytes.byteLength));
    member.unlock();
    writeByteBlob(heap, blob, bytes);
    const chunk = Math.max(1, Math.ceil(rows / (this.#split.workers * 4)));
    try {
      this.#split.run(this.#job, rows, chunk, (t) => {
        heap.i32[t + PLAN] = blob;
      }, 1);
    } finally {
      member.freeDataLater(blob);
    }
  }

  // Computes rows [start, end) of the call whose ticket is at word t.
  #rows(t: number, start: number, end: number): void {
    const heap = this.#member.heap;
    const plan: CallPlan = JSON.parse(
      decoder.decode(readByteBlob(heap, heap.i32[t + PLAN])),
      numbersRestored,
    );
    const tensors = plan.tensors.map((p) => view(heap.memory, p));
    const args = plan.args.map((a) =>
      isTensorRef(a) ? tensors[a.t] : a ?? undefined
    );
    const { at, dtype, rowBytes, rowSize } = plan.out;
    const from = at + start * rowBytes;
    const target = SharedStorage.viewIn(
      heap.memory,
      dtype,
      from,
      (end - start) * rowSize,
    );
    // The kernel writes its result into the output's rows where it can.
    const result = SharedStorage.of(heap.memory)!.into(
      target,
      () =>
        computeRows(
          this.#base!,
          plan.kernel,
          args,
          tensors,
          plan.tensors,
          start,
          end,
          plan.flat,
        ),
    );
    if (result.data !== target) copyRows(heap.memory, result.data, from);
  }
}

// The kernel over rows [start, end): cut operands as views of those rows.
function computeRows(
  base: Kernels,
  kernel: SplitKernel,
  args: readonly unknown[],
  tensors: readonly Tensor[],
  places: readonly TensorPlace[],
  start: number,
  end: number,
  flat: boolean,
): Tensor {
  const cut = tensors.map((t, i) =>
    places[i].cut ? rowsView(t, start, end, flat) : t
  );
  const call = args.map((a) =>
    a instanceof Tensor ? cut[tensors.indexOf(a)] : a
  );
  return (base[kernel] as AnyKernel)(...call);
}

// Rows [start, end) of t as a tensor sharing its storage.
function rowsView(
  t: Tensor,
  start: number,
  end: number,
  flat: boolean,
): Tensor {
  const rowSize = flat ? 1 : t.size / t.shape[0];
  const data = t.data.subarray(start * rowSize, end * rowSize);
  return new Tensor(
    t.dtype,
    flat ? [end - start] : [end - start, ...t.shape.slice(1)],
    data,
  );
}

// Where each tensor is in the heap and whether it is cut into rows, or
// undefined when one is not in the heap or the rows cannot be cut.
function placesOf(
  tensors: readonly Tensor[],
  flat: boolean,
  memory: WebAssembly.Memory,
): TensorPlace[] | undefined {
  const rank = Math.max(...tensors.map((t) => t.rank));
  const rows = rowsOf(tensors);
  if (!flat && (rank === 0 || rows < 2)) return undefined;
  const places: TensorPlace[] = [];
  for (const t of tensors) {
    const at = SharedStorage.offsetIn(memory, t.data);
    if (at === undefined) return undefined;
    const cut = flat || (t.rank === rank && t.shape[0] === rows);
    // A lower-rank operand whose dim 0 meets the output's dim 0 (Fluid's
    // axis 0) cannot be passed whole.
    if (!cut && t.rank === rank && t.shape[0] !== 1) return undefined;
    places.push({ dtype: t.dtype, shape: t.shape, at, cut });
  }
  return places;
}

// Dim 0 of the output: the largest dim 0 among the highest-rank operands.
function rowsOf(tensors: readonly Tensor[]): number {
  const rank = Math.max(...tensors.map((t) => t.rank));
  let rows = 0;
  for (const t of tensors) {
    if (t.rank === rank) rows = Math.max(rows, t.shape[0]);
  }
  return rows;
}

function view(memory: WebAssembly.Memory, p: TensorPlace): Tensor {
  let size = 1;
  for (const d of p.shape) size *= d;
  const data = SharedStorage.viewIn(memory, p.dtype, p.at, size);
  return new Tensor(p.dtype, p.shape, data);
}

function copyRows(memory: WebAssembly.Memory, data: TypedArray, at: number) {
  new Uint8Array(memory.buffer, at, data.byteLength).set(
    new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  );
}

function isTensorRef(a: unknown): a is { t: number } {
  return typeof a === "object" && a !== null && "t" in a;
}

// JSON keeps NaN and ±Infinity as strings tagged so.
function numbersKept(_key: string, value: unknown): unknown {
  return typeof value === "number" && !Number.isFinite(value)
    ? { n: String(value) }
    : value;
}

function numbersRestored(_key: string, value: unknown): unknown {
  return typeof value === "object" && value !== null && "n" in value
    ? Number((value as { n: string }).n)
    : value;
}
