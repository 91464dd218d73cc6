// ScheduleSites: one number per (kind, block, op), dense from 0.

import { assertEquals } from "@std/assert";
import { ScheduleSites } from "../../../runtime/core/schedule_sites.ts";
import { CASE_BASE, RECV, SEND } from "../../../runtime/core/schedule_file.ts";

Deno.test("ScheduleSites.site() numbers each site once, in order", () => {
  const sites = new ScheduleSites();
  assertEquals(sites.site(SEND, 1, 2), 0);
  assertEquals(sites.site(RECV, 1, 2), 1);
  assertEquals(sites.site(SEND, 1, 2), 0);
  assertEquals(sites.site(CASE_BASE + 1, 0, 7), 2);
  assertEquals(sites.words, [SEND, 1, 2, RECV, 1, 2, CASE_BASE + 1, 0, 7]);
  assertEquals([sites.kind(2), sites.block(2), sites.op(2)], [
    CASE_BASE + 1,
    0,
    7,
  ]);
});
