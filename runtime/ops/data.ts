/**
 * Data ops: `read` (rows of a NumPy `.npy` or CSV file, for concurrent
 * minibatch loading), and the tensor file ops of `save_load.ts` (`save`,
 * `load`, `save_combine`, `load_combine`: whole tensors as `.npy` or in
 * Paddle's tensor format). File I/O is asynchronous: a green thread
 * awaiting it is not blocked on a channel, so it never counts toward a
 * deadlock, and other threads run meanwhile. `read` of an `.npy` reads only
 * the header and the rows it returns, so a loop over batches costs each
 * batch once, not the whole file.
 *
 * @module
 */
import { parseCsvRows } from "../../kernels/csv.ts";
import {
  decodeNpyHeader,
  decodeNpyRows,
  type NpyHeader,
} from "../../kernels/npy.ts";
import { type DType, itemSize } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { fileErrorReason } from "../core/file_error.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";
import type { Scope } from "../core/scope.ts";
import type { ThreadContext } from "../core/thread_context.ts";
import type { VarRef } from "../core/var_ref.ts";
import { checkDTypeAttr, dtypeAttr } from "./values.ts";
import { AttrError } from "../core/attr_read.ts";
import { readFileBytes } from "./_file_bytes.ts";
import { SAVE_LOAD_OPS } from "./save_load.ts";

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

/** Rows read from a file, and how many rows the file has. */
interface RowsRead {
  readonly tensor: Tensor;
  readonly total: number;
}

function rowRange(total: number, from: number, want: number | undefined) {
  const first = Math.min(from, total);
  return [first, Math.min(first + (want ?? total - first), total)] as const;
}

// Reads the header, then seeks to the first wanted row.
async function readNpyRows(
  path: string,
  from: number,
  want: number | undefined,
): Promise<RowsRead> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path);
  } catch (e) {
    throw new RangeError(`cannot read "${path}": ${fileErrorReason(e)}`);
  }
  try {
    const header = await readHeader(file, path);
    if (header.shape.length === 0) {
      throw new RangeError(`"${path}" holds a rank-0 array, which has no rows`);
    }
    const total = header.shape[0];
    const [first, last] = rowRange(total, from, want);
    const rowBytes = itemSize(header.dtype) *
      header.shape.slice(1).reduce((p, d) => p * d, 1);
    await file.seek(header.dataOffset + first * rowBytes, Deno.SeekMode.Start);
    const data = await readExactly(file, (last - first) * rowBytes, path);
    return { tensor: decodeNpyRows(header, data, last - first), total };
  } finally {
    file.close();
  }
}

// A header is padded to 64 bytes and rarely longer than 128; grow until it
// fits.
async function readHeader(file: Deno.FsFile, path: string): Promise<NpyHeader> {
  for (let size = 256;; size *= 4) {
    await file.seek(0, Deno.SeekMode.Start);
    const head = await readUpTo(file, size);
    try {
      return decodeNpyHeader(head);
    } catch (e) {
      if (!(e instanceof RangeError) || head.length < size) {
        throw new RangeError(`"${path}": ${(e as Error).message}`);
      }
    }
  }
}

async function readUpTo(file: Deno.FsFile, size: number): Promise<Uint8Array> {
  const buf = new Uint8Array(size);
  let n = 0;
  while (n < size) {
    const got = await file.read(buf.subarray(n));
    if (got === null) break;
    n += got;
  }
  return buf.subarray(0, n);
}

async function readExactly(
  file: Deno.FsFile,
  size: number,
  path: string,
): Promise<Uint8Array> {
  const data = await readUpTo(file, size);
  if (data.length < size) {
    throw new RangeError(`"${path}" ends before the rows its header promises`);
  }
  return data;
}

function readCsvRows(
  bytes: Uint8Array,
  path: string,
  dtype: DType,
  from: number,
  want: number | undefined,
  thread: ThreadContext,
): RowsRead {
  const all = parseCsvRows(new TextDecoder().decode(bytes), dtype);
  if (all.rank === 0) {
    throw new RangeError(`"${path}" holds a rank-0 array, which has no rows`);
  }
  const total = all.shape[0];
  const [first, last] = rowRange(total, from, want);
  const k = thread.run.device.kernels;
  return { tensor: k.slice(all, [0], [first], [last]), total };
}

const read = defineOp({
  type: "read",
  kernels: ["slice"],
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
    return async (scope, thread) => {
      const from = optionalCount(start, scope) ?? 0;
      const want = optionalCount(count, scope);
      const { tensor, total } = format === "npy"
        ? await readNpyRows(path, from, want)
        : readCsvRows(
          await readFileBytes(path),
          path,
          dtype,
          from,
          want,
          thread,
        );
      out.write(scope, tensor);
      rows?.write(scope, Tensor.fromArray([BigInt(total)], "int64", [1]));
    };
  },
});

/**
 * The data ops.
 *
 * @example Usage
 * ```ts
 * import { DATA_OPS } from "./data.ts";
 * import { assert } from "@std/assert";
 *
 * assert(DATA_OPS.some((def) => def.type === "read"));
 * ```
 */
export const DATA_OPS: readonly OpDef[] = [read, ...SAVE_LOAD_OPS];
