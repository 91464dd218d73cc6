// Reading deploy/k8s/ for the tests of tests/deploy/: every manifest as
// parsed YAML, the pieces the tests look at (the workers' StatefulSet, the
// master's Job, their one container, a flag's value), and README.md's
// "Running on Kubernetes" section.
//
// yaml is imported here and in the tests only, by a pinned npm: specifier:
// see k8s_test.ts.
// deno-lint-ignore-file no-import-prefix

import { assert, assertEquals } from "@std/assert";
import { join } from "@std/path";
import { parseAllDocuments } from "npm:yaml@2.9.1";
import type { IContainer, IPodSpec } from "npm:kubernetes-models@5.1.0/v1";
import type { IStatefulSet } from "npm:kubernetes-models@5.1.0/apps/v1";
import type { IJob } from "npm:kubernetes-models@5.1.0/batch/v1";
import { ROOT } from "../_helpers/rill_process.ts";

/** Where the manifests are. */
export const K8S_DIR: string = join(ROOT, "deploy", "k8s");

/** The namespace everything runs in. */
export const NAMESPACE = "rill";

/** One YAML document of a manifest file. */
export interface Manifest {
  /** `file#n`, n counting documents from 1. */
  where: string;
  /** `apiVersion kind`. */
  key: string;
  // deno-lint-ignore no-explicit-any
  doc: any;
}

/** Every document of every deploy/k8s/*.yaml, in file order. */
export function readManifests(): Manifest[] {
  const files = [...Deno.readDirSync(K8S_DIR)]
    .filter((e) => e.isFile && /\.ya?ml$/.test(e.name))
    .map((e) => e.name)
    .sort();
  assert(files.length > 0, "deploy/k8s/ holds no manifest");
  const manifests: Manifest[] = [];
  for (const file of files) {
    const docs = parseAllDocuments(
      Deno.readTextFileSync(join(K8S_DIR, file)),
    );
    assert(Array.isArray(docs), `${file}: not a YAML stream`);
    docs.forEach((parsed, i) => {
      const where = `${file}#${i + 1}`;
      assertEquals(parsed.errors, [], `${where}: YAML errors`);
      const doc = parsed.toJS();
      if (doc === null) return; // an empty document, as after a last `---`
      manifests.push({ where, key: `${doc.apiVersion} ${doc.kind}`, doc });
    });
  }
  return manifests;
}

export const MANIFESTS = readManifests();

/** `value`, which must be there (not null or undefined). */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`no ${what}`);
  return value;
}

/** The one manifest of `key` named `name`. */
// deno-lint-ignore no-explicit-any
export function find(key: string, name: string): any {
  const found = MANIFESTS.filter((m) =>
    m.key === key && m.doc.metadata?.name === name
  );
  assertEquals(found.length, 1, `one ${key} named "${name}"`);
  return found[0].doc;
}

/** The one manifest of `key`. */
// deno-lint-ignore no-explicit-any
export function only(key: string): any {
  const found = MANIFESTS.filter((m) => m.key === key);
  assertEquals(found.length, 1, `one ${key}`);
  return found[0].doc;
}

/** The "Running on Kubernetes" section of README.md. */
export function readmeSection(): string {
  const readme = Deno.readTextFileSync(join(ROOT, "README.md"));
  const start = readme.indexOf("\n## Running on Kubernetes\n");
  assert(start >= 0, 'README.md has no "Running on Kubernetes" section');
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** Whether every entry of `sub` is in `labels`. */
export function within(
  sub: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
): boolean {
  return Object.entries(sub).every(([k, v]) => labels[k] === v);
}

/** The one container of a pod spec. */
export function onlyContainer(spec: IPodSpec, who: string): IContainer {
  assertEquals(spec.containers.length, 1, `${who}: one container`);
  return spec.containers[0];
}

/** The value following `flag` among a container's args. */
export function argValue(args: readonly string[], flag: string): string {
  const at = args.indexOf(flag);
  assert(at >= 0 && at + 1 < args.length, `no ${flag} in ${args.join(" ")}`);
  return args[at + 1];
}

/** The value of `--flag=value` among a command's words. */
export function flagValue(words: readonly string[], flag: string): string {
  const word = present(
    words.find((w) => w.startsWith(`${flag}=`)),
    `${flag}= in ${words.join(" ")}`,
  );
  return word.slice(flag.length + 1);
}

/** The workers' StatefulSet. */
export function statefulSet(): IStatefulSet {
  return only("apps/v1 StatefulSet");
}

/** The master's Job. */
export function job(): IJob {
  return only("batch/v1 Job");
}

/** The worker pods' spec. */
export function workerSpec(): IPodSpec {
  return statefulSet().spec!.template.spec!;
}

/** The master pod's spec. */
export function masterSpec(): IPodSpec {
  return job().spec!.template.spec!;
}
