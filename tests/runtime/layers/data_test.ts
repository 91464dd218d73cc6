// The data builders (`read`, `save`, `load`, `saveCombine`,
// `loadCombine`): what each appends, and
// concurrent minibatch loading (csp.md, as examples/minibatch.ts): reader
// goroutines read batches of a `.npy` file into a channel while the main
// green thread computes on each batch, under several seeds.

import { assertEquals } from "@std/assert";
import {
  assign,
  closeChannel,
  defaultProgram,
  elementwiseAdd,
  elementwiseMul,
  encodeNpy,
  fillConstant,
  forRange,
  go,
  greaterThan,
  ifElse,
  increment,
  load,
  loadCombine,
  makeChannel,
  matmul,
  type OpDesc,
  print,
  Program,
  read,
  recv,
  recvOk,
  reduceSum,
  save,
  saveCombine,
  select,
  send,
  Tensor,
  VarType_Type,
  whileLoop,
} from "../../../mod.ts";
import { attrOf } from "../../_helpers/attr_of.ts";
import { int64 } from "../../_helpers/int64.ts";
import { printedBy } from "../../_helpers/run_program.ts";
import { slotsOf } from "../../_helpers/slots_of.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

function attrsOf(op: OpDesc): Record<string, string | number> {
  return Object.fromEntries(
    op.attrs.map((a) => [a.name, a.name === "dtype" ? a.i : a.s]),
  );
}

Deno.test("read() appends a read op with its rows, path, format and dtype", () => {
  const p = new Program();
  const names = p.guard(() => {
    const start = int64(2);
    const count = int64(3);
    const [x, rows] = read("table.csv", {
      start,
      count,
      format: "csv",
      dtype: "int32",
    });
    return {
      start: start.name,
      count: count.name,
      x: x.name,
      rows: rows.name,
      rowsType: [rows.dtype, rows.shape],
    };
  });
  const op = p.desc.blocks[0].ops[2];
  assertEquals(op.type, "read");
  assertEquals(slotsOf(op.inputs), {
    Start: [names.start],
    Count: [names.count],
  });
  assertEquals(slotsOf(op.outputs), { Out: [names.x], Rows: [names.rows] });
  assertEquals(attrsOf(op), {
    path: "table.csv",
    format: "csv",
    dtype: VarType_Type.INT32,
  });
  assertEquals(names.rowsType, ["int64", [1]]);
});

Deno.test("read() without options leaves Start, Count, format and dtype out", () => {
  const p = new Program();
  p.guard(() => read("x.npy"));
  const [op] = p.desc.blocks[0].ops;
  assertEquals(slotsOf(op.inputs), {});
  assertEquals(attrsOf(op), { path: "x.npy" });
});

Deno.test("save() and load() carry file_path", () => {
  const p = new Program();
  const y = p.guard(() => {
    const x = fillConstant({ shape: [2], value: 1 });
    save(x, "out.npy");
    return load("out.npy");
  });
  const [, saveOp, loadOp] = p.desc.blocks[0].ops;
  assertEquals([saveOp.type, attrsOf(saveOp).file_path], ["save", "out.npy"]);
  assertEquals([loadOp.type, attrsOf(loadOp).file_path], ["load", "out.npy"]);
  assertEquals(slotsOf(loadOp.outputs), { Out: [y.name] });
});

Deno.test("save() and load() carry Paddle's float16, overwrite and seek attributes", () => {
  const p = new Program();
  const [x, y] = p.guard(() => {
    const x = fillConstant({ shape: [4], value: 1 });
    save(x, "x", { overwrite: false, saveAsFp16: true });
    return [x, load("x", { out: x, loadAsFp16: true, seek: 1, shape: [2] })];
  });
  const [, saveOp, loadOp] = p.desc.blocks[0].ops;
  assertEquals(
    [attrOf(saveOp, "overwrite").b, attrOf(saveOp, "save_as_fp16").b],
    [false, true],
  );
  assertEquals(attrOf(loadOp, "load_as_fp16").b, true);
  assertEquals(attrOf(loadOp, "seek").l, 1n);
  assertEquals(attrOf(loadOp, "shape").longs, [2n]);
  assertEquals(y, x);
});

Deno.test("saveCombine() appends one save_combine of every tensor, in order", () => {
  const p = new Program();
  const xs = p.guard(() => {
    const xs = [fillConstant({ shape: [2] }), int64(3)];
    saveCombine(xs, "__params__", { saveAsFp16: true });
    return xs;
  });
  const op = p.desc.blocks[0].ops.at(-1)!;
  assertEquals(op.type, "save_combine");
  assertEquals(slotsOf(op.inputs), { X: xs.map((x) => x.name) });
  assertEquals(attrsOf(op).file_path, "__params__");
  assertEquals(attrOf(op, "save_as_fp16").b, true);
});

Deno.test("loadCombine() loads into new variables or the ones given", () => {
  const p = new Program();
  const [fresh, given, w] = p.guard(() => {
    const fresh = loadCombine("a.pdiparams", 2);
    const w = fillConstant({ shape: [2] });
    return [fresh, loadCombine("b", [w], { loadAsFp16: true }), w];
  });
  const ops = p.desc.blocks[0].ops;
  assertEquals(fresh.map((v) => v.kind), ["tensor", "tensor"]);
  assertEquals(new Set(fresh.map((v) => v.name)).size, 2);
  assertEquals(slotsOf(ops[0].outputs), { Out: fresh.map((v) => v.name) });
  assertEquals(given, [w]);
  assertEquals(slotsOf(ops[2].outputs), { Out: [w.name] });
  assertEquals(attrOf(ops[2], "load_as_fp16").b, true);
});

// ---- Concurrent minibatch loading ----------------------------------------

const ROWS = 20;
const BATCH = 4;
const BATCHES = ROWS / BATCH;

/** A ROWS × 3 float32 array whose row r is [r, r, r], written as `.npy`. */
async function writeData(dir: string): Promise<string> {
  const path = `${dir}/minibatch.npy`;
  const values = Array.from({ length: ROWS * 3 }, (_, i) => Math.floor(i / 3));
  await Deno.writeFile(
    path,
    encodeNpy(Tensor.fromArray(values, "float32", [ROWS, 3])),
  );
  return path;
}

/** Batch b holds rows 4b..4b+3; its sum is 3 × (16b + 6). */
const batchSum = (b: number) => 3 * (BATCH * BATCH * b + 6);

function withData(body: (path: string) => Promise<void>): Promise<void> {
  return withTempDir(async (dir) => await body(await writeData(dir)));
}

/**
 * One reader goroutine sends the batches in order and closes the channel;
 * main multiplies each batch by a weight (its compute) and sums it.
 */
function oneReader(path: string): Program {
  const program = new Program();
  program.guard(() => {
    const batches = makeChannel({ capacity: 2, dtype: "float32" });
    const size = int64(BATCH);
    go(() => {
      forRange(BATCHES, (b) => {
        const [rows] = read(path, {
          start: elementwiseMul(b, size),
          count: size,
        });
        send(batches, rows);
      });
      closeChannel(batches);
    });
    const weight = fillConstant({ shape: [3, 1], dtype: "float32", value: 1 });
    const seen = int64(0);
    const [batch, more] = recvOk(batches);
    whileLoop(more, () => {
      print(reduceSum(matmul(batch, weight), { reduceAll: true }), {
        message: "batch sum",
      });
      elementwiseAdd(seen, int64(1), { out: seen });
      recv(batches, { out: batch, status: more });
    });
    print(seen, { message: "batches" });
  });
  return program;
}

Deno.test("minibatch loading: a reader goroutine feeds main in order, any seed", async () => {
  await withData(async (path) => {
    const want = [
      ...Array.from({ length: BATCHES }, (_, b) => `batch sum ${batchSum(b)}`),
      `batches ${BATCHES}`,
    ];
    for (const seed of [1, 2, 3, 42, 2024]) {
      assertEquals(
        await printedBy(oneReader(path), { seed }),
        want,
        `seed ${seed}`,
      );
    }
  });
});

/**
 * Two readers split the batches (even and odd) onto their own channels;
 * main selects between them until both are closed.
 */
function twoReaders(path: string): Program {
  const program = new Program();
  program.guard(() => {
    const size = int64(BATCH);
    const channels = [0, 1].map((parity) => {
      const ch = makeChannel({ capacity: 1, dtype: "float32" });
      go(() => {
        forRange(Math.ceil((BATCHES - parity) / 2), (k) => {
          const b = elementwiseAdd(elementwiseMul(k, int64(2)), int64(parity));
          const [rows] = read(path, {
            start: elementwiseMul(b, size),
            count: size,
          });
          send(ch, rows);
        });
        closeChannel(ch);
      });
      return ch;
    });
    const nil = defaultProgram().currentBlock.createVar({
      kind: "channel",
      name: "nil_channel",
    });
    const open = int64(2);
    const running = fillConstant({ shape: [1], dtype: "bool", value: true });
    whileLoop(running, () => {
      select((s) => {
        for (const ch of channels) {
          s.recv(ch, (batch, ok) =>
            ifElse(
              ok,
              () =>
                print(reduceSum(batch, { reduceAll: true }), {
                  message: "batch sum",
                }),
              () => {
                // Go's idiom: a drained reader's channel becomes nil, so
                // the select never chooses it again.
                assign(nil, { out: ch });
                increment(open, { step: -1 });
              },
            ));
        }
      });
      greaterThan(open, int64(0), { out: running });
    });
  });
  return program;
}

Deno.test("minibatch loading: two readers through a select, any seed", async () => {
  await withData(async (path) => {
    const want = Array.from(
      { length: BATCHES },
      (_, b) => `batch sum ${batchSum(b)}`,
    );
    for (const seed of [1, 2, 3, 42, 2024]) {
      const lines = await printedBy(twoReaders(path), { seed });
      assertEquals([...lines].sort(), [...want].sort(), `seed ${seed}`);
      // Each reader's batches arrive in its own order.
      for (const parity of [0, 1]) {
        const mine = want.filter((_, b) => b % 2 === parity);
        assertEquals(lines.filter((l) => mine.includes(l)), mine);
      }
    }
  });
});
