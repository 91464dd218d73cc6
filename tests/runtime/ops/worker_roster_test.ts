// The run's roster of workers: lost ones are never candidates, a
// rediscovery adds workers and brings back those it lists, one runs at a
// time, and a failed one changes nothing.

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
