/**
 * Decoding plus validating the two 10,000-op programs of
 * `program_bench.ts`'s "decode" group, with the figures `deno bench` does
 * not print: the median of the iterations, and the CPU time per iteration
 * (every thread of the process, the garbage collector's helpers included),
 * which moves less than wall time when other processes share the cores.
 *
 * `deno run -A bench/decode_rounds.ts [iterations]` (default 100, after 20
 * warm-up iterations)
 *
 * @module
 */
import process from "node:process";
import { decodeProgram, validateProgram } from "../mod.ts";
import { attributeProgram, longProgram } from "./_decode_programs.ts";

const iterations = Number(Deno.args[0] ?? 100);
const programs: [string, Uint8Array][] = [
  ["10,000 ops", longProgram(10_000)],
  ["10,000 ops, 3 attributes each", attributeProgram(10_000)],
];
for (const [name, bytes] of programs) {
  for (let i = 0; i < 20; i++) validateProgram(decodeProgram(bytes, "p.pb"));
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    validateProgram(decodeProgram(bytes, "p.pb"));
    times.push(performance.now() - start);
  }
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.floor(q * (times.length - 1))];
  console.log(
    `${name}: min ${at(0).toFixed(1)} ms, median ${at(0.5).toFixed(1)}, ` +
      `p75 ${at(0.75).toFixed(1)}, CPU ${
        ((used.user + used.system) / 1000 / iterations).toFixed(1)
      } ms per iteration`,
  );
}
