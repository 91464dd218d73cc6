// A new user's first run: README.md's first command, on a machine whose Deno
// cache is empty, fetches only what running needs and prints only the
// program's output.
//
// Deno 2.9 caches every npm package in deno.lock on a `deno run` unless
// deno.json turns on "npm-lazy-caching"; then a run fetches only the
// packages its module graph reaches. The code generator's packages (buf,
// whose install script gave an "Ignored build scripts" box, and
// protoc-gen-es with TypeScript) live in gen.lock, which only `deno task gen`
// reads, so not even `deno test` or `deno bench`, which cache the whole of
// deno.lock, fetch them. No package on the run path has install scripts.
//
// The first tests are fast and offline: they read the configuration and ask
// `deno info` which npm packages the CLI's module graphs reach. The last
// really runs the command in a fresh DENO_DIR, so it needs the npm registry;
// it runs when RILL_FIRST_RUN=1, as .ci/run sets it.

import { assert, assertEquals } from "@std/assert";
import { join } from "@std/path";
import { denoInfo } from "./_helpers/deno_info.ts";
import { ROOT } from "./_helpers/rill_process.ts";
import { withTempDir } from "./_helpers/with_temp_dir.ts";

/** The npm packages that running a program may fetch. */
const RUN_PACKAGES: ReadonlySet<string> = new Set([
  "@bufbuild/protobuf",
  "deno-std",
]);

/**
 * The modules a run loads: the CLI, and the pool's Web Worker entry, which
 * a module graph does not reach (it is started by `new Worker(url)`).
 */
const RUN_ROOTS = ["mod.ts", "runtime/pool/worker_main.ts"];

const decoder = new TextDecoder();

/** The name of an npm package from its id in deno.lock (`name@version_peers`). */
function packageName(id: string): string {
  return id.slice(0, id.indexOf("@", 1));
}

/**
 * README.md's first command and what it says the command prints.
 *
 * @returns The arguments after `npx -y deno@VERSION`, and the stated output.
 */
function readmeFirstRun(): { args: string[]; prints: string } {
  const readme = Deno.readTextFileSync(join(ROOT, "README.md"));
  const command = /```sh\nnpx -y deno@\S+ (run [^\n]*)\n/.exec(readme);
  const prints = /The first prints `([^`]*)`/.exec(readme);
  if (command === null) {
    throw new Error("README.md: no `npx -y deno@… run` command found");
  }
  if (prints === null) {
    throw new Error("README.md: no `The first prints` sentence found");
  }
  return { args: command[1].split(" "), prints: prints[1] };
}

/**
 * The npm packages in a Deno cache, by name.
 *
 * @param denoDir The DENO_DIR.
 * @returns Each `<registry>/<name>` folder under `npm/`, as `name`.
 */
function cachedPackages(denoDir: string): string[] {
  const names: string[] = [];
  const npm = join(denoDir, "npm");
  let registries: Deno.DirEntry[];
  try {
    registries = [...Deno.readDirSync(npm)];
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return names;
    throw error;
  }
  for (const registry of registries) {
    if (!registry.isDirectory) continue;
    for (const entry of Deno.readDirSync(join(npm, registry.name))) {
      if (!entry.isDirectory) continue;
      if (!entry.name.startsWith("@")) {
        names.push(entry.name);
        continue;
      }
      const scope = join(npm, registry.name, entry.name);
      for (const pkg of Deno.readDirSync(scope)) {
        names.push(`${entry.name}/${pkg.name}`);
      }
    }
  }
  return names.sort();
}

/**
 * Copies the repository's files (tracked, and untracked but not ignored, so
 * no node_modules/) into `dir`, as a fresh clone of the working tree.
 */
async function copyRepository(dir: string): Promise<void> {
  const list = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  assert(list.success, "git ls-files failed");
  for (const path of decoder.decode(list.stdout).split("\0")) {
    if (path === "") continue;
    const from = join(ROOT, path);
    // A file deleted in the working tree but still tracked.
    if (!(await Deno.stat(from).catch(() => null))?.isFile) continue;
    const to = join(dir, path);
    await Deno.mkdir(join(to, ".."), { recursive: true });
    await Deno.copyFile(from, to);
  }
}

Deno.test("deno.json caches npm packages lazily", () => {
  const config = Deno.readTextFileSync(join(ROOT, "deno.json"));
  assert(
    /"unstable":\s*\[[^\]]*"npm-lazy-caching"/.test(config),
    'deno.json: "unstable" lacks "npm-lazy-caching"',
  );
});

Deno.test("deno task gen resolves buf and protoc-gen-es through gen.lock alone", () => {
  const config = Deno.readTextFileSync(join(ROOT, "deno.json"));
  const template = Deno.readTextFileSync(join(ROOT, "buf.gen.yaml"));
  const specifiers = (file: string) =>
    Object.keys(
      (JSON.parse(Deno.readTextFileSync(join(ROOT, file))) as {
        specifiers: Record<string, string>;
      }).specifiers,
    );
  const generator = /^npm:@bufbuild\/(buf|protoc-gen-es)@/;
  assert(
    /"gen": "deno run -A --lock=gen\.lock npm:@bufbuild\/buf@/.test(config),
    "deno.json: the gen task does not run buf with --lock=gen.lock",
  );
  assert(
    /--lock=gen\.lock\s+- npm:@bufbuild\/protoc-gen-es@/.test(template),
    "buf.gen.yaml: the plugin does not run with --lock=gen.lock",
  );
  assertEquals(
    specifiers("gen.lock").filter((s) => generator.test(s)).length,
    2,
  );
  for (const specifier of specifiers("deno.lock")) {
    assert(!generator.test(specifier), `deno.lock holds ${specifier}`);
  }
});

Deno.test("mod.ts reaches only @bufbuild/protobuf and deno-std, neither with install scripts", async () => {
  const lock = JSON.parse(
    Deno.readTextFileSync(join(ROOT, "deno.lock")),
  ) as { npm: Record<string, { scripts?: boolean }> };
  for (const root of RUN_ROOTS) {
    const info = await denoInfo<{
      modules: { kind: string; npmPackage?: string }[];
      npmPackages: Record<string, { dependencies: string[] }>;
    }>(root);
    // npmPackages is the whole lock's resolution: follow the graph's npm
    // modules and their dependencies instead.
    const ids = new Set<string>();
    const queue = info.modules.flatMap((m) => m.npmPackage ?? []);
    for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
      if (ids.has(id)) continue;
      ids.add(id);
      queue.push(...info.npmPackages[id].dependencies);
    }
    if (root === "mod.ts") {
      assert(ids.size > 0, `deno info ${root}: no npm packages`);
    }
    for (const id of ids) {
      assert(
        RUN_PACKAGES.has(packageName(id)),
        `${root} reaches npm:${id}, which running should not need`,
      );
      assert(lock.npm[id] !== undefined, `deno.lock lacks npm:${id}`);
      assert(!lock.npm[id].scripts, `npm:${id} has install scripts`);
    }
  }
});

Deno.test({
  name:
    "README.md's first command fetches only @bufbuild/protobuf and deno-std and prints only the output",
  ignore: Deno.env.get("RILL_FIRST_RUN") !== "1",
  fn: () =>
    withTempDir(async (dir) => {
      const { args, prints } = readmeFirstRun();
      const repo = join(dir, "repo");
      const denoDir = join(dir, "deno_dir");
      await copyRepository(repo);
      const lockBefore = Deno.readTextFileSync(join(repo, "deno.lock"));
      const run = () =>
        new Deno.Command(Deno.execPath(), {
          args,
          cwd: repo,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
          env: { DENO_DIR: denoDir, NO_COLOR: "1" },
        }).output();

      // Cold: when stderr is not a terminal, Deno logs each fetch as a
      // `Download <url>` line (on a terminal it is a progress line that is
      // erased); those name allowed packages, and nothing else is printed.
      const cold = await run();
      const coldErr = decoder.decode(cold.stderr);
      assertEquals(decoder.decode(cold.stdout), `${prints}\n`, coldErr);
      assertEquals(cold.code, 0, coldErr);
      assertOnlyAllowedDownloads(coldErr);
      const cached = cachedPackages(denoDir);
      assert(cached.includes("@bufbuild/protobuf"), `cache: ${cached}`);
      for (const name of cached) {
        assert(RUN_PACKAGES.has(name), `cached npm package ${name}`);
      }
      assertEquals(
        Deno.readTextFileSync(join(repo, "deno.lock")),
        lockBefore,
        "the run changed deno.lock",
      );
      assert(
        !(await Deno.stat(join(repo, "node_modules")).catch(() => null)),
        "the run made node_modules/",
      );

      // Warm: nothing on stderr but, now and then, Deno fetching an allowed
      // package's metadata again (seen in CI: its cache revalidates).
      const warm = await run();
      assertOnlyAllowedDownloads(decoder.decode(warm.stderr));
      assertEquals(decoder.decode(warm.stdout), `${prints}\n`);
      assertEquals(warm.code, 0);
    }),
});

// Every stderr line is a `Download <url>` of a package a run may fetch.
function assertOnlyAllowedDownloads(stderr: string): void {
  const fetched =
    /^Download https?:\/\/[^/]+\/(@[^/%]+(?:\/|%2f)[^/]+|[^/@]+)(?:\/|$)/i;
  for (const line of stderr.split("\n").filter((l) => l !== "")) {
    const match = fetched.exec(line);
    if (match === null) throw new Error(`unexpected stderr: ${line}`);
    const name = match[1].replace(/%2f/i, "/");
    assert(RUN_PACKAGES.has(name), `fetched ${name}: ${line}`);
  }
}
