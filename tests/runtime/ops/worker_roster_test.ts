// The run's roster of workers: lost ones are never candidates, a
// rediscovery adds workers and brings back those it lists, one runs at a
// time, and a failed one changes nothing; without one, a lost worker is
// re-dialled with backoff until it serves again or the window ends.

import { assertEquals } from "@std/assert";
import { WorkerRoster } from "../../../runtime/ops/_worker_roster.ts";

Deno.test("WorkerRoster.candidates() leaves out lost workers, in the list's order", () => {
  const roster = new WorkerRoster();
  roster.lose("b:2");
  assertEquals(roster.candidates(["a:1", "b:2", "c:3"]), ["a:1", "c:3"]);
  assertEquals(roster.isLost("b:2"), true);
  assertEquals(roster.isLost("a:1"), false);
});

Deno.test("WorkerRoster.lose() starts one rediscovery, whose workers become candidates", async () => {
  const roster = new WorkerRoster();
  let asked = 0;
  roster.setRediscovery(() => {
    asked++;
    return Promise.resolve(["a:1", "d:4"]);
  });
  roster.lose("a:1");
  roster.lose("b:2"); // while the first runs: shares it
  await roster.settled();
  assertEquals(asked, 1);
  // a:1 is listed Ready again: back; d:4 is new.
  assertEquals(roster.candidates(["a:1", "b:2"]), ["a:1", "d:4"]);
});

Deno.test("WorkerRoster keeps what it has when a rediscovery fails", async () => {
  const roster = new WorkerRoster();
  roster.setRediscovery(() => Promise.reject(new Error("403")));
  roster.lose("a:1");
  await roster.settled();
  assertEquals(roster.candidates(["a:1", "b:2"]), ["b:2"]);
});

Deno.test("WorkerRoster.lose() re-dials a lost worker of a fixed list until it serves again", async () => {
  const roster = new WorkerRoster({ redialWindowMs: 10_000 });
  const asked: string[] = [];
  // Down for the first two re-dials, serving from the third.
  const redial = (addr: string) => {
    asked.push(addr);
    return Promise.resolve(asked.length >= 3);
  };
  roster.lose("a:1", redial);
  roster.lose("a:1", redial); // one re-dial per address
  assertEquals(roster.candidates(["a:1", "b:2"]), ["b:2"]);
  await roster.settled();
  assertEquals(asked, ["a:1", "a:1", "a:1"]);
  assertEquals(roster.isLost("a:1"), false);
  assertEquals(roster.candidates(["a:1", "b:2"]), ["a:1", "b:2"]);
});

Deno.test("WorkerRoster gives up re-dialling once its window has passed", async () => {
  const roster = new WorkerRoster({ redialWindowMs: 600 });
  let asked = 0;
  roster.lose("a:1", () => {
    asked++;
    return Promise.resolve(false);
  });
  await roster.settled();
  // After 0.25 s, 0.75 s would be past the window: one more, at its end.
  assertEquals(asked, 2);
  assertEquals(roster.candidates(["a:1"]), []);
});

Deno.test("WorkerRoster re-dials nothing with a window of 0, or with a rediscovery", async () => {
  let asked = 0;
  const redial = () => {
    asked++;
    return Promise.resolve(true);
  };
  const off = new WorkerRoster({ redialWindowMs: 0 });
  off.lose("a:1", redial);
  await off.settled();
  const kube = new WorkerRoster();
  kube.setRediscovery(() => Promise.resolve([]));
  kube.lose("a:1", redial);
  await kube.settled();
  assertEquals(asked, 0);
  assertEquals([off.isLost("a:1"), kube.isLost("a:1")], [true, true]);
});
