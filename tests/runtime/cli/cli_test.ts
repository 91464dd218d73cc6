import { create, toBinary } from "@bufbuild/protobuf";
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "@std/path";
import {
  AttrType,
  ProgramDescSchema,
  VarType_Type,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  decodeNpy,
  defaultProgram,
  elementwiseAdd,
  encodeNpy,
  Executor,
  fillConstant,
  go,
  makeChannel,
  print,
  Program,
  recv,
  send,
  sleep,
  Tensor,
} from "../../../mod.ts";
import { examplePath, EXAMPLES } from "../../../examples/build.ts";
import { buildProgram } from "../../_helpers/run_program.ts";
import { doubler } from "../../_helpers/doubler.ts";
import { mapLimited, ROOT, runRill } from "../../_helpers/rill_process.ts";
import { gpuTest } from "../../kernels/webgpu/_gpu.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";
import {
  PADDLE2_OUTPUT,
  paddle2Program,
} from "../../_helpers/paddle2_program.ts";
import {
  op,
  type OpInit,
  tensor,
  type VarInit,
} from "../../_helpers/desc_init.ts";
import { cli } from "../../_helpers/cli_output.ts";

const PARALLEL = 4;

const fillX = op("fill_constant", {}, { Out: ["x"] }, [
  { name: "shape", type: AttrType.LONGS, longs: [1n] },
]);
const printX = op("print", { In: ["x"] });

/** A program whose block 0 prints `x` first, then runs `ops`. */
function printsFirst(
  vars: VarInit[],
  ops: OpInit[],
  more: { idx: number; parentIdx: number; ops?: OpInit[] }[] = [],
): Uint8Array {
  return toBinary(
    ProgramDescSchema,
    create(ProgramDescSchema, {
      blocks: [
        {
          idx: 0,
          parentIdx: -1,
          vars: [tensor("x", [1]), ...vars],
          ops: [fillX, printX, ...ops],
        },
        ...more,
      ],
    }),
  );
}

/** Bad inputs: each a file to write (or none) and the args to run. */
interface BadInput {
  what: string;
  file?: [name: string, bytes: Uint8Array];
  args: (dir: string) => string[];
  /** What the one error line must contain. */
  says: string;
}

const text = new TextEncoder();

const BAD_INPUTS: readonly BadInput[] = [
  {
    what: "random bytes",
    file: ["random.pb", new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0x01, 0x02])],
    args: (d) => [join(d, "random.pb")],
    says: "random.pb: not a ProgramDesc: ",
  },
  {
    what: "a truncated program",
    file: ["truncated.pb", Deno.readFileSync(examplePath("mult")).slice(0, 50)],
    args: (d) => [join(d, "truncated.pb")],
    says: "truncated.pb: not a ProgramDesc: ",
  },
  {
    what: "an empty file",
    file: ["empty.pb", new Uint8Array()],
    args: (d) => [join(d, "empty.pb")],
    says: "empty.pb: not a ProgramDesc: the file is empty",
  },
  {
    what: "a text file",
    file: ["notes.pb", text.encode("these are my notes\nnot a program\n")],
    args: (d) => [join(d, "notes.pb")],
    says: "notes.pb: not a ProgramDesc: ",
  },
  {
    what: "a .txtpb that is not text format",
    file: ["bad.txtpb", text.encode("blocks { idx: ")],
    args: (d) => [join(d, "bad.txtpb")],
    says: "bad.txtpb:1:15: not a ProgramDesc: expected an integer",
  },
  {
    what: "a missing file",
    args: (d) => [join(d, "missing.pb")],
    says: "missing.pb: cannot read program: no such file",
  },
  {
    what: "an unknown op",
    file: ["unknown_op.pb", printsFirst([], [op("frobnicate")])],
    args: (d) => [join(d, "unknown_op.pb")],
    says: 'unknown_op.pb: block 0 op 2 (frobnicate): unknown op "frobnicate"',
  },
  {
    what: "several unknown ops",
    file: [
      "unknown_ops.pb",
      printsFirst([], [op("yolo_box"), op("roi_align"), op("yolo_box")], [
        { idx: 1, parentIdx: 0, ops: [op("multiclass_nms3"), op("yolo_box")] },
      ]),
    ],
    args: (d) => [join(d, "unknown_ops.pb")],
    says:
      "unknown_ops.pb: unknown ops: yolo_box ×3, roi_align ×1, multiclass_nms3 ×1",
  },
  {
    what: "--all-attrs without dump",
    file: ["all_attrs.pb", printsFirst([], [])],
    args: (d) => [join(d, "all_attrs.pb"), "--all-attrs"],
    says: "--all-attrs: only the dump command takes it",
  },
  {
    what: "an undeclared variable",
    file: [
      "undeclared.pb",
      printsFirst([], [op("relu", { X: ["nope"] }, { Out: ["x"] })]),
    ],
    args: (d) => [join(d, "undeclared.pb")],
    says:
      'undeclared.pb: block 0 op 2 (relu): input "X": variable "nope" is not declared in block 0 or its ancestors',
  },
  {
    what: "an attribute of the wrong type",
    file: [
      "attr_type.pb",
      printsFirst([], [
        op("scale", { X: ["x"] }, { Out: ["x"] }, [
          { name: "scale", type: AttrType.STRING, s: "2" },
        ]),
      ]),
    ],
    args: (d) => [join(d, "attr_type.pb")],
    says:
      'attr_type.pb: block 0 op 2 (scale): attribute "scale": expected FLOAT, got STRING',
  },
  {
    what: "a block index out of range",
    file: [
      "block_range.pb",
      printsFirst([], [
        op("conditional_block", { Cond: ["x"] }, {}, [
          { name: "sub_block", type: AttrType.BLOCK, blockIdx: 3 },
        ]),
      ]),
    ],
    args: (d) => [join(d, "block_range.pb")],
    says:
      'block_range.pb: block 0 op 2 (conditional_block): attribute "sub_block": block 3 does not exist',
  },
  {
    what: "a bad parent_idx",
    file: ["parent.pb", printsFirst([], [], [{ idx: 1, parentIdx: 1 }])],
    args: (d) => [join(d, "parent.pb")],
    says: "parent.pb: block 1: parent_idx 1 is not an earlier block",
  },
  {
    what: "a channel slot naming a tensor",
    file: [
      "channel_slot.pb",
      printsFirst([], [op("channel_close", { Channel: ["x"] })]),
    ],
    args: (d) => [join(d, "channel_slot.pb")],
    says:
      'channel_slot.pb: block 0 op 2 (channel_close): input "Channel": variable "x" is a tensor, not a channel',
  },
  {
    what: "a shape mismatch found before running",
    file: [
      "shapes.pb",
      printsFirst([tensor("a", [2, 3]), tensor("b", [4])], [
        op("elementwise_add", { X: ["a"], Y: ["b"] }, { Out: ["x"] }),
      ]),
    ],
    args: (d) => [join(d, "shapes.pb")],
    says:
      "shapes.pb: block 0 op 2 (elementwise_add): broadcast: shapes [2, 3] and [4] do not match",
  },
  {
    what: "an op type with a line break",
    file: ["newline.pb", printsFirst([], [op("pri\nnt", { In: ["x"] })])],
    args: (d) => [join(d, "newline.pb")],
    says: 'newline.pb: block 0 op 2 (pri\\nnt): unknown op "pri\\nnt"',
  },
  {
    what: "a variable named with a terminal escape",
    file: [
      "escape.pb",
      printsFirst([], [op("print", { In: ["\u001b[2J"] })]),
    ],
    args: (d) => [join(d, "escape.pb")],
    says: 'variable "\\u001b[2J" is not declared',
  },
  {
    what: "an unknown flag",
    args: () => ["--bogus"],
    says: "--bogus",
  },
  {
    what: "a feed of a file that is not .npy",
    file: ["feed.pb", doubler().toBinary()],
    args: (d) => [join(d, "feed.pb"), "--feed", `x=${join(d, "feed.pb")}`],
    says: "--feed x: ",
  },
];

/** Asserts a run failed with exit 1 and one `error:` line naming `says`. */
function assertBadInput(
  what: string,
  r: { code: number; stdout: string; stderr: string },
  says: string,
): void {
  const context = `${what}: ${JSON.stringify(r)}`;
  assertEquals(r.code, 1, context);
  assertEquals(r.stdout, "", context);
  const lines = r.stderr.split("\n");
  assertEquals(lines.length, 2, context);
  assertEquals(lines[1], "", context);
  assert(lines[0].startsWith("error: "), context);
  assertStringIncludes(lines[0], says, context);
  assert(!/\bat .*:\d+:\d+/.test(r.stderr), `stack trace: ${context}`);
}

async function inDirectory<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const cwd = Deno.cwd();
  if (cwd === dir.replace(/\/$/, "")) return await fn();
  Deno.chdir(dir);
  try {
    return await fn();
  } finally {
    Deno.chdir(cwd);
  }
}

Deno.test("the CLI exits 1 with one error line and runs nothing, for each bad input", async () => {
  await withTempDir(async (dir) => {
    for (const bad of BAD_INPUTS) {
      if (bad.file) await Deno.writeFile(join(dir, bad.file[0]), bad.file[1]);
    }
    const results = await mapLimited(
      BAD_INPUTS,
      PARALLEL,
      (bad) => runRill(bad.args(dir)),
    );
    BAD_INPUTS.forEach((bad, i) =>
      assertBadInput(bad.what, results[i], bad.says)
    );
  });
});

Deno.test("the CLI runs every example with exit 0 and its output", async () => {
  const results = await mapLimited(
    EXAMPLES,
    PARALLEL,
    (name) => runRill([examplePath(name)]),
  );
  for (const [i, name] of EXAMPLES.entries()) {
    const r = results[i];
    assertEquals([r.code, r.stderr], [0, ""], name);
    const lines: string[] = [];
    const program = await Program.load(examplePath(name));
    // Examples read data files by paths relative to the repository root.
    await inDirectory(
      ROOT,
      () => new Executor({ print: (l) => lines.push(l) }).run(program),
    );
    assert(lines.length > 0, name);
    assertEquals(r.stdout, lines.map((l) => l + "\n").join(""), name);
  }
});

Deno.test("the CLI takes `run PROGRAM` as the bare `PROGRAM`", async () => {
  const bare = await runRill([examplePath("mult"), "--workers", "1"]);
  const named = await runRill(["run", examplePath("mult"), "--workers", "1"]);
  assertEquals([named.code, named.stdout, named.stderr], [0, bare.stdout, ""]);
});

Deno.test("the CLI prints usage for --help and -h with exit 0", async () => {
  const [help, h] = await Promise.all([runRill(["--help"]), runRill(["-h"])]);
  for (const r of [help, h]) {
    assertEquals([r.code, r.stderr], [0, ""]);
    assertStringIncludes(r.stdout, "Usage:");
    for (
      const flag of [
        "--workers",
        "--device",
        "--explain",
        "--seed",
        "--feed",
        "--fetch",
        "--worker-addrs",
        "--all-attrs",
      ]
    ) {
      assertStringIncludes(r.stdout, flag);
    }
  }
  assertEquals(h.stdout, help.stdout);
});

Deno.test("the CLI dump command prints the readable form", async () => {
  const r = await runRill(["dump", examplePath("mult")]);
  assertEquals([r.code, r.stderr], [0, ""]);
  const lines = r.stdout.split("\n");
  assertEquals(lines[0], "block 0 (parent -1):");
  assertEquals(lines[1], "  var assign_value.out_0 LOD_TENSOR float32 [2, 2]");
  assert(
    lines.includes(
      "  op 2: mul(X=[assign_value.out_0], Y=[assign_value.out_1]) -> Out=[mul.out_0]",
    ),
    r.stdout,
  );
  assert(
    lines.includes('  op 3: print(In=[mul.out_0]) {message="Y"}'),
    r.stdout,
  );
});

Deno.test("the CLI dumps a Paddle 2.x program without its bookkeeping, shows it with --all-attrs, and runs it", async () => {
  await withTempDir(async (dir) => {
    const pb = join(dir, "paddle2.pb");
    await Deno.writeFile(pb, toBinary(ProgramDescSchema, paddle2Program()));
    const [plain, all, run] = await Promise.all([
      runRill(["dump", pb]),
      runRill(["dump", pb, "--all-attrs"]),
      runRill([pb]),
    ]);
    assertEquals([plain.code, plain.stderr], [0, ""]);
    const lines = plain.stdout.split("\n");
    assertEquals(
      lines[8],
      "  op 1: scale(X=[x]) -> Out=[y] {scale=2, bias=0.5, bias_after_scale=true}",
    );
    assertEquals(
      lines.at(-2),
      "hidden: op_role, op_role_var, op_namescope, op_callstack, op_device, with_quant_attr, is_test, use_mkldnn on 3 ops (--all-attrs shows them)",
    );
    assert(!plain.stdout.includes("op_callstack="), plain.stdout);
    // A block's dump fits a screen: one short line per variable and op.
    assert(lines.every((l) => l.length <= 160), plain.stdout);

    assertEquals([all.code, all.stderr], [0, ""]);
    const allLines = all.stdout.split("\n");
    assertEquals(allLines.length, 11);
    assertStringIncludes(allLines[9], 'op 2: print(In=[y]) {message="y", ');
    assertStringIncludes(allLines[9], ", … 38 more], ");
    assert(allLines[9].endsWith(" is_target"), allLines[9]);
    assertEquals(
      allLines[2],
      "  var x LOD_TENSOR float32 [2, 3] stop_gradient need_check_feed",
    );

    assertEquals(run, { code: 0, stdout: PADDLE2_OUTPUT, stderr: "" });
  });
});

Deno.test("the CLI feeds .npy files and fetches to stdout and to .npy files", async () => {
  await withTempDir(async (dir) => {
    await doubler().save(join(dir, "doubler.txtpb"));
    await Deno.writeFile(
      join(dir, "x.npy"),
      encodeNpy(Tensor.fromArray([[1, 2], [3, 4.5]], "float32")),
    );
    const r = await runRill([
      join(dir, "doubler.txtpb"),
      "--seed",
      "3",
      "--feed",
      `x=${join(dir, "x.npy")}`,
      "--fetch",
      "y",
      "--fetch",
      `y=${join(dir, "y.npy")}`,
      "--fetch",
      "x",
    ]);
    assertEquals([r.code, r.stderr], [0, ""]);
    assertEquals(
      r.stdout,
      "y [[2, 4], [6, 9]]\ny [[2, 4], [6, 9]]\nx [[1, 2], [3, 4.5]]\n",
    );
    const y = decodeNpy(await Deno.readFile(join(dir, "y.npy")));
    assertEquals([y.dtype, y.shape], ["float32", [2, 2]]);
    assertEquals(y.toNested(), [[2, 4], [6, 9]]);
  });
});

Deno.test("the CLI exits 2 with panic: and its location for a runtime panic", async () => {
  await withTempDir(async (dir) => {
    // y is fed, so that its shape is known only when the program runs.
    const [program] = buildProgram(() => {
      const b = defaultProgram().globalBlock;
      const x = b.createVar({ name: "x" });
      const y = b.createVar({ name: "y" });
      fillConstant({ shape: [3], out: x });
      print(x, { message: "before" });
      elementwiseAdd(x, y);
    });
    await program.save(join(dir, "panic.pb"));
    const yFile = join(dir, "y.npy");
    await Deno.writeFile(
      yFile,
      encodeNpy(Tensor.fromArray([0, 0], "float32")),
    );
    const r = await runRill([join(dir, "panic.pb"), "--feed", `y=${yFile}`]);
    assertEquals(r.code, 2);
    assertEquals(r.stdout, "before [0, 0, 0]\n");
    const lines = r.stderr.split("\n");
    assertEquals(
      lines[0],
      'panic: elementwise_add: broadcast: shapes [3] and [2] do not match (X "x" float32[3], Y "y" float32[2])',
    );
    assertEquals(lines[1], "\tat block 0 op 2 elementwise_add");
    assertStringIncludes(r.stderr, "goroutine 1 [");
  });
});

/** Runs the CLI in this process. */
function exists(path: string): Promise<boolean> {
  return Deno.stat(path).then(() => true, () => false);
}

Deno.test("runCli() rejects bad flags and usage with exit 1 and one error line", async () => {
  await withTempDir(async (dir) => {
    const pb = join(dir, "doubler.pb");
    await doubler().save(pb);
    const cases: [string[], string][] = [
      [[], "error: no program given (see --help)\n"],
      [[pb, pb], "error: one program expected, got 2\n"],
      [[pb, "--seed", "abc"], 'error: --seed: "abc" is not a valid number\n'],
      [[pb, "--workers", "0"], 'error: --workers: "0" is not a valid number\n'],
      [
        [pb, "--workers", "1.5"],
        'error: --workers: "1.5" is not a valid number\n',
      ],
      [[pb, "--workers", "257"], 'error: --workers: "257" is more than 256\n'],
      [
        [pb, "--device", "tpu"],
        'error: --device: "tpu" is not one of auto, webgpu, cpu\n',
      ],
      [[pb, "--feed", "x"], 'error: --feed: "x" should be name=file.npy\n'],
      [
        [pb, "--worker-addrs", "a:1,b"],
        'error: --worker-addrs entry 2: "b": missing :port\n',
      ],
      [[pb, "--feed", "=x.npy"], 'error: --feed: "=x.npy" names no variable\n'],
      [
        [pb, "--feed", `x=${join(dir, "none.npy")}`],
        `error: --feed x: cannot read "${
          join(dir, "none.npy")
        }": no such file\n`,
      ],
      [["dump"], "error: usage: dump <program.pb|MODEL_DIR> [--all-attrs]\n"],
      [
        [pb, "--fetch", "nope"],
        'error: fetch: variable "nope" is not declared in block 0\n',
      ],
    ];
    for (const [args, stderr] of cases) {
      const r = await cli(args);
      assertEquals(r, { code: 1, stdout: "", stderr }, args.join(" "));
    }
    await Deno.writeFile(
      join(dir, "x.npy"),
      encodeNpy(Tensor.fromArray([1], "float32")),
    );
    const undeclared = await cli([pb, "--feed", `z=${join(dir, "x.npy")}`]);
    assertEquals(undeclared, {
      code: 1,
      stdout: "",
      stderr: 'error: feed: variable "z" is not declared in block 0\n',
    });
  });
});

Deno.test("runCli() exits 1 when a fetched variable holds no tensor to write", async () => {
  await withTempDir(async (dir) => {
    const [program] = buildProgram(() => {
      defaultProgram().globalBlock.createVar({ name: "a", kind: "array" });
    });
    const pb = join(dir, "array.pb");
    await program.save(pb);
    const out = join(dir, "a.npy");
    const r = await cli([pb, "--fetch", `a=${out}`]);
    assertEquals(r, {
      code: 1,
      stdout: "",
      stderr:
        `error: --fetch a: declared array, not a tensor to write to "${out}"\n`,
    });
    assertEquals(await cli([pb, "--fetch", "a"]), {
      code: 0,
      stdout: "a []\n",
      stderr: "",
    });
  });
});

Deno.test("runCli() checks every fetch file can be written before anything runs", async () => {
  await withTempDir(async (dir) => {
    const pb = join(dir, "doubler.pb");
    await doubler().save(pb);
    const missing = join(dir, "no-such-dir", "y.npy");
    const r = await cli([pb, "--fetch", "y", "--fetch", `y=${missing}`]);
    assertEquals(r, {
      code: 1,
      stdout: "", // nothing ran, nothing was printed
      stderr: `error: --fetch y: cannot write "${missing}": no such file\n`,
    });
    // The file the check made is gone again when the run stops before
    // writing it (here x, never fed, panics when read).
    const fresh = join(dir, "fresh.npy");
    const unfed = await cli([pb, "--fetch", `y=${fresh}`]);
    assertEquals(unfed.code, 2);
    assert(!(await exists(fresh)), "the check left its file behind");
  });
});

Deno.test("runCli() refuses a --feed name given twice", async () => {
  await withTempDir(async (dir) => {
    const x = join(dir, "x.npy");
    await Deno.writeFile(x, encodeNpy(Tensor.fromArray([1], "float32")));
    const r = await cli([
      "examples/mult.pb",
      "--feed",
      `x=${x}`,
      "--feed",
      `x=${x}`,
    ]);
    assertEquals(r, {
      code: 1,
      stdout: "",
      stderr: "error: --feed x: given more than once\n",
    });
  });
});

Deno.test("runCli() names the declared type of a fetched variable that is no tensor", async () => {
  await withTempDir(async (dir) => {
    const desc = create(ProgramDescSchema, {
      blocks: [{
        idx: 0,
        parentIdx: -1,
        vars: [{ name: "feed", type: { type: VarType_Type.FEED_MINIBATCH } }],
      }],
    });
    const pb = join(dir, "feed.pb");
    await Deno.writeFile(pb, toBinary(ProgramDescSchema, desc));
    const out = join(dir, "f.npy");
    const r = await cli([pb, "--fetch", `feed=${out}`]);
    assertEquals(
      r.stderr,
      `error: --fetch feed: declared FEED_MINIBATCH, not a tensor to write to "${out}"\n`,
    );
  });
});

Deno.test("runCli() writes the panic report and exits 2 for a read before write", async () => {
  await withTempDir(async (dir) => {
    const pb = join(dir, "doubler.pb");
    await doubler().save(pb);
    const r = await cli([pb]);
    assertEquals(r.code, 2);
    assertEquals(r.stdout, "");
    assert(
      r.stderr.startsWith(
        'panic: variable "x" read before it was written\n\tat block 0 op 0 scale\n',
      ),
      r.stderr,
    );
  });
});

Deno.test("the CLI runs on every core unless --workers says otherwise", async () => {
  await withTempDir(async (dir) => {
    const pb = join(dir, "stuck.pb");
    const [program] = buildProgram(() => {
      const never = makeChannel({ dtype: "int64" });
      go(() => recv(never)); // movable: to worker 1 when there is one
      recv(never);
    });
    await program.save(pb);
    const cores = Math.min(navigator.hardwareConcurrency, 256);
    const byDefault = await cli([pb]);
    assertEquals(byDefault.code, 2);
    assertStringIncludes(
      byDefault.stderr,
      "fatal error: all goroutines are asleep - deadlock!",
    );
    assertEquals(byDefault.stderr.includes("on worker 1"), cores > 1);
    const one = await cli([pb, "--workers", "1"]);
    assertEquals(one.code, 2);
    assertEquals(one.stderr.includes("on worker"), false);
  });
});

Deno.test("a rill process whose main thread waits on another worker stays alive until the answer comes", async () => {
  await withTempDir(async (dir) => {
    const pb = join(dir, "late.pb");
    const [program] = buildProgram(() => {
      const answer = makeChannel({ dtype: "int64" });
      go(() => { // movable: on worker 1
        sleep(300);
        send(answer, fillConstant({ shape: [1], dtype: "int64", value: 7 }));
      });
      // Main parks on a shared channel with nothing else pending on its
      // event loop: the process must not end before the answer comes.
      print(recv(answer), { message: "answer" });
    });
    await program.save(pb);
    const r = await runRill([pb, "--workers", "2"]);
    assertEquals([r.code, r.stdout, r.stderr], [0, "answer 7\n", ""]);
  });
});

Deno.test("--explain prints the run's plan: which device and how many workers, and why", async () => {
  const cpu = await cli([
    "examples/mult.pb",
    "--device",
    "cpu",
    "--workers",
    "1",
    "--explain",
  ]);
  assertEquals(
    [cpu.code, cpu.stderr],
    [0, "device: cpu (--device cpu)\nworkers: 1 (one asked for)\n"],
  );
  const auto = await cli(["examples/mult.pb", "--explain"]);
  const cores = navigator.hardwareConcurrency;
  assertEquals(
    auto.stderr,
    "device: cpu (auto: no float tensor of 16384 elements or more)\n" +
      (cores === 1 ? "workers: 1 (one core)\n" : `workers: 1 of ${cores}: ` +
        "nothing to spread (no goroutine may move, no large product to split)\n"),
  );
  assertEquals(auto.stdout, cpu.stdout);
  const pooled = await cli([
    "examples/goroutine.pb",
    "--workers",
    "2",
    "--explain",
  ]);
  assertStringIncludes(pooled.stderr, "\nworkers: 2 (block ");
});

Deno.test({
  name:
    "--device webgpu runs a program on the GPU, printing what the CPU prints",
  ...gpuTest,
  async fn() {
    const gpu = await cli([
      "examples/mult.pb",
      "--device",
      "webgpu",
      "--explain",
    ]);
    const cpu = await cli(["examples/mult.pb", "--device", "cpu"]);
    assertEquals([gpu.code, gpu.stdout], [0, cpu.stdout]);
    assertStringIncludes(gpu.stderr, "device: webgpu (");
  },
});

Deno.test({
  name:
    "--device webgpu keeps a program with goroutines on one worker and the GPU, unless --workers asks for more",
  ...gpuTest,
  async fn() {
    const program = "examples/parallel_mult.pb";
    const gpu = await cli([program, "--device", "webgpu", "--explain"]);
    const cpu = await cli([program, "--device", "cpu", "--workers", "2"]);
    assertEquals([gpu.code, gpu.stdout], [0, cpu.stdout]);
    assertStringIncludes(gpu.stderr, "device: webgpu (");
    const pooled = await cli([
      program,
      "--device",
      "webgpu",
      "--workers",
      "2",
      "--explain",
    ]);
    assertEquals(pooled.stdout, cpu.stdout);
    assertStringIncludes(
      pooled.stderr,
      "but a run with workers uses the CPU)",
    );
  },
});
