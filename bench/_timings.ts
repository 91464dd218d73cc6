// Per-iteration wall times for the device benches, recorded by the bench
// functions themselves so a summary (GFLOPS, ms) can be printed at the end
// of a `deno bench` run. Deno.bench calls a function `warmup` times before
// the `n` timed calls; those warm-up calls are left out here too.

/** Wall times in ms, by row name, in recording order. */
export class Timings {
  readonly #times = new Map<string, number[]>();
  readonly #calls = new Map<string, number>();

  /**
   * Times one call of `fn` under `name`, unless it is one of the first
   * `warmup` calls under that name.
   *
   * @param name The row.
   * @param warmup Calls to leave out.
   * @param fn The work of one iteration.
   */
  async time(
    name: string,
    warmup: number,
    fn: () => unknown | Promise<unknown>,
  ): Promise<void> {
    const calls = (this.#calls.get(name) ?? 0) + 1;
    this.#calls.set(name, calls);
    const t0 = performance.now();
    await fn();
    const ms = performance.now() - t0;
    if (calls <= warmup) return;
    let list = this.#times.get(name);
    if (list === undefined) this.#times.set(name, list = []);
    list.push(ms);
  }

  /**
   * The median and the fastest recorded time of a row.
   *
   * @param name The row.
   * @returns `[median, min]` in ms, or undefined when nothing was recorded.
   */
  get(name: string): [number, number] | undefined {
    const list = this.#times.get(name);
    if (list === undefined || list.length === 0) return undefined;
    const sorted = [...list].sort((x, y) => x - y);
    return [sorted[Math.floor(sorted.length / 2)], sorted[0]];
  }
}

/**
 * A seeded uniform [-0.5, 0.5) float32 array (a 32-bit LCG).
 *
 * @param size Elements.
 * @param seed The seed.
 * @returns The array.
 */
export function randomFloat32(size: number, seed: number): Float32Array {
  const data = new Float32Array(size);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = s / 2 ** 32 - 0.5;
  }
  return data;
}
