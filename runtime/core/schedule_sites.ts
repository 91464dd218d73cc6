// The sites of a recorded or replayed run's channel attempts: an op's
// attempt kind, block and op, numbered once per run so that a wrapped op
// passes its gate one number (runtime/exec/scheduled_op.ts asks for it
// once per run, runtime/ops/select.ts once per case).
//
// Invariants:
//   Site s is words[3s .. 3s+2] (kind, block, op); numbers are dense
//   from 0 and never change within a run.

/**
 * A run's numbered sites.
 *
 * @example Usage
 * ```ts
 * import { ScheduleSites } from "./schedule_sites.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const sites = new ScheduleSites();
 * const s = sites.site(0, 1, 4);
 * assertEquals(sites.site(0, 1, 4), s);
 * assertEquals([sites.kind(s), sites.block(s), sites.op(s)], [0, 1, 4]);
 * ```
 */
export class ScheduleSites {
  /** Kind, block and op of each site, three words a site. */
  readonly words: number[] = [];
  readonly #index = new Map<string, number>();

  /**
   * The number of the attempts of kind `kind` at an op.
   *
   * @param kind SEND, RECV, CLOSE, or CASE_BASE + a select's case.
   * @param block The op's block.
   * @param op The op's index.
   * @returns The site.
   */
  site(kind: number, block: number, op: number): number {
    const key = `${kind} ${block} ${op}`;
    let site = this.#index.get(key);
    if (site === undefined) {
      site = this.words.length / 3;
      this.words.push(kind, block, op);
      this.#index.set(key, site);
    }
    return site;
  }

  /**
   * A site's attempt kind.
   *
   * @param site The site.
   * @returns Its kind.
   */
  kind(site: number): number {
    return this.words[3 * site];
  }

  /**
   * A site's block.
   *
   * @param site The site.
   * @returns Its block.
   */
  block(site: number): number {
    return this.words[3 * site + 1];
  }

  /**
   * A site's op.
   *
   * @param site The site.
   * @returns Its op's index.
   */
  op(site: number): number {
    return this.words[3 * site + 2];
  }
}
