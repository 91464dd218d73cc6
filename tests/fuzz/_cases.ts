/**
 * The fuzzer's seeds and cases. The seeds are inputs the CLI runs
 * correctly: the example programs (binary and text format), the model
 * directory Rill writes (examples/mlp_model) and, when the folder is there,
 * the real Paddle models under ../shared/paddle-models with one feed. Case
 * `n` of a run with seed `s` takes seed input `n mod |seeds|` and mutation
 * family `⌊n / |seeds|⌋ mod |families|`, with numbers from `Rng(s·1e6 + n)`:
 * so every family meets every seed input, and a case is made again from
 * (s, n) alone.
 *
 * @module
 */
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { join } from "@std/path";
import {
  type ProgramDesc,
  ProgramDescSchema,
} from "../../gen/rill/v1/framework_pb.ts";
import { encodeProgram } from "../../runtime/format/program_file.ts";
import type { Expectation } from "./_judge.ts";
import { mutateBytes, mutateProgram, refusedNpy, Rng } from "./_mutate.ts";

/** A seed input: files to lay out in a directory, and how to run them. */
export interface SeedInput {
  /** A short name for reports. */
  readonly name: string;
  /** Relative path → contents. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** The CLI's arguments, paths relative to the case's directory. */
  readonly args: readonly string[];
  /** The program file among `files`. */
  readonly program: string;
  /** The parameters file, for a model. */
  readonly params?: string;
  /** The feed file, for a model run with one. */
  readonly feed?: string;
}

/** A case: the files to write, the arguments, what it requires. */
export interface FuzzCase {
  readonly index: number;
  readonly seedInput: string;
  readonly how: string;
  readonly files: ReadonlyMap<string, Uint8Array>;
  readonly args: readonly string[];
  readonly expect: Expectation;
}

/**
 * The seed inputs found from the repository root `root`.
 *
 * @param root The repository's root directory.
 * @param sharedModels Where the real Paddle models are, if anywhere.
 * @returns The seed inputs.
 */
export async function seedInputs(
  root: string,
  sharedModels: string | undefined,
): Promise<SeedInput[]> {
  const seeds: SeedInput[] = [];
  const examples = join(root, "examples");
  for await (const entry of Deno.readDir(examples)) {
    if (!entry.name.endsWith(".pb")) continue;
    const bytes = await Deno.readFile(join(examples, entry.name));
    const text = encodeProgram(
      fromBinary(ProgramDescSchema, bytes),
      "p.txtpb",
    );
    for (const [name, contents] of [["p.pb", bytes], ["p.txtpb", text]]) {
      seeds.push({
        name: `${entry.name} as ${name}`,
        files: new Map([[name as string, contents as Uint8Array]]),
        args: [name as string],
        program: name as string,
      });
    }
  }
  seeds.push(
    await modelSeed("mlp_model", join(examples, "mlp_model"), {
      feedName: "img",
      feedFile: join(examples, "data", "mlp_img.npy"),
    }),
  );
  if (sharedModels !== undefined) {
    seeds.push(...await sharedModelSeeds(sharedModels));
  }
  return seeds.sort((a, b) => a.name < b.name ? -1 : 1);
}

async function modelSeed(
  name: string,
  dir: string,
  feed: { feedName: string; feedFile: string } | undefined,
): Promise<SeedInput> {
  const files = new Map<string, Uint8Array>();
  let program = "";
  let params: string | undefined;
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || /\.(md|npy|png)$/.test(entry.name)) continue;
    const path = `model/${entry.name}`;
    files.set(path, await Deno.readFile(join(dir, entry.name)));
    if (/\.pdmodel$|^__model__$/.test(entry.name)) program = path;
    else if (entry.name.endsWith(".pdiparams")) params = path;
  }
  const args = ["model"];
  if (feed !== undefined) {
    files.set("feed.npy", await Deno.readFile(feed.feedFile));
    args.push("--feed", `${feed.feedName}=feed.npy`);
  }
  return {
    name,
    files,
    args,
    program,
    params,
    feed: feed === undefined ? undefined : "feed.npy",
  };
}

// The shared models with one feed and one input file: the feed's name is
// the output of the program's only feed op.
async function sharedModelSeeds(dir: string): Promise<SeedInput[]> {
  const seeds: SeedInput[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isDirectory) continue;
    const folder = join(dir, entry.name);
    const inputs: string[] = [];
    for await (const f of Deno.readDir(folder)) {
      if (f.name.endsWith(".npy") && !f.name.endsWith(".expected.npy")) {
        inputs.push(f.name);
      }
    }
    if (inputs.length !== 1) continue;
    const seed = await modelSeed(entry.name, folder, undefined);
    const desc = fromBinary(ProgramDescSchema, seed.files.get(seed.program)!);
    const feeds = desc.blocks[0].ops.filter((op) => op.type === "feed");
    if (feeds.length !== 1) continue;
    const feedName = feeds[0].outputs[0].arguments[0];
    seeds.push(
      await modelSeed(entry.name, folder, {
        feedName,
        feedFile: join(folder, inputs[0]),
      }),
    );
  }
  return seeds;
}

/** The mutation families, in the order cases take them. */
const FAMILIES = ["program bytes", "program structure", "params", "feed"];

/**
 * Case `index` of the run seeded `seed`.
 *
 * @param seeds The seed inputs.
 * @param seed The run's seed.
 * @param index The case's number.
 * @returns The case.
 */
export function makeCase(
  seeds: readonly SeedInput[],
  seed: number,
  index: number,
): FuzzCase {
  const input = seeds[index % seeds.length];
  const family = FAMILIES[Math.floor(index / seeds.length) % FAMILIES.length];
  const rng = new Rng(seed * 1_000_003 + index);
  const files = new Map(input.files);
  const base = { index, seedInput: input.name, args: input.args };
  // A program with no parameters or feed takes a program mutation instead.
  const target = family === "params"
    ? input.params
    : family === "feed"
    ? input.feed
    : input.program;
  if (target === undefined || family === "program bytes") {
    const { value, how } = mutateBytes(files.get(input.program)!, rng);
    files.set(input.program, value);
    return { ...base, files, how: `${input.program}: ${how}`, expect: {} };
  }
  if (family === "program structure") {
    const how = mutateStructure(files, input.program, rng);
    return { ...base, files, how, expect: {} };
  }
  if (family === "feed" && rng.next() < 0.5) {
    const { value, how } = refusedNpy(files.get(target)!, rng);
    files.set(target, value);
    return {
      ...base,
      files,
      how: `${target}: ${how}`,
      expect: { refuse: true },
    };
  }
  const { value, how } = mutateBytes(files.get(target)!, rng);
  files.set(target, value);
  return { ...base, files, how: `${target}: ${how}`, expect: {} };
}

function mutateStructure(
  files: Map<string, Uint8Array>,
  program: string,
  rng: Rng,
): string {
  const bytes = files.get(program)!;
  const text = program.endsWith(".txtpb");
  const desc = text ? undefined : decodeOrUndefined(bytes);
  if (desc === undefined) {
    const { value, how } = mutateText(bytes, rng);
    files.set(program, value);
    return `${program}: ${how}`;
  }
  const how = mutateProgram(desc, rng);
  files.set(program, toBinary(ProgramDescSchema, desc));
  return `${program}: ${how}`;
}

// A Paddle file protobuf-es cannot decode as it is takes a text or byte
// mutation instead.
function decodeOrUndefined(bytes: Uint8Array): ProgramDesc | undefined {
  try {
    return fromBinary(ProgramDescSchema, bytes);
  } catch {
    return undefined;
  }
}

/** A text program with one number, word or line changed. */
function mutateText(
  bytes: Uint8Array,
  rng: Rng,
): { value: Uint8Array; how: string } {
  const text = new TextDecoder().decode(bytes);
  const tokens = [...text.matchAll(/-?\d+(\.\d+)?|"[^"\n]*"|\w+/g)];
  if (tokens.length === 0) return mutateBytes(bytes, rng);
  const token = rng.pick(tokens);
  const replacement = rng.pick([
    "0",
    "-1",
    "2147483647",
    "99999999999999999999",
    "1e309",
    "nan",
    '"\\xff"',
    "{",
    "",
    `${token[0]} ${token[0]}`,
  ]);
  const at = token.index!;
  const changed = text.slice(0, at) + replacement +
    text.slice(at + token[0].length);
  return {
    value: new TextEncoder().encode(changed),
    how: `text at ${at}: ${JSON.stringify(token[0])} → ${
      JSON.stringify(replacement)
    }`,
  };
}
