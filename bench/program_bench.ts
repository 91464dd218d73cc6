/**
 * Interpreter costs (bench/README.md, "Targets", issue 3): a scalar op inside an
 * interpreted `while` loop, and decoding plus validating a 10,000-op
 * program. `deno bench -A bench/program_bench.ts`
 *
 * @module
 */
import {
  decodeProgram,
  Executor,
  fillConstant,
  increment,
  lessThan,
  Program,
  validateProgram,
  whileLoop,
} from "../mod.ts";
import { attributeProgram, longProgram } from "./_decode_programs.ts";

const ITERATIONS = 100_000;

/** A loop of ITERATIONS passes, each `increment` + `less_than` (2 ops). */
function counterLoop(): Program {
  const program = new Program();
  program.guard(() => {
    const i = fillConstant({ shape: [1], dtype: "int64", value: 0 });
    const n = fillConstant({ shape: [1], dtype: "int64", value: ITERATIONS });
    const cond = lessThan(i, n);
    whileLoop(cond, () => {
      increment(i);
      lessThan(i, n, { out: cond });
    });
  });
  return program;
}

const loop = counterLoop();
const executor = new Executor();
const bytes = longProgram(10_000);
const long = Program.fromBinary(bytes);
const attributeBytes = attributeProgram(10_000);

Deno.bench({
  name: `while loop, ${2 * ITERATIONS} scalar ops (divide by ${
    2 * ITERATIONS
  } for per op)`,
  group: "interpreter",
  async fn() {
    await executor.run(loop);
  },
});

Deno.bench({
  name: "validate, prepare and run a 10,000-op straight-line program",
  group: "interpreter",
  async fn() {
    await executor.run(long);
  },
});

Deno.bench({
  name: "decode + validate a 10,000-op program",
  group: "decode",
  warmup: 20,
  n: 100,
  fn() {
    validateProgram(decodeProgram(bytes, "long.pb"));
  },
});

Deno.bench({
  name: "decode + validate 10,000 ops with 3 attributes each",
  group: "decode",
  warmup: 20,
  n: 100,
  fn() {
    validateProgram(decodeProgram(attributeBytes, "attributes.pb"));
  },
});
