/**
 * Data ops: `read` (rows of a NumPy `.npy` or CSV file, for concurrent
 * minibatch loading), `save` and `load` (whole tensors as `.npy`). File I/O
 * is asynchronous; while it is pending the scheduler holds the run open, so
 * a reader blocked on I/O is never taken for a deadlock.
 *
 * @module
 */
import { parseCsvRows } from "../../kernels/csv.ts";
import { decodeNpy, encodeNpy } from "../../kernels/npy.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { fileErrorReason } from "../file_error.ts";
import { attr, defineOp, type OpDef, slot } from "../op_def.ts";
import type { Scope } from "../scope.ts";
import type { ThreadContext } from "../thread_context.ts";
import type { VarRef } from "../var_ref.ts";
import { checkDTypeAttr, dtypeAttr } from "./values.ts";
import { AttrError } from "../attr_read.ts";

async function withHold<T>(
  thread: ThreadContext,
  io: () => Promise<T>,
): Promise<T> {
  const release = thread.run.scheduler.hold();
  try {
    return await io();
  } finally {
    release();
  }
}

async function readBytes(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (e) {
    const why = fileErrorReason(e);
    throw new RangeError(`cannot read "${path}": ${why}`);
  }
}

// A row index or count must be a whole number ≥ 0: a fractional one would
// reach the slice kernel and give rows that are in no file, and a negative
// one would count from the end, which `read` does not promise.
function optionalCount(
  ref: VarRef | undefined,
  scope: Scope,
): number | undefined {
  if (ref === undefined) return undefined;
  const n = Number(ref.tensor(scope).item(0));
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError(`"${ref.name}" is ${n}, not a whole number of rows`);
  }
  return n;
}

const read = defineOp({
  type: "read",
  summary:
    "Out = rows [Start, Start+Count) of a .npy or CSV file; Rows = its row count",
  inputs: {
    Start: slot.tensor({ optional: true }),
    Count: slot.tensor({ optional: true }),
  },
  outputs: { Out: slot.tensor(), Rows: slot.tensor({ optional: true }) },
  attrs: {
    path: attr.required("string"),
    format: attr.string("npy"),
    dtype: attr.int(5),
  },
  check(a) {
    if (a.format !== "npy" && a.format !== "csv") {
      throw new AttrError("format", `"${a.format}" is not "npy" or "csv"`);
    }
    checkDTypeAttr("dtype", a.dtype);
  },
  prepare(ctx) {
    const { path, format } = ctx.attrs;
    const dtype = dtypeAttr(ctx.attrs.dtype);
    const start = ctx.optionalInput("Start");
    const count = ctx.optionalInput("Count");
    const out = ctx.output("Out");
    const rows = ctx.optionalOutput("Rows");
    return (scope, thread) =>
      withHold(thread, async () => {
        const bytes = await readBytes(path);
        const all = format === "npy"
          ? decodeNpy(bytes)
          : parseCsvRows(new TextDecoder().decode(bytes), dtype);
        if (all.rank === 0) {
          throw new RangeError(
            `"${path}" holds a rank-0 array, which has no rows`,
          );
        }
        const total = all.shape[0];
        const first = Math.min(optionalCount(start, scope) ?? 0, total);
        const n = optionalCount(count, scope) ?? total - first;
        const k = thread.run.device.kernels;
        out.write(
          scope,
          k.slice(all, [0], [first], [Math.min(first + n, total)]),
        );
        rows?.write(scope, Tensor.fromArray([BigInt(total)], "int64", [1]));
      });
  },
});

const save = defineOp({
  type: "save",
  summary: "writes X to file_path as NumPy .npy",
  inputs: { X: slot.tensor() },
  outputs: {},
  attrs: { file_path: attr.required("string"), overwrite: attr.bool(true) },
  prepare(ctx) {
    const x = ctx.input("X");
    const { file_path, overwrite } = ctx.attrs;
    return (scope, thread) => {
      const bytes = encodeNpy(x.tensor(scope));
      return withHold(thread, async () => {
        try {
          await Deno.writeFile(file_path, bytes, { createNew: !overwrite });
        } catch (e) {
          throw new RangeError(
            `cannot write "${file_path}": ${fileErrorReason(e)}`,
          );
        }
      });
    };
  },
});

const load = defineOp({
  type: "load",
  summary: "Out = the tensor in the .npy file file_path",
  inputs: {},
  outputs: { Out: slot.tensor() },
  attrs: { file_path: attr.required("string") },
  prepare(ctx) {
    const out = ctx.output("Out");
    const path = ctx.attrs.file_path;
    return (scope, thread) =>
      withHold(
        thread,
        async () => out.write(scope, decodeNpy(await readBytes(path))),
      );
  },
});

/** The data ops. */
export const DATA_OPS: readonly OpDef[] = [read, save, load];
