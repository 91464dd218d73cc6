// Channel costs of Rill's scheduler beside the JavaScript channel libraries,
// shaped like ../shared/anchors/go/chanbench.go. Run:
//   deno bench -A bench/channel_bench.ts
//
// Every benchmark does 1,000 operations per iteration, so its time per
// iteration in µs is the cost of one operation in ns.
//
// Rill's loops use the documented hot-loop idiom (await only what a channel
// operation returns); the "await every op" variants show the cost of the
// plain `await ch.send(v)` style. Peers run their fastest documented
// configuration: ts-chan with `setUnsafe(true)` (no macrotask yield per
// operation). @thi.ng/csp has no unbuffered channel (its smallest buffer is
// 1) and @ayonli/jsext no select. None of the peers has green threads, so
// spawning compares with a plain async function call.
//
// The peers are benchmark-only dependencies, pinned by full npm: specifiers
// here rather than in deno.json, so the library's import map stays free of
// them.
// deno-lint-ignore-file no-import-prefix

import { Channel, Scheduler, select } from "../scheduler/mod.ts";
import { Chan, recv as tsRecv, Select } from "npm:ts-chan@0.6.0";
import {
  channel as cspChannel,
  select as cspSelect,
} from "npm:@thi.ng/csp@3.2.44";
import { Channel as JsextChannel } from "npm:@ayonli/jsext@1.9.0/chan";

const OPS = 1000;

// Rill's threads live on one scheduler that is never run(): the benchmark
// harness is the host, and each iteration's loop is a green thread.
const s = new Scheduler({ seed: 1 });
// (deno bench awaits only functions declared async, hence `await` here.)
async function inThread(body: () => Promise<void>): Promise<void> {
  await s.go(body).done;
}

function forever(body: () => Promise<void>): void {
  body().catch((e) => {
    console.error(e);
    Deno.exit(1);
  });
}

// ---------------------------------------------------------------------------
// Unbuffered ping-pong: send on one channel, an echo thread sends it back.

{
  const ping = new Channel<number>();
  const pong = new Channel<number>();
  s.go(async () => {
    while (true) {
      let v = ping.recv();
      if (v instanceof Promise) v = await v;
      const p = pong.send(v);
      if (p) await p;
    }
  });
  Deno.bench(
    "rill",
    { group: "pingpong round trip ×1000", baseline: true },
    async () =>
      await inThread(async () => {
        for (let i = 0; i < OPS; i++) {
          const p = ping.send(i);
          if (p) await p;
          const v = pong.recv();
          if (v instanceof Promise) await v;
        }
      }),
  );
  Deno.bench(
    "rill (await every op)",
    { group: "pingpong round trip ×1000" },
    async () =>
      await inThread(async () => {
        for (let i = 0; i < OPS; i++) {
          await ping.send(i);
          await pong.recv();
        }
      }),
  );
}
{
  const ping = new Chan<number>().setUnsafe(true);
  const pong = new Chan<number>().setUnsafe(true);
  forever(async () => {
    while (true) await pong.send((await ping.recv()).value!);
  });
  Deno.bench("ts-chan", { group: "pingpong round trip ×1000" }, async () => {
    for (let i = 0; i < OPS; i++) {
      await ping.send(i);
      await pong.recv();
    }
  });
}
{
  const ping = cspChannel<number>();
  const pong = cspChannel<number>();
  forever(async () => {
    while (true) await pong.write((await ping.read())!);
  });
  Deno.bench(
    "@thi.ng/csp (buffer 1)",
    { group: "pingpong round trip ×1000" },
    async () => {
      for (let i = 0; i < OPS; i++) {
        await ping.write(i);
        await pong.read();
      }
    },
  );
}
{
  const ping = new JsextChannel<number>(0);
  const pong = new JsextChannel<number>(0);
  forever(async () => {
    while (true) await pong.send((await ping.recv())!);
  });
  Deno.bench(
    "@ayonli/jsext",
    { group: "pingpong round trip ×1000" },
    async () => {
      for (let i = 0; i < OPS; i++) {
        await ping.send(i);
        await pong.recv();
      }
    },
  );
}

// ---------------------------------------------------------------------------
// Buffered (capacity 100): send 1,000 values to a summing thread, which
// acknowledges the last one.

{
  const ch = new Channel<number>(100);
  const ack = new Channel<number>();
  s.go(async () => {
    let n = 0;
    let sum = 0;
    while (true) {
      let v = ch.recv();
      if (v instanceof Promise) v = await v;
      sum += v;
      if (++n === OPS) {
        n = 0;
        const p = ack.send(sum);
        if (p) await p;
      }
    }
  });
  Deno.bench("rill", {
    group: "buffered cap 100 send+recv ×1000",
    baseline: true,
  }, async () =>
    await inThread(async () => {
      for (let i = 0; i < OPS; i++) {
        const p = ch.send(i);
        if (p) await p;
      }
      await ack.recv();
    }));
}
{
  const ch = new Chan<number>(100).setUnsafe(true);
  const ack = new Chan<number>().setUnsafe(true);
  forever(async () => {
    let n = 0;
    while (true) {
      await ch.recv();
      if (++n === OPS) {
        n = 0;
        await ack.send(0);
      }
    }
  });
  Deno.bench(
    "ts-chan",
    { group: "buffered cap 100 send+recv ×1000" },
    async () => {
      for (let i = 0; i < OPS; i++) await ch.send(i);
      await ack.recv();
    },
  );
}
{
  const ch = cspChannel<number>(100);
  const ack = cspChannel<number>();
  forever(async () => {
    let n = 0;
    while (true) {
      await ch.read();
      if (++n === OPS) {
        n = 0;
        await ack.write(0);
      }
    }
  });
  Deno.bench(
    "@thi.ng/csp",
    { group: "buffered cap 100 send+recv ×1000" },
    async () => {
      for (let i = 0; i < OPS; i++) await ch.write(i);
      await ack.read();
    },
  );
}
{
  const ch = new JsextChannel<number>(100);
  const ack = new JsextChannel<number>(0);
  forever(async () => {
    let n = 0;
    while (true) {
      await ch.recv();
      if (++n === OPS) {
        n = 0;
        await ack.send(0);
      }
    }
  });
  Deno.bench(
    "@ayonli/jsext",
    { group: "buffered cap 100 send+recv ×1000" },
    async () => {
      for (let i = 0; i < OPS; i++) await ch.send(i);
      await ack.recv();
    },
  );
}

// ---------------------------------------------------------------------------
// Two-case select: receive from whichever of two buffered channels (cap 100)
// is ready; a producer thread fills them alternately.

{
  const c1 = new Channel<number>(100);
  const c2 = new Channel<number>(100);
  s.go(async () => {
    for (let i = 0;; i++) {
      const p = (i & 1 ? c2 : c1).send(i);
      if (p) await p;
    }
  });
  const cases = [{ recv: c1 }, { recv: c2 }] as const;
  Deno.bench(
    "rill",
    { group: "select 2 cases ×1000", baseline: true },
    async () =>
      await inThread(async () => {
        for (let i = 0; i < OPS; i++) {
          const r = select([{ recv: c1 }, { recv: c2 }]);
          if (r instanceof Promise) await r;
        }
      }),
  );
  // Nothing passed, as above, but the cases built once: what select itself
  // costs, apart from the three objects the row above makes per call.
  Deno.bench("rill (cases reused)", {
    group: "select 2 cases ×1000",
  }, async () =>
    await inThread(async () => {
      for (let i = 0; i < OPS; i++) {
        const r = select(cases);
        if (r instanceof Promise) await r;
      }
    }));
  const random = s.random;
  Deno.bench("rill (PRNG passed, cases reused)", {
    group: "select 2 cases ×1000",
  }, async () =>
    await inThread(async () => {
      for (let i = 0; i < OPS; i++) {
        const r = select(cases, { random });
        if (r instanceof Promise) await r;
      }
    }));
}
{
  const c1 = new Chan<number>(100).setUnsafe(true);
  const c2 = new Chan<number>(100).setUnsafe(true);
  forever(async () => {
    for (let i = 0;; i++) await (i & 1 ? c2 : c1).send(i);
  });
  const sel = new Select([tsRecv(c1), tsRecv(c2)]).setUnsafe(true);
  Deno.bench("ts-chan", { group: "select 2 cases ×1000" }, async () => {
    for (let i = 0; i < OPS; i++) {
      const k = await sel.wait();
      sel.recv(sel.cases[k]);
    }
  });
}
{
  const c1 = cspChannel<number>(100);
  const c2 = cspChannel<number>(100);
  forever(async () => {
    for (let i = 0;; i++) await (i & 1 ? c2 : c1).write(i);
  });
  Deno.bench("@thi.ng/csp", { group: "select 2 cases ×1000" }, async () => {
    for (let i = 0; i < OPS; i++) await cspSelect(c1, c2);
  });
}

// ---------------------------------------------------------------------------
// Spawn and finish: start 1,000 threads that each count down; the last one
// wakes the spawner.

{
  const done = new Channel<void>();
  Deno.bench(
    "rill",
    { group: "spawn+finish ×1000", baseline: true },
    async () =>
      await inThread(async () => {
        let left = OPS;
        const finish = () => {
          if (--left === 0) done.send();
        };
        for (let i = 0; i < OPS; i++) s.go(finish);
        await done.recv();
      }),
  );
  // The same on a scheduler whose threads get no async context (the program
  // interpreter's mode): the spawner names itself to its receive.
  const lean = new Scheduler({ seed: 1, threadContext: false });
  Deno.bench(
    "rill (no thread context)",
    { group: "spawn+finish ×1000" },
    async () =>
      await lean.go(async (t) => {
        let left = OPS;
        const finish = () => {
          if (--left === 0) done.send();
        };
        for (let i = 0; i < OPS; i++) lean.go(finish);
        await done.recv({ thread: t });
      }).done,
  );
  Deno.bench(
    "async function call (no thread)",
    { group: "spawn+finish ×1000" },
    async () => {
      let left = OPS;
      const { promise, resolve } = Promise.withResolvers<void>();
      // deno-lint-ignore require-await
      const finish = async () => {
        if (--left === 0) resolve();
      };
      for (let i = 0; i < OPS; i++) finish();
      await promise;
    },
  );
}
