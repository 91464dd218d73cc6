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
import { ProgramError } from "../core/errors.ts";

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
  return await shortDigest(bytes);
}

/**
 * The digest of a worker's parameter file, stamped on the worker's
 * `listen_and_do` ops (attribute `params_digest`): a worker started with
 * another file beside its program refuses to serve, before any call (the
 * pair's fingerprint, which the worker only repeats, cannot see a file
 * swapped after transpiling).
 *
 * @param params The parameter file's bytes.
 * @returns The first 16 hex digits of their SHA-256.
 *
 * @example Usage
 * ```ts
 * import { paramsDigest } from "./fingerprint.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(await paramsDigest(new Uint8Array()), "e3b0c44298fc1c14");
 * ```
 */
export async function paramsDigest(params: Uint8Array): Promise<string> {
  // WebCrypto does not hash a view of shared memory: copy one.
  const own = params.buffer instanceof ArrayBuffer
    ? params as Uint8Array<ArrayBuffer>
    : params.slice();
  return await shortDigest(own);
}

async function shortDigest(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
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
  stamp(program, type, "fingerprint", fingerprint);
}

/**
 * Stamps `params_digest` on every `listen_and_do` op of a worker program.
 *
 * @param worker The worker program; changed in place.
 * @param digest Its parameter file's {@linkcode paramsDigest}.
 *
 * @example Usage
 * ```ts
 * import { stampParamsDigest } from "./fingerprint.ts";
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = create(ProgramDescSchema, { blocks: [{ ops: [{ type: "listen_and_do" }] }] });
 * stampParamsDigest(p, "0123456789abcdef");
 * assertEquals(p.blocks[0].ops[0].attrs[0].name, "params_digest");
 * ```
 */
export function stampParamsDigest(worker: ProgramDesc, digest: string): void {
  stamp(worker, "listen_and_do", "params_digest", digest);
}

// Sets string attribute `name` on every op of `type`, replacing any.
function stamp(
  program: ProgramDesc,
  type: string,
  name: string,
  value: string,
): void {
  for (const block of program.blocks) {
    for (const op of block.ops) {
      if (op.type !== type) continue;
      op.attrs = op.attrs.filter((a) => a.name !== name);
      op.attrs.push(create(OpDesc_AttrSchema, {
        name,
        type: AttrType.STRING,
        s: value,
      }));
    }
  }
}

/**
 * Checks a worker's parameter file against the digest its program was
 * stamped with at transpile time (nothing to check for a program with no
 * `params_digest`).
 *
 * @param worker The worker program.
 * @param params The parameter file's path and bytes; undefined for none.
 * @throws {ProgramError} Naming the file and both digests when they differ,
 * or the file when the program expects one and there is none.
 *
 * @example Usage
 * ```ts
 * import { checkParamsDigest, paramsDigest, stampParamsDigest } from "./fingerprint.ts";
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { assertRejects } from "@std/assert";
 *
 * const worker = create(ProgramDescSchema, { blocks: [{ ops: [{ type: "listen_and_do" }] }] });
 * stampParamsDigest(worker, await paramsDigest(new Uint8Array([1])));
 * await checkParamsDigest(worker, { path: "w.pdiparams", bytes: new Uint8Array([1]) });
 * await assertRejects(
 *   () => checkParamsDigest(worker, { path: "w.pdiparams", bytes: new Uint8Array([2]) }),
 *   Error,
 *   "w.pdiparams: not the parameters",
 * );
 * ```
 */
export async function checkParamsDigest(
  worker: ProgramDesc,
  params: { path: string; bytes: Uint8Array } | undefined,
): Promise<void> {
  const expected = worker.blocks.flatMap((b) => b.ops)
    .filter((op) => op.type === "listen_and_do")
    .flatMap((op) => op.attrs)
    .find((a) => a.name === "params_digest" && a.s !== "")?.s;
  if (expected === undefined) return;
  if (params === undefined) {
    throw new ProgramError(
      `worker: its program was transpiled with parameters (digest ${expected}), ` +
        "but there is no parameter file beside it",
    );
  }
  const actual = await paramsDigest(params.bytes);
  if (actual !== expected) {
    throw new ProgramError(
      `${params.path}: not the parameters the worker program was transpiled ` +
        `with (digest ${actual}, expected ${expected}); transpile again or ` +
        "restore the file",
    );
  }
}
