// Worker 1 of a `pairRun` pool (see _pool_run.ts): joins the main
// thread's heap with its own scheduler and runs one task on the shared
// channels the main thread names, then posts "done" (or `{ error }`).

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import type { GreenThread } from "../../../scheduler/green_thread.ts";
import { Scheduler } from "../../../scheduler/scheduler.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import { PoolMember } from "../../../scheduler/shared/pool_member.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { selectShared } from "../../../scheduler/shared/shared_select.ts";
import { numberCodec } from "./_number_codec.ts";
import { vectorAt, vectorCodec } from "./_vector_codec.ts";
import {
  openSharedChannel,
} from "../../../scheduler/shared/_channel_handle.ts";

/** What worker 1 does; channels are record offsets of number channels. */
export type PoolWorkerTask =
  /** Sends 0 .. count-1 on `ch`. */
  | { kind: "stream"; ch: number; count: number }
  /** `count` times: receives v on `ping`, sends v + 1 on `pong`. */
  | { kind: "pingpong"; ping: number; pong: number; count: number }
  /**
   * Sends 0, 1, 2, ... on `ch` until a send panics (the channel was
   * closed), then sends how many sends completed on `report`.
   */
  | { kind: "untilClosed"; ch: number; report: number }
  /**
   * Receives from `from` until it is closed and drained, sending each
   * value on `to`; then closes `to`.
   */
  | { kind: "relay"; from: number; to: number }
  /** Sends `vectorAt(0 .. count-1)` on `ch`, a channel of `vectorCodec`. */
  | { kind: "vectors"; ch: number; count: number }
  /**
   * Two threads: thread k (0 or 1) select-sends k * count + 1 ..
   * k * count + count, each on `a` or `b`, whichever takes it.
   */
  | {
    kind: "doubleselect";
    a: number;
    b: number;
    count: number;
    /**
     * The PoolMember's `serviceThreads`: 1 counts the worker's main thread,
     * which only awaits the senders, as a service thread.
     */
    serviceThreads: number;
  };

function noop(): void {}

async function perform(
  task: PoolWorkerTask,
  member: PoolMember,
  scheduler: Scheduler,
  main: GreenThread,
): Promise<void> {
  const chan = (off: number) => openSharedChannel(member, off, numberCodec);
  const options = { thread: main };
  switch (task.kind) {
    case "stream": {
      const ch = chan(task.ch);
      for (let i = 0; i < task.count; i++) await ch.send(i, options);
      return;
    }
    case "pingpong": {
      const ping = chan(task.ping);
      const pong = chan(task.pong);
      for (let i = 0; i < task.count; i++) {
        const v = await ping.recv(options);
        await pong.send(v + 1, options);
      }
      return;
    }
    case "untilClosed": {
      const ch = chan(task.ch);
      let sent = 0;
      try {
        for (;;) {
          await ch.send(sent, options);
          sent++;
        }
      } catch (e) {
        if (!(e instanceof Panic)) throw e;
      }
      await chan(task.report).send(sent, options);
      return;
    }
    case "relay": {
      const from = chan(task.from);
      const to = chan(task.to);
      for (;;) {
        const r = await from.recvOk(options);
        if (!r.ok) break;
        await to.send(r.value, options);
      }
      to.close();
      return;
    }
    case "vectors": {
      const ch = openSharedChannel(member, task.ch, vectorCodec);
      for (let i = 0; i < task.count; i++) await ch.send(vectorAt(i), options);
      return;
    }
    case "doubleselect": {
      const a = chan(task.a);
      const b = chan(task.b);
      const senders = [0, 1].map((k) =>
        scheduler.go(async (t) => {
          for (let i = 1; i <= task.count; i++) {
            const value = k * task.count + i;
            const cases = [{ send: a, value }, { send: b, value }];
            await selectShared(member, cases, t.random, t);
          }
        })
      );
      for (const t of senders) await t.done;
      return;
    }
  }
}

self.onmessage = async (event: MessageEvent) => {
  const { memory, task } = event.data as {
    memory: WebAssembly.Memory;
    task: PoolWorkerTask & { serviceThreads?: number };
  };
  const heap = new SharedHeap(memory);
  const scheduler = new Scheduler({ seed: 2, threadContext: false });
  const serviceThreads = task.serviceThreads ?? 0;
  const member = new PoolMember(heap, 1, scheduler, { serviceThreads });
  try {
    const run = scheduler.run((t) => perform(task, member, scheduler, t));
    member.start({ onQuiet: noop, onMessage: noop });
    await run;
    self.postMessage("done");
  } catch (e) {
    self.postMessage({ error: String(e) });
  } finally {
    member.close();
  }
};
