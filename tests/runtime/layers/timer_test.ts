// The timer builders (`sleep`, `after`): what each appends.

import { assertEquals } from "@std/assert";
import { after, Program, sleep } from "../../../mod.ts";
import { attrOf } from "../../_helpers/attr_of.ts";
import { slotsOf } from "../../_helpers/slots_of.ts";

Deno.test("sleep() and after() carry their milliseconds", () => {
  const p = new Program();
  const t = p.guard(() => {
    sleep(2.5);
    return after(40);
  });
  const [sleepOp, afterOp] = p.desc.blocks[0].ops;
  assertEquals([sleepOp.type, attrOf(sleepOp, "ms").f], ["sleep", 2.5]);
  assertEquals([afterOp.type, attrOf(afterOp, "ms").f], ["channel_after", 40]);
  assertEquals(slotsOf(afterOp.outputs), { Out: [t.name] });
  assertEquals(t.kind, "channel");
});
