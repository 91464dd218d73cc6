import * as http2 from "node:http2";
import { assert, assertNotEquals, assertRejects } from "@std/assert";
import { listen } from "../../../runtime/cluster/_listen.ts";

Deno.test("listen() gives the port it bound, and rejects a port already taken", async () => {
  const first = http2.createServer();
  const second = http2.createServer();
  try {
    const port = await listen(first, "127.0.0.1", 0);
    assert(port > 0);
    await assertRejects(() => listen(second, "127.0.0.1", port));
    assertNotEquals(await listen(second, "127.0.0.1", 0), port);
  } finally {
    first.close();
    second.close();
  }
});
