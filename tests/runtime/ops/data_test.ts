// The data ops as programs (docs/architecture.md §3): `read` of rows
// [Start, Start+Count) of a NumPy `.npy` or CSV file, `save` and `load` of
// whole tensors; a missing file panics naming its path; pending file I/O is
// not a deadlock.

import { create } from "@bufbuild/protobuf";
import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import {
  AttrType,
  encodeNpy,
  Executor,
  fillConstant,
  go,
  load,
  makeChannel,
  print,
  Program,
  ProgramError,
  read,
  recv,
  save,
  send,
  Tensor,
  VarType_Type,
} from "../../../mod.ts";
import { ProgramDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import { Panic } from "../../../scheduler/mod.ts";
import { int64 } from "../../_helpers/int64.ts";
import { runForTensors, runProgram } from "../../_helpers/run_program.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

/** A 10 × 2 int32 array whose row r is [r, 10r], written as `.npy`. */
async function writeRows(path: string): Promise<void> {
  const values = Array.from(
    { length: 20 },
    (_, i) => i % 2 === 0 ? i / 2 : 10 * ((i - 1) / 2),
  );
  await Deno.writeFile(
    path,
    encodeNpy(Tensor.fromArray(values, "int32", [10, 2])),
  );
}

const rowsOf = (first: number, end: number) =>
  Array.from({ length: end - first }, (_, k) => [first + k, 10 * (first + k)]);

Deno.test("read() of a .npy gives rows [Start, Start+Count) and the row count", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/rows.npy`;
    await writeRows(path);
    const { tensors: [x, rows] } = await runForTensors(() =>
      read(path, { start: int64(3), count: int64(4) })
    );
    assertEquals([x.dtype, x.shape], ["int32", [4, 2]]);
    assertEquals(x.toNested(), rowsOf(3, 7));
    assertEquals([rows.dtype, rows.shape, rows.item(0)], ["int64", [1], 10n]);
  });
});

Deno.test("read() of a .npy without Start and Count gives every row", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/rows.npy`;
    await writeRows(path);
    const { tensors: [all, tail] } = await runForTensors(() => [
      read(path)[0],
      read(path, { start: int64(7) })[0],
    ]);
    assertEquals(all.toNested(), rowsOf(0, 10));
    assertEquals(tail.toNested(), rowsOf(7, 10));
  });
});

Deno.test("read() stops at the end of the file", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/rows.npy`;
    await writeRows(path);
    const { tensors: [tail, past] } = await runForTensors(() => [
      read(path, { start: int64(8), count: int64(5) })[0],
      read(path, { start: int64(12), count: int64(5) })[0],
    ]);
    assertEquals(tail.toNested(), rowsOf(8, 10));
    assertEquals(past.shape, [0, 2]);
  });
});

Deno.test("read() of a CSV skips the header and parses the dtype", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/table.csv`;
    await Deno.writeTextFile(path, "a,b\n1,2.5\n3,4\n\n5,-6\n");
    const { tensors: [all, middle, rows] } = await runForTensors(() => {
      const [x, n] = read(path, { format: "csv" });
      const [y] = read(path, {
        format: "csv",
        start: int64(1),
        count: int64(1),
      });
      return [x, y, n];
    });
    assertEquals([all.dtype, all.shape], ["float32", [3, 2]]);
    assertEquals(all.toNested(), [[1, 2.5], [3, 4], [5, -6]]);
    assertEquals(middle.toNested(), [[3, 4]]);
    assertEquals(rows.item(0), 3n);
  });
});

Deno.test("read() of a CSV as int64 keeps large integers exact", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/big.csv`;
    await Deno.writeTextFile(path, "9007199254740993,-2\n");
    const { lines } = await runProgram(() => {
      print(read(path, { format: "csv", dtype: "int64" })[0]);
      return [];
    });
    assertEquals(lines, ["[[9007199254740993, -2]]"]);
  });
});

Deno.test("save() then load() gives the same tensor", async () => {
  await withTempDir(async (dir) => {
    const floats = Tensor.fromArray([0.1, -2, 3.5, 1e-8, 7, 8], "float32", [
      2,
      3,
    ]);
    const ints = Tensor.fromArray([1n, -(2n ** 62n)], "int64", [2]);
    const program = new Program();
    const [f, i] = program.guard(() => {
      const a = program.globalBlock.createVar({ name: "a", dtype: "float32" });
      const b = program.globalBlock.createVar({ name: "b", dtype: "int64" });
      save(a, `${dir}/a.npy`);
      save(b, `${dir}/b.npy`);
      return [load(`${dir}/a.npy`), load(`${dir}/b.npy`)];
    });
    const { fetched } = await new Executor().run(program, {
      feeds: { a: floats, b: ints },
      fetch: [f.name, i.name],
    });
    for (
      const [got, want] of [[fetched[f.name], floats], [
        fetched[i.name],
        ints,
      ]] as const
    ) {
      if (!(got instanceof Tensor)) throw new TypeError("not a tensor");
      assertEquals(
        [got.dtype, got.shape, got.toNested()],
        [want.dtype, want.shape, want.toNested()],
      );
    }
  });
});

Deno.test("read() with a fractional Start or Count panics at the op", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/rows.npy`;
    await writeRows(path);
    for (const [start, count] of [[1.5, 2], [1, 0.5], [NaN, 1]]) {
      const program = new Program();
      program.guard(() =>
        read(path, {
          start: fillConstant({ shape: [1], value: start }),
          count: fillConstant({ shape: [1], value: count }),
        })
      );
      const panic: Panic = await assertRejects(
        () => new Executor().run(program),
        Panic,
      );
      assertEquals(panic.where, "block 0 op 2 read", `${start}, ${count}`);
    }
  });
});

Deno.test("read() of a missing file panics naming the path and the op", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/missing.npy`;
    const program = new Program();
    program.guard(() => read(path, { start: int64(0) }));
    const panic: Panic = await assertRejects(
      () => new Executor().run(program),
      Panic,
    );
    assertStringIncludes(panic.message, path);
    assertEquals(panic.where, "block 0 op 1 read");
  });
});

Deno.test("load() of a missing file panics naming the path", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/missing.npy`;
    const program = new Program();
    program.guard(() => load(path));
    const panic: Panic = await assertRejects(
      () => new Executor().run(program),
      Panic,
    );
    assertStringIncludes(panic.message, path);
    assertEquals(panic.where, "block 0 op 0 load");
  });
});

Deno.test("save() into a missing directory panics naming the path", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/no/such/dir/x.npy`;
    const program = new Program();
    program.guard(() => save(int64(1), path));
    const panic: Panic = await assertRejects(
      () => new Executor().run(program),
      Panic,
    );
    assertStringIncludes(panic.message, path);
    assertEquals(panic.where, "block 0 op 1 save");
  });
});

Deno.test("read() of a file that is not .npy panics at the op", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/bad.npy`;
    await Deno.writeTextFile(path, "not numpy");
    const program = new Program();
    program.guard(() => read(path));
    const panic: Panic = await assertRejects(
      () => new Executor().run(program),
      Panic,
    );
    assertEquals(panic.where, "block 0 op 0 read");
  });
});

Deno.test("read() pending in a goroutine is not a deadlock", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/rows.npy`;
    await writeRows(path);
    const { lines } = await runProgram(() => {
      const ch = makeChannel({ dtype: "int32" });
      go(() => send(ch, read(path, { start: int64(9) })[0]));
      print(recv(ch));
      return [];
    });
    assertEquals(lines, ["[[9, 90]]"]);
  });
});

/** A program with one `read` op carrying these attributes. */
function readProgram(
  attrs: { name: string; type: AttrType; s?: string; i?: number }[],
) {
  return create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [{ name: "x", type: { type: VarType_Type.LOD_TENSOR } }],
      ops: [{
        type: "read",
        outputs: [{ parameter: "Out", arguments: ["x"] }],
        attrs,
      }],
    }],
  });
}

Deno.test("validate() rejects a read without a path or with an unknown format", async () => {
  const programs = [
    readProgram([]),
    readProgram([
      { name: "path", type: AttrType.STRING, s: "x.parquet" },
      { name: "format", type: AttrType.STRING, s: "parquet" },
    ]),
    readProgram([
      { name: "path", type: AttrType.STRING, s: "x.csv" },
      { name: "dtype", type: AttrType.INT, i: 99 },
    ]),
  ];
  for (const program of programs) {
    const error: ProgramError = await assertRejects(
      () => new Executor().run(program),
      ProgramError,
    );
    assertEquals(error.where.opType, "read");
  }
});
