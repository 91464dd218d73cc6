/**
 * Rebuilds every example program: `examples/<name>.ts` exports `build()`,
 * written to `examples/<name>.pb` (`deno task examples`), and every model
 * example's files (`MODEL_EXAMPLES`). A test fails when a committed file
 * differs from what its builder makes.
 *
 * @module
 */
import { dirname, fromFileUrl } from "@std/path";
import type { Program } from "../mod.ts";

/** The example builders, by name. */
export const EXAMPLES: readonly string[] = [
  "mult",
  "while_loop",
  "if_else",
  "buffered_channel",
  "goroutine",
  "select",
  "fibonacci",
  "prime_sieve",
  "minibatch",
  "parallel_mult",
];

/**
 * The examples that are model directories in Paddle's format, by module:
 * `examples/<name>.ts` exports `modelFiles()`, the files it writes.
 */
export const MODEL_EXAMPLES: readonly string[] = ["mlp_model"];

/**
 * The files model example `name` writes, by path from the repository root.
 *
 * @param name An entry of `MODEL_EXAMPLES`.
 * @returns Path to contents.
 */
export async function modelExampleFiles(
  name: string,
): Promise<Record<string, Uint8Array>> {
  const module = await import(`./${name}.ts`);
  return module.modelFiles();
}

/**
 * Builds example `name`'s program.
 *
 * @param name An entry of `EXAMPLES`.
 * @returns Its program.
 */
export async function buildExample(name: string): Promise<Program> {
  const module = await import(`./${name}.ts`);
  return module.build();
}

/**
 * The data files example `name` reads, by path from the repository root.
 *
 * @param name An entry of `EXAMPLES`.
 * @returns Path to contents; empty when it reads none.
 */
export async function exampleData(
  name: string,
): Promise<Record<string, Uint8Array>> {
  const module = await import(`./${name}.ts`);
  return module.dataFiles?.() ?? {};
}

/**
 * The path of example `name`'s `.pb`.
 *
 * @param name An entry of `EXAMPLES`.
 * @returns The path.
 */
export function examplePath(name: string): string {
  return fromFileUrl(new URL(`./${name}.pb`, import.meta.url));
}

if (import.meta.main) {
  for (const name of EXAMPLES) {
    const program = await buildExample(name);
    await Deno.writeFile(examplePath(name), program.toBinary());
    const root = fromFileUrl(new URL("../", import.meta.url));
    for (const [path, bytes] of Object.entries(await exampleData(name))) {
      await Deno.writeFile(root + path, bytes);
    }
    console.log(`wrote examples/${name}.pb`);
  }
  const root = fromFileUrl(new URL("../", import.meta.url));
  for (const name of MODEL_EXAMPLES) {
    for (const [path, bytes] of Object.entries(await modelExampleFiles(name))) {
      await Deno.mkdir(dirname(root + path), { recursive: true });
      await Deno.writeFile(root + path, bytes);
      console.log(`wrote ${path}`);
    }
  }
}
