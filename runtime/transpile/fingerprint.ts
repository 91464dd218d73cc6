/**
 * The fingerprint of a transpiled pair: one hash of the master program,
 * the worker program and the worker's parameters, stamped on the master's
 * `send` ops and the worker's `listen_and_do` ops (attribute
 * `fingerprint`). Every call carries it, and a worker refuses a call from
 * another pair's master, so a master pointed at workers of another program,
 * or of other parameters, fails instead of printing a wrong answer.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import {
  AttrType,
  OpDesc_AttrSchema,
  type ProgramDesc,
  ProgramDescSchema,
} from "../../gen/rill/v1/framework_pb.ts";

/**
 * The fingerprint of a master, its worker and the worker's parameters:
 * the first 16 hex digits of the SHA-256 of their bytes, each part
 * preceded by its length.
 *
 * @param master The master program, not yet stamped.
 * @param worker The worker program, not yet stamped.
 * @param params The worker's parameter file's bytes (empty for none).
 * @returns The fingerprint.
 *
 * @example Usage
 * ```ts
 * import { fingerprintPair } from "./fingerprint.ts";
 * import { Program } from "../../mod.ts";
 * import { assertEquals, assertNotEquals } from "@std/assert";
 *
 * const p = new Program().desc;
 * const a = await fingerprintPair(p, p, new Uint8Array());
 * assertEquals(a.length, 16);
 * assertEquals(await fingerprintPair(p, p, new Uint8Array()), a);
 * assertNotEquals(await fingerprintPair(p, p, new Uint8Array([1])), a);
 * ```
 */
export async function fingerprintPair(
  master: ProgramDesc,
  worker: ProgramDesc,
  params: Uint8Array,
): Promise<string> {
  const parts = [
    toBinary(ProgramDescSchema, master),
    toBinary(ProgramDescSchema, worker),
    params,
  ];
  const total = parts.reduce((n, p) => n + 8 + p.length, 0);
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  let at = 0;
  for (const part of parts) {
    view.setBigUint64(at, BigInt(part.length), true);
    bytes.set(part, at + 8);
    at += 8 + part.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest.subarray(0, 8)]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Stamps `fingerprint` on every op of `type` in `program`: the master's
 * `send` ops, the worker's `listen_and_do` ops.
 *
 * @param program The program; changed in place.
 * @param type The op type to stamp.
 * @param fingerprint The pair's fingerprint.
 *
 * @example Usage
 * ```ts
 * import { stampFingerprint } from "./fingerprint.ts";
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = create(ProgramDescSchema, { blocks: [{ ops: [{ type: "send" }] }] });
 * stampFingerprint(p, "send", "0123456789abcdef");
 * assertEquals(p.blocks[0].ops[0].attrs[0].s, "0123456789abcdef");
 * ```
 */
export function stampFingerprint(
  program: ProgramDesc,
  type: "send" | "listen_and_do",
  fingerprint: string,
): void {
  for (const block of program.blocks) {
    for (const op of block.ops) {
      if (op.type !== type) continue;
      op.attrs = op.attrs.filter((a) => a.name !== "fingerprint");
      op.attrs.push(create(OpDesc_AttrSchema, {
        name: "fingerprint",
        type: AttrType.STRING,
        s: fingerprint,
      }));
    }
  }
}
