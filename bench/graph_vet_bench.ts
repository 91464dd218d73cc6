/**
 * `graph` and `vet` on a 10,000-op concurrent program (issue 20: each ≤ 200
 * ms): 1,250 goroutines, each made with its channel, sending a scaled value
 * that block 0 receives, adds and prints (8 ops per round, 1,251 blocks,
 * 1,250 channels). The "command" rows time what the CLI does after reading
 * the file: decode, validate, then vet or draw; the other rows the
 * analysis and the drawing alone. `deno bench -A bench/graph_vet_bench.ts`
 *
 * @module
 */
import {
  decodeProgram,
  elementwiseAdd,
  fillConstant,
  go,
  graphProgram,
  makeChannel,
  print,
  Program,
  recv,
  scale,
  send,
  validateProgram,
  vetProgram,
} from "../mod.ts";

const ROUNDS = 1_250;

/** ROUNDS rounds of 8 ops: make, fill, go { scale, send }, recv, add, print. */
function concurrentProgram(): Uint8Array {
  const program = new Program();
  program.guard(() => {
    for (let i = 0; i < ROUNDS; i++) {
      const ch = makeChannel({ capacity: 1 });
      const x = fillConstant({ shape: [1], value: i });
      go(() => send(ch, scale(x, { scale: 2 })));
      print(elementwiseAdd(recv(ch), x));
    }
  });
  return program.toBinary();
}

const bytes = concurrentProgram();
const desc = decodeProgram(bytes, "big.pb");
const ops = desc.blocks.reduce((n, b) => n + b.ops.length, 0);
if (ops !== 8 * ROUNDS) throw new Error(`${ops} ops, not ${8 * ROUNDS}`);
if (vetProgram(desc).length !== 0) throw new Error("vet found something");

function checked(): typeof desc {
  const d = decodeProgram(bytes, "big.pb");
  validateProgram(d, { file: "big.pb" });
  return d;
}

Deno.bench({
  name: "vet command: decode + validate + vet, 10,000 ops",
  group: "vet",
  baseline: true,
  fn() {
    vetProgram(checked());
  },
});

Deno.bench({
  name: "vetProgram alone, 10,000 ops",
  group: "vet",
  fn() {
    vetProgram(desc);
  },
});

for (const format of ["svg", "dot", "mermaid"] as const) {
  Deno.bench({
    name: `graph command --format ${format}: decode + validate + draw`,
    group: "graph",
    baseline: format === "svg",
    fn() {
      graphProgram(checked(), { format });
    },
  });
  Deno.bench({
    name: `graphProgram alone, ${format}`,
    group: "graph",
    fn() {
      graphProgram(desc, { format });
    },
  });
}
