import { assert, assertEquals, assertRejects, assertThrows } from "@std/assert";
import {
  blockForever,
  Channel,
  go,
  Panic,
  Random,
  run,
  Scheduler,
  select,
  type SelectCase,
  type SelectResult,
} from "../../scheduler/mod.ts";
import { within } from "../_helpers/within.ts";
import { settle } from "./_settle.ts";
import { WaitGroup } from "./_wait_group.ts";

// ---------------------------------------------------------------------------
// Basics

Deno.test("select() performs a ready case at once", () => {
  const a = new Channel<number>(1);
  const b = new Channel<string>(1);
  b.send("x");
  const r = select([{ recv: a }, { recv: b }]);
  assertEquals(r, { index: 1, value: "x", ok: true });
});

Deno.test("select() takes the default only when no case is ready", () => {
  const a = new Channel<number>(1);
  assertEquals(select([{ recv: a }, { default: true }]).index, 1);
  a.send(3);
  assertEquals(select([{ recv: a }, { default: true }]), {
    index: 0,
    value: 3,
    ok: true,
  });
  assertEquals(select([{ default: true }]).index, 0);
});

Deno.test("select() rejects two default cases and malformed cases", () => {
  assertThrows(() => select([{ default: true }, { default: true }]), TypeError);
  assertThrows(() => select([{} as unknown as SelectCase]), TypeError);
});

Deno.test("select() receives the zero value, not ok, from a closed channel", () => {
  const ch = new Channel<number>(0, { zero: 0 });
  ch.close();
  assertEquals(select([{ recv: ch }]), { index: 0, value: 0, ok: false });
});

Deno.test("select() panics when it chooses a send on a closed channel", () => {
  const ch = new Channel<number>();
  ch.close();
  assertThrows(
    () => select([{ send: ch, value: 1 }]),
    Panic,
    "send on closed channel",
  );
});

Deno.test("select() fixes send values when it starts", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<number>();
      const sendCase = { send: ch, value: 1 };
      const t = go(() => select([sendCase]));
      await settle();
      sendCase.value = 2;
      assertEquals(await ch.recv(), 1);
      await t.done;
    }, { seed: 1 }),
  );
});

Deno.test("select() waiting on a send panics when the channel is closed", async () => {
  const s = new Scheduler({ seed: 1 });
  const p: Panic = await within(
    2000,
    assertRejects(() =>
      s.run(async () => {
        const ch = new Channel<number>();
        s.go(() =>
          select([{ send: ch, value: 1 }, { recv: new Channel<number>() }])
        );
        await settle();
        ch.close();
        await settle();
      }), Panic),
  );
  assertEquals(p.message, "send on closed channel");
  assertEquals(p.thread?.id, 2);
});

Deno.test("select() with an AbortSignal: abort removes every waiter and rejects", async () => {
  await within(
    2000,
    run(async () => {
      const a = new Channel<number>();
      const b = new Channel<number>();
      const ac = new AbortController();
      let caught: unknown;
      const t = go(async () => {
        try {
          await select([{ recv: a }, { send: b, value: 1 }, { recv: a }], {
            signal: ac.signal,
          });
        } catch (e) {
          caught = e;
        }
      });
      await settle();
      assertEquals(t.waitReason, "select");
      ac.abort("gone");
      await t.done;
      assertEquals(caught, "gone");
      assertEquals(a.trySend(1), false); // no receiver left on a
      assertEquals(b.tryRecv(), { state: "empty" }); // no sender left on b
    }, { seed: 1 }),
  );
});

Deno.test("select() with a seed chooses reproducibly", async () => {
  const picks = async (seed: number): Promise<number[]> => {
    const got: number[] = [];
    await run(() => {
      const a = new Channel<number>(100);
      const b = new Channel<number>(100);
      for (let i = 0; i < 100; i++) {
        a.send(0);
        b.send(1);
      }
      for (let i = 0; i < 100; i++) {
        got.push((select([{ recv: a }, { recv: b }]) as SelectResult).index);
      }
    }, { seed });
    return got;
  };
  assertEquals(await picks(7), await picks(7));
  assert((await picks(7)).join() !== (await picks(8)).join());
  // An explicit PRNG does the same without a current thread.
  const explicit = (seed: number) => {
    const random = new Random(seed);
    const a = new Channel<number>(10);
    const b = new Channel<number>(10);
    const got: number[] = [];
    for (let i = 0; i < 10; i++) {
      a.send(0);
      b.send(1);
      got.push(
        (select([{ recv: a }, { recv: b }], { random }) as SelectResult).index,
      );
    }
    return got;
  };
  assertEquals(explicit(3), explicit(3));
});

// ---------------------------------------------------------------------------
// Go's test/chan/select3.go: what blocks, what panics, what proceeds.

type Outcome = "blocks" | "proceeds" | "panics";

const select3Table: [string, Outcome, (closed: Channel<number>) => unknown][] =
  [
    [
      "send on the nil channel",
      "blocks",
      () => blockForever("chan send (nil chan)"),
    ],
    [
      "receive from the nil channel",
      "blocks",
      () => blockForever("chan receive (nil chan)"),
    ],
    ["select: nil send with default takes the default", "proceeds", () => {
      if (select([{ send: null, value: 7 }, { default: true }]).index !== 1) {
        unreachable();
      }
    }],
    ["select: nil receive with default takes the default", "proceeds", () => {
      if (select([{ recv: null }, { default: true }]).index !== 1) {
        unreachable();
      }
    }],
    [
      "send with buffer space",
      "proceeds",
      () => new Channel<number>(1).send(7),
    ],
    ["receive from a closed channel", "proceeds", async (closed) => {
      for (let i = 0; i < 10; i++) {
        if ((await closed.recv()) !== 0) unreachable();
        const r = await closed.recvOk();
        if (r.value !== 0 || r.ok) unreachable();
      }
    }],
    ["send on a closed channel", "panics", (closed) => closed.send(7)],
    [
      "receive from a channel nobody sends on",
      "blocks",
      () => new Channel<number>().recv(),
    ],
    ["empty select", "blocks", () => select([])],
    ["select: only a nil receive", "blocks", () => select([{ recv: null }])],
    [
      "select: only a nil send",
      "blocks",
      () => select([{ send: null, value: 7 }]),
    ],
    [
      "select: nil receive and nil send",
      "blocks",
      () => select([{ recv: null }, { send: null, value: 7 }]),
    ],
    [
      "select: a receive nobody sends on",
      "blocks",
      () => select([{ recv: new Channel<number>() }]),
    ],
    ["select: only a default", "proceeds", () => select([{ default: true }])],
    ["select: ready send with default", "proceeds", () => {
      if (
        select([{ send: new Channel<number>(1), value: 7 }, { default: true }])
          .index !== 0
      ) {
        unreachable();
      }
    }],
    ["select: ready receive with default", "proceeds", () => {
      const ch = new Channel<number>(1);
      ch.send(7);
      if (select([{ recv: ch }, { default: true }]).index !== 0) unreachable();
    }],
    [
      "select: receive from a closed channel",
      "proceeds",
      (closed) => select([{ recv: closed }]),
    ],
    [
      "select: send on a closed channel",
      "panics",
      (closed) => select([{ send: closed, value: 7 }]),
    ],
    [
      "select: send and receive on one channel never pair with themselves",
      "blocks",
      () => {
        const c = new Channel<number>();
        return select([{ send: c, value: 1 }, { recv: c }]);
      },
    ],
  ];

function unreachable(): never {
  throw new Error("unreachable");
}

async function outcomeOf(
  fn: (closed: Channel<number>) => unknown,
): Promise<Outcome> {
  const s = new Scheduler({ seed: 1 });
  let finished = false;
  try {
    await s.run(async () => {
      const closed = new Channel<number>(0, { zero: 0 });
      closed.close();
      s.go(async () => {
        await fn(closed);
        finished = true;
      });
      await settle(); // every runnable thread has run; the others block
    });
  } catch (e) {
    if (e instanceof Panic && e.message === "send on closed channel") {
      return "panics";
    }
    throw e;
  }
  return finished ? "proceeds" : "blocks";
}

for (const [name, expected, fn] of select3Table) {
  Deno.test(`select() and channel operations (select3): ${name} ${expected}`, async () => {
    assertEquals(await within(2000, outcomeOf(fn)), expected);
  });
}

// ---------------------------------------------------------------------------
// Go's test/chan/select6.go: a select that loses a case must leave that
// channel's queue intact for the other waiters on it.

Deno.test("select() leaves no stale waiter on the cases it loses (select6)", async () => {
  await within(
    2000,
    run(async () => {
      const c1 = new Channel<boolean>();
      const c2 = new Channel<boolean>();
      const c3 = new Channel<boolean>();
      go(() => c1.recv());
      go(async () => {
        const r = await select([{ recv: c1 }, { recv: c2 }]);
        if (r.index === 0) throw new Error("dummy");
        await c3.send(true);
        await c1.recv();
      });
      go(() => c2.send(true));
      await c3.recv();
      await c1.send(true);
      await c1.send(true);
    }, { seed: 1 }),
  );
});

// ---------------------------------------------------------------------------
// Go's test/chan/select7.go: every kind of sender meets every kind of
// receiver on an unbuffered channel.

Deno.test("select() pairs every kind of send with every kind of receive (select7)", async () => {
  const receivers: ((c: Channel<number>) => Promise<number>)[] = [
    async (c) => await c.recv(),
    async (c) => (await select([{ recv: c }])).value,
    async (c) =>
      (await select([{ recv: c }, { recv: new Channel<number>() }]))
        .value as number,
  ];
  const senders: ((c: Channel<number>) => unknown)[] = [
    (c) => c.send(1),
    (c) => select([{ send: c, value: 1 }]),
    (c) =>
      select([{ send: c, value: 1 }, {
        send: new Channel<number>(),
        value: 1,
      }]),
  ];
  for (const receive of receivers) {
    for (const send of senders) {
      await within(
        2000,
        run(async () => {
          const c = new Channel<number>();
          let got = 0;
          const t = go(async () => {
            got = await receive(c);
          });
          await settle(); // the receiver waits first
          await send(c);
          await t.done;
          assertEquals(got, 1);
        }, { seed: 1 }),
      );
    }
  }
});

// ---------------------------------------------------------------------------
// Go's test/chan/select8.go: one-, two- and three-case selects against a
// thread that sends forever; each ends where its case says.

Deno.test("select() of one, two and three cases completes the case it chose (select8)", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<number>();
      go(async () => {
        while (true) await ch.send(5);
      });
      assertEquals(await select([{ recv: ch }]), {
        index: 0,
        value: 5,
        ok: true,
      });
      assertEquals(select([{ default: true }]).index, 0);
      await settle(); // the sender is waiting again
      assertEquals(select([{ recv: ch }, { default: true }]), {
        index: 0,
        value: 5,
        ok: true,
      });
      await settle();
      // Only the receive can proceed: nobody receives the 10.
      const r = select([{ recv: ch }, { send: ch, value: 10 }, {
        default: true,
      }]);
      assertEquals(r, { index: 0, value: 5, ok: true });
    }, { seed: 1 }),
  );
});

// ---------------------------------------------------------------------------
// Go's test/chan/doubleselect.go: a select over four send cases completes
// exactly one of them each time, so no value arrives twice.

Deno.test("select() completes exactly one case per call (doubleselect)", async () => {
  await within(
    10000,
    run(async () => {
      const n = 10000;
      const cs = [0, 1, 2, 3].map(() => new Channel<number>());
      const cmux = new Channel<number>();
      const done = new Channel<boolean>();
      const result = new Channel<number>();
      go(async () => {
        for (let i = 0; i < n; i++) {
          await select(cs.map((c) => ({ send: c, value: i })));
        }
        for (const c of cs) c.close();
      });
      for (const c of cs) {
        go(async () => {
          for await (const v of c) await cmux.send(v);
          await done.send(true);
        });
      }
      go(async () => {
        const seen = new Set<number>();
        for await (const v of cmux) {
          if (seen.has(v)) throw new Error(`got duplicate value ${v}`);
          seen.add(v);
        }
        await result.send(seen.size);
      });
      for (let i = 0; i < 4; i++) await done.recv();
      cmux.close();
      assertEquals(await result.recv(), n);
    }, { seed: 1 }),
  );
});

// ---------------------------------------------------------------------------
// Go's runtime/chan_test.go TestSelectFairness: two always-ready cases are
// chosen about equally often.

Deno.test("select() chooses uniformly among ready cases", async () => {
  await within(
    10000,
    run(async () => {
      const trials = 10000;
      const c1 = new Channel<number>(trials + 1);
      const c2 = new Channel<number>(trials + 1);
      for (let i = 0; i < trials + 1; i++) {
        c1.send(1);
        c2.send(2);
      }
      const c3 = new Channel<number>();
      const c4 = new Channel<number>();
      const out = new Channel<number>();
      const done = new Channel<void>();
      const picker = go(async () => {
        while (true) {
          const { value } = await select([{ recv: c3 }, { recv: c4 }, {
            recv: c1,
          }, { recv: c2 }]);
          const r = await select([{ send: out, value: value as number }, {
            recv: done,
          }]);
          if (r.index === 1) return;
        }
      });
      let cnt1 = 0;
      let cnt2 = 0;
      for (let i = 0; i < trials; i++) {
        const b = await out.recv();
        if (b === 1) cnt1++;
        else if (b === 2) cnt2++;
        else throw new Error(`unexpected value ${b}`);
      }
      // Within 5 standard deviations of a fair coin (the seed is fixed, so
      // this is deterministic; Go's test allows 10).
      const mean = trials / 2;
      const stddev = Math.sqrt(trials * 0.25);
      assert(
        Math.abs(cnt1 - mean) <= 5 * stddev,
        `unfair select: ${cnt1}, ${cnt2}`,
      );
      done.close();
      await picker.done;
    }, { seed: 12345 }),
  );
});

// ---------------------------------------------------------------------------
// Go's runtime/chan_test.go TestPseudoRandomSend: two send cases on one
// channel send both values.

Deno.test("select() over two sends on one channel sends both values", async () => {
  const n = 100;
  for (const cap of [0, n]) {
    await within(
      2000,
      run(async () => {
        const c = new Channel<number>(cap);
        const got: number[] = [];
        const receiver = go(async () => {
          for (let i = 0; i < n; i++) {
            await null; // let the sender run first sometimes
            got.push(await c.recv());
          }
        });
        for (let i = 0; i < n; i++) {
          await select([{ send: c, value: 1 }, { send: c, value: 0 }]);
        }
        await receiver.done;
        const ones = got.filter((v) => v === 1).length;
        const zeros = n - ones;
        assert(
          ones > n / 10 && zeros > n / 10,
          `${zeros} zeros and ${ones} ones (cap ${cap})`,
        );
      }, { seed: 99 }),
    );
  }
});

// ---------------------------------------------------------------------------
// Go's runtime/chan_test.go TestSelectDuplicateChannel: a select may wait
// on one channel twice, and firing leaves the channel's queue intact.

Deno.test("select() may wait twice on one channel and unlinks both waiters", async () => {
  await within(
    2000,
    run(async () => {
      const c = new Channel<number>();
      const d = new Channel<number>();
      const e = new Channel<number>();
      go(async () => {
        await select([{ recv: c }, { recv: c }, { recv: d }]);
        await e.send(9);
      });
      await settle(); // A waits on c (twice) first
      let bGot = 0;
      const b = go(async () => {
        bGot = await c.recv();
      });
      await settle(); // then B waits on c
      await d.send(7); // wakes A, which leaves c's queue
      assertEquals(await e.recv(), 9);
      await c.send(8); // must wake B, not A again
      await b.done;
      assertEquals(bGot, 8);
    }, { seed: 1 }),
  );
});

// ---------------------------------------------------------------------------
// Go's runtime/chan_test.go TestSelfSelect: a select that sends and receives
// on one channel never pairs with itself, and does not deadlock.

Deno.test("select() sending and receiving on one channel never receives its own value", async () => {
  for (const cap of [0, 10]) {
    await within(
      5000,
      run(async () => {
        const c = new Channel<number>(cap);
        const wg = new WaitGroup();
        wg.add(2);
        for (let p = 0; p < 2; p++) {
          go(async () => {
            for (let i = 0; i < 1000; i++) {
              const cases: SelectCase[] = p === 0 || i % 2 === 0
                ? [{ send: c, value: p }, { recv: c }]
                : [{ recv: c }, { send: c, value: p }];
              const r = await select(cases);
              const received = "recv" in cases[r.index];
              if (cap === 0 && received && r.value === p) {
                throw new Error("self receive");
              }
            }
            wg.done();
          });
        }
        await wg.wait();
      }, { seed: 5 }),
    );
  }
});

// ---------------------------------------------------------------------------
// Go's runtime/chan_test.go TestSelectStress: plain and select senders and
// receivers on buffered and unbuffered channels, all at once, never
// deadlock and all finish.

Deno.test("select() mixed with plain operations on four channels finishes (stress)", async () => {
  await within(
    20000,
    run(async () => {
      const n = 10000;
      const c = [
        new Channel<number>(),
        new Channel<number>(),
        new Channel<number>(2),
        new Channel<number>(3),
      ];
      const wg = new WaitGroup();
      wg.add(10);
      for (let k = 0; k < 4; k++) {
        go(async () => {
          for (let i = 0; i < n; i++) await c[k].send(0);
          wg.done();
        });
        go(async () => {
          for (let i = 0; i < n; i++) await c[k].recv();
          wg.done();
        });
      }
      go(async () => {
        const count = [0, 0, 0, 0];
        const live: (Channel<number> | null)[] = [...c];
        for (let i = 0; i < 4 * n; i++) {
          const { index } = await select(
            [3, 2, 0, 1].map((k) => ({ send: live[k], value: 0 })),
          );
          const k = [3, 2, 0, 1][index];
          if (++count[k] === n) live[k] = null;
        }
        wg.done();
      });
      go(async () => {
        const count = [0, 0, 0, 0];
        const live: (Channel<number> | null)[] = [...c];
        for (let i = 0; i < 4 * n; i++) {
          const { index } = await select(live.map((ch) => ({ recv: ch })));
          if (++count[index] === n) live[index] = null;
        }
        wg.done();
      });
      await wg.wait();
    }, { seed: 77 }),
  );
});

// ---------------------------------------------------------------------------
// Go's test/chan/powser1.go: power series as threads exchanging exact
// rationals on demand (each series is a request channel and a data
// channel), including a series defined in terms of itself.

class Rat {
  readonly num: bigint;
  readonly den: bigint;
  constructor(num: bigint, den = 1n) {
    if (den < 0n) [num, den] = [-num, -den];
    const g = gcd(num < 0n ? -num : num, den);
    this.num = num / g;
    this.den = den / g;
  }
  add(o: Rat): Rat {
    return new Rat(this.num * o.den + o.num * this.den, this.den * o.den);
  }
  mul(o: Rat): Rat {
    return new Rat(this.num * o.num, this.den * o.den);
  }
  toString(): string {
    return this.den === 1n ? `${this.num}` : `${this.num}/${this.den}`;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

const ZERO = new Rat(0n);
const ONE = new Rat(1n);

interface Series {
  req: Channel<void>;
  dat: Channel<Rat>;
}

function series(next: (i: number) => Rat | Promise<Rat>): Series {
  const s: Series = { req: new Channel<void>(), dat: new Channel<Rat>() };
  go(async () => {
    for (let i = 0;; i++) {
      await s.req.recv();
      await s.dat.send(await next(i));
    }
  });
  return s;
}

async function get(s: Series): Promise<Rat> {
  await s.req.send();
  return await s.dat.recv();
}

const rep = (c: Rat) => series(() => c);
const add = (u: Series, v: Series) =>
  series(async () => (await get(u)).add(await get(v)));
const cmul = (c: Rat, u: Series) => series(async () => c.mul(await get(u)));
const sub = (u: Series, v: Series) => add(u, cmul(new Rat(-1n), v));
const xmul = (u: Series) => series((i) => i === 0 ? ZERO : get(u));
const integ = (c: Rat, u: Series) =>
  series(async (i) => i === 0 ? c : (await get(u)).mul(new Rat(1n, BigInt(i))));

function diff(u: Series): Series {
  let first = true;
  return series(async (i) => {
    if (first) {
      first = false;
      await get(u); // the constant term vanishes
    }
    return (await get(u)).mul(new Rat(BigInt(i + 1)));
  });
}

// u(c x^n): u0, then n-1 zeros between the terms, scaled by powers of c.
function monSubst(u: Series, c: Rat, n: number): Series {
  let power = ONE;
  return series(async (i) => {
    if (i % n !== 0) return ZERO;
    const term = (await get(u)).mul(power);
    power = power.mul(c);
    return term;
  });
}

// Two copies of one series, each read at its own pace. Values one copy has
// not read yet wait in its queue; the source is read only when a copy asks
// for a value neither has, by a helper thread, so that the splitter keeps
// serving requests meanwhile (a series defined in terms of itself needs
// that). Cases that do not apply use the nil channel.
function split(u: Series): [Series, Series] {
  const out: [Series, Series] = [
    { req: new Channel<void>(), dat: new Channel<Rat>() },
    { req: new Channel<void>(), dat: new Channel<Rat>() },
  ];
  const queues: [Rat[], Rat[]] = [[], []];
  const fetched = new Channel<Rat>();
  go(async () => {
    const asked = [false, false];
    let fetching = false;
    while (true) {
      const r = await select([
        { recv: asked[0] ? null : out[0].req },
        { recv: asked[1] ? null : out[1].req },
        { recv: fetching ? fetched : null },
        {
          send: asked[0] && queues[0].length > 0 ? out[0].dat : null,
          value: queues[0][0],
        },
        {
          send: asked[1] && queues[1].length > 0 ? out[1].dat : null,
          value: queues[1][0],
        },
      ]);
      if (r.index < 2) {
        asked[r.index] = true;
      } else if (r.index === 2) {
        fetching = false;
        queues[0].push(r.value as Rat);
        queues[1].push(r.value as Rat);
      } else {
        queues[r.index - 3].shift();
        asked[r.index - 3] = false;
      }
      const starved = (asked[0] && queues[0].length === 0) ||
        (asked[1] && queues[1].length === 0);
      if (starved && !fetching) {
        fetching = true;
        go(async () => await fetched.send(await get(u)));
      }
    }
  });
  return out;
}

function copyInto(src: Series, dst: Series): void {
  go(async () => {
    while (true) {
      await dst.req.recv();
      await dst.dat.send(await get(src));
    }
  });
}

// (u0 + x U1)(v0 + x V1) = u0 v0 + x (u0 V1 + v0 U1 + x U1 V1)
function mul(u: Series, v: Series): Series {
  const out: Series = { req: new Channel<void>(), dat: new Channel<Rat>() };
  go(async () => {
    await out.req.recv();
    const u0 = await get(u);
    const v0 = await get(v);
    await out.dat.send(u0.mul(v0));
    const [u1, u1b] = split(u);
    const [v1, v1b] = split(v);
    copyInto(add(add(cmul(u0, v1), cmul(v0, u1)), xmul(mul(u1b, v1b))), out);
  });
  return out;
}

// Z = exp(U) solves Z' = U' Z with Z(0) = 1, so Z = 1 + ∫ U' Z: a series
// fed back into itself.
function exp(u: Series): Series {
  const z: Series = { req: new Channel<void>(), dat: new Channel<Rat>() };
  const [z0, z1] = split(z);
  copyInto(integ(ONE, mul(z0, diff(u))), z);
  return z1;
}

async function first(s: Series, n: number): Promise<string[]> {
  const got: string[] = [];
  for (let i = 0; i < n; i++) got.push(`${await get(s)}`);
  return got;
}

Deno.test("select() drives Go's power series with exact rationals (powser1)", async () => {
  await within(
    10000,
    run(async () => {
      const ones = () => rep(ONE);
      const twos = () => rep(new Rat(2n));
      assertEquals(await first(ones(), 5), ["1", "1", "1", "1", "1"]);
      assertEquals(await first(add(ones(), twos()), 3), ["3", "3", "3"]);
      assertEquals(await first(sub(ones(), twos()), 3), ["-1", "-1", "-1"]);
      assertEquals(await first(cmul(new Rat(-1n), twos()), 3), [
        "-2",
        "-2",
        "-2",
      ]);
      assertEquals(await first(diff(ones()), 5), ["1", "2", "3", "4", "5"]);
      assertEquals(await first(integ(ZERO, ones()), 6), [
        "0",
        "1",
        "1/2",
        "1/3",
        "1/4",
        "1/5",
      ]);
      assertEquals(await first(mul(ones(), ones()), 6), [
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
      ]);
      // exp(x / (1 - x)) = sum of a(n) x^n / n!, a = 1, 1, 3, 13, 73, 501,
      // 4051, 37633, 394353, 4596553 (OEIS A000262)
      assertEquals(await first(exp(ones()), 10), [
        "1",
        "1",
        "3/2",
        "13/6",
        "73/24",
        "167/40",
        "4051/720",
        "37633/5040",
        "43817/4480",
        "4596553/362880",
      ]);
      // atan x = ∫ 1 / (1 + x²)
      assertEquals(
        await first(integ(ZERO, monSubst(ones(), new Rat(-1n), 2)), 8),
        [
          "0",
          "1",
          "0",
          "-1/3",
          "0",
          "1/5",
          "0",
          "-1/7",
        ],
      );
    }, { seed: 1 }),
  );
});
