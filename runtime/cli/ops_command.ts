/**
 * `deno run -A mod.ts ops PROGRAM`: what a program needs, as ONNX
 * Runtime's operator table shows it: each op type it uses (in every
 * block), how many ops have it, and whether it runs on the CPU and in WGSL
 * (runtime/ops/op_devices.ts). An op type unknown to Rill is listed as
 * `missing`, and then the command ends with the run's `error: unknown
 * ops: …` line and exit 1. The program is read, not validated: the table
 * is what one asks for before a run fails.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { type UnknownOp, UnknownOpsError } from "../check/unknown_ops_error.ts";
import { findModelFiles, isDirectory } from "../format/model_dir.ts";
import { readProgramFile } from "../format/program_file.ts";
import { type ProgramOp, programOps } from "../ops/op_devices.ts";
import type { CliIO, CliResult } from "./_command_line.ts";

/**
 * Prints the op table of a program or model directory.
 *
 * @param path The program or model directory.
 * @param io Where the table goes.
 * @returns Exit 0 when Rill knows every op.
 * @throws {UnknownOpsError} After the table, when some op is unknown.
 *
 * @example Usage
 * ```ts
 * import { opsCommand } from "./ops_command.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const out: string[] = [];
 * const io = { stdout: (t: string) => out.push(t), stderr: () => {} };
 * assertEquals(await opsCommand("examples/mult.pb", io), { code: 0 });
 * assertEquals(out.join("").split("\n").slice(0, 3), [
 *   "op            count  cpu   wgsl",
 *   "assign_value      2  host  host",
 *   "mul               1  yes   yes",
 * ]);
 * ```
 */
export async function opsCommand(path: string, io: CliIO): Promise<CliResult> {
  const file = await isDirectory(path)
    ? (await findModelFiles(path)).program
    : path;
  const desc = await readProgramFile(file);
  const ops = programOps(desc);
  io.stdout(opsTable(ops));
  const missing = ops.filter((o) => o.devices === undefined);
  if (missing.length > 0) {
    throw new UnknownOpsError(missing.map((o) => firstOf(desc, o)), { file });
  }
  return { code: 0 };
}

/**
 * The op table: a header, then one row per op type, in columns.
 *
 * @param ops The program's op types (`programOps`).
 * @returns The table, each line ending in a newline.
 *
 * @example Usage
 * ```ts
 * import { opsTable } from "./ops_command.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const table = opsTable([
 *   { type: "rnn", count: 1, devices: { place: "cpu", cpuOnly: ["own code"] } },
 *   { type: "yolo_box", count: 2, devices: undefined },
 * ]);
 * assertEquals(table.split("\n"), [
 *   "op        count  cpu      wgsl",
 *   "rnn           1  yes      no",
 *   "yolo_box      2  missing  missing",
 *   "",
 * ]);
 * ```
 */
export function opsTable(ops: readonly ProgramOp[]): string {
  const rows = [
    ["op", "count", "cpu", "wgsl"],
    ...ops.map((o) => [o.type, String(o.count), ...columns(o)]),
  ];
  const widths = [0, 1, 2].map((i) =>
    Math.max(...rows.map((r) => r[i].length))
  );
  return rows.map((r) =>
    [
      r[0].padEnd(widths[0]),
      r[1].padStart(widths[1]),
      r[2].padEnd(widths[2]),
      r[3],
    ].join("  ") + "\n"
  ).join("");
}

// The cpu and wgsl columns of an op type.
function columns(o: ProgramOp): [string, string] {
  switch (o.devices?.place) {
    case undefined:
      return ["missing", "missing"];
    case "host":
      return ["host", "host"];
    case "cpu":
      return ["yes", "no"];
    case "wgsl":
      return ["yes", "yes"];
    case "partly":
      return ["yes", `partly (${o.devices.cpuOnly.join(", ")} on the CPU)`];
  }
}

// Where an op type first appears, for the unknown-ops error.
function firstOf(desc: ProgramDesc, o: ProgramOp): UnknownOp {
  for (const block of desc.blocks) {
    const op = block.ops.findIndex((op) => op.type === o.type);
    if (op >= 0) return { type: o.type, count: o.count, block: block.idx, op };
  }
  return { type: o.type, count: o.count, block: 0, op: 0 };
}
