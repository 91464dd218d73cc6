import { create, toBinary } from "@bufbuild/protobuf";
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "@std/path";
import {
  AttrType,
  ProgramDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import { fillConstant, go, increment, print } from "../../../mod.ts";
import { examplePath, EXAMPLES } from "../../../examples/build.ts";
import { buildProgram } from "../../_helpers/run_program.ts";
import { runRill } from "../../_helpers/rill_process.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import { cli } from "../../_helpers/cli_output.ts";

/** A block-0 program of `ops` after declaring x; `more` blocks follow. */
function program(
  ops: ReturnType<typeof op>[],
  more: { idx: number; parentIdx: number }[] = [],
): Uint8Array {
  return toBinary(
    ProgramDescSchema,
    create(ProgramDescSchema, {
      blocks: [
        { idx: 0, parentIdx: -1, vars: [tensor("x", [1])], ops },
        ...more,
      ],
    }),
  );
}

/** Malformed programs: a file to write, or a path that is not there. */
const MALFORMED: readonly { what: string; file?: [string, Uint8Array] }[] = [
  { what: "missing.pb" },
  { what: "random.pb", file: ["random.pb", new Uint8Array([0xde, 0xad])] },
  {
    what: "truncated.pb",
    file: ["truncated.pb", Deno.readFileSync(examplePath("mult")).slice(0, 50)],
  },
  {
    what: "bad.txtpb",
    file: ["bad.txtpb", new TextEncoder().encode("blocks { idx: ")],
  },
  { what: "unknown_op.pb", file: ["unknown_op.pb", program([op("frob")])] },
  {
    what: "undeclared.pb",
    file: [
      "undeclared.pb",
      program([op("relu", { X: ["nope"] }, { Out: ["x"] })]),
    ],
  },
  {
    what: "block_range.pb",
    file: [
      "block_range.pb",
      program([
        op("conditional_block", { Cond: ["x"] }, {}, [
          { name: "sub_block", type: AttrType.BLOCK, blockIdx: 3 },
        ]),
      ]),
    ],
  },
  {
    what: "parent.pb",
    file: ["parent.pb", program([], [{ idx: 1, parentIdx: 1 }])],
  },
];

Deno.test("graph and vet give a malformed program the error line a run gives it", async () => {
  await withTempDir(async (dir) => {
    // A model directory whose parameter file is missing.
    await Deno.mkdir(join(dir, "model"));
    await Deno.copyFile(
      join(examplePath("mult"), "..", "mlp_model", "model.pdmodel"),
      join(dir, "model", "model.pdmodel"),
    );
    const paths = [join(dir, "model")];
    for (const bad of MALFORMED) {
      if (bad.file) await Deno.writeFile(join(dir, bad.file[0]), bad.file[1]);
      paths.push(join(dir, bad.what));
    }
    for (const path of paths) {
      const run = await cli([path]);
      assertEquals(run.code, 1, path);
      assert(run.stderr.startsWith("error: "), run.stderr);
      assertEquals(run.stderr.split("\n").length, 2, run.stderr);
      for (const command of ["graph", "vet"]) {
        assertEquals(await cli([command, path]), run, `${command} ${path}`);
      }
    }
  });
});

Deno.test("vet prints nothing and exits 0 for every example", async () => {
  for (const name of EXAMPLES) {
    assertEquals(await cli(["vet", examplePath(name)]), {
      code: 0,
      stdout: "",
      stderr: "",
    });
  }
});

Deno.test("vet prints one line per finding and exits 1", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "race.pb");
    const [built] = buildProgram(() => {
      const x = fillConstant({ shape: [1], value: 1 });
      go(() => increment(x));
      increment(x);
      print(x);
      fillConstant({ shape: [1], value: 2 });
    });
    await built.save(path);
    const r = await runRill(["vet", path]);
    assertEquals([r.code, r.stderr], [1, ""]);
    assertEquals(r.stdout.split("\n"), [
      'block 0 op 4 (fill_constant): variable "fill_constant.out_1": ' +
      "written, never read",
      'block 1 op 0 (increment): variable "fill_constant.out_0": data race: ' +
      "the goroutine of block 1 (block 0 op 1 (go)) rebinds it, and so may " +
      "block 0 op 2 (increment), after the spawn",
      "",
    ]);
    // A variable the run fetches counts as read.
    const fetched = await cli(["vet", path, "--fetch", "fill_constant.out_1"]);
    assertEquals(fetched.stdout.split("\n").length, 2);
  });
});

Deno.test("graph writes SVG to stdout by default and each format to --out", async () => {
  const svg = await runRill(["graph", examplePath("goroutine")]);
  assertEquals([svg.code, svg.stderr], [0, ""]);
  assert(
    svg.stdout.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg '),
  );
  assert(svg.stdout.endsWith("</svg>\n"));
  await withTempDir(async (dir) => {
    for (
      const [format, start] of [
        ["svg", "<?xml"],
        ["dot", "digraph program {"],
        ["mermaid", "flowchart TB"],
      ]
    ) {
      const out = join(dir, `picture.${format}`);
      const r = await cli([
        "graph",
        examplePath("prime_sieve"),
        "--format",
        format,
        "--out",
        out,
      ]);
      assertEquals(r, { code: 0, stdout: "", stderr: "" });
      assert(Deno.readTextFileSync(out).startsWith(start), format);
    }
  });
});

Deno.test("graph refuses an unknown format and a file it cannot write", async () => {
  const pb = examplePath("mult");
  assertEquals(await cli(["graph", pb, "--format", "png"]), {
    code: 1,
    stdout: "",
    stderr: 'error: --format: "png" is not one of svg, dot, mermaid\n',
  });
  const r = await cli(["graph", pb, "--out", "/no/such/dir/p.svg"]);
  assertEquals(r.code, 1);
  assertStringIncludes(r.stderr, 'error: --out: cannot write "/no/such/dir');
  assertEquals(
    (await cli(["vet", pb, "--format", "dot"])).stderr,
    "error: --format: only the graph command takes it\n",
  );
});
